list(APPEND FLOPCAST_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/test_units_parse.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_scenario_loader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_negative.cpp)
include(${CMAKE_CURRENT_LIST_DIR}/sources_reliability.cmake)
list(APPEND FLOPCAST_TEST_SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_run_schema_keys.cpp)
