list(APPEND FLOPCAST_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/test_cli.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_golden.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_process_setup.cpp)
include(${CMAKE_CURRENT_LIST_DIR}/sources_quote.cmake)
