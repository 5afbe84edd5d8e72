list(APPEND FLOPCAST_CORE_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/price_catalog.cpp
  ${CMAKE_CURRENT_LIST_DIR}/bill.cpp
  ${CMAKE_CURRENT_LIST_DIR}/plan_comparison.cpp)
