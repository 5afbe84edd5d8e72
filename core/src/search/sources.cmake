list(APPEND FLOPCAST_CORE_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/planner.cpp
  ${CMAKE_CURRENT_LIST_DIR}/plan_enumeration.cpp
  ${CMAKE_CURRENT_LIST_DIR}/plan_lists.cpp
  ${CMAKE_CURRENT_LIST_DIR}/plan_bounds.cpp
  ${CMAKE_CURRENT_LIST_DIR}/plan_choice.cpp
  ${CMAKE_CURRENT_LIST_DIR}/framework_rules.cpp)
