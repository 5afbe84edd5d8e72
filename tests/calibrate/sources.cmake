list(APPEND FLOPCAST_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/test_calibrate.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_cross_validation.cpp)
