list(APPEND FLOPCAST_CORE_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/op_cost.cpp
  ${CMAKE_CURRENT_LIST_DIR}/collective_cost.cpp
  ${CMAKE_CURRENT_LIST_DIR}/fine_tuning_cost.cpp
  ${CMAKE_CURRENT_LIST_DIR}/stage_cost.cpp)
