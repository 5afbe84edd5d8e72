list(APPEND FLOPCAST_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/test_op_cost.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_host_floor.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_setting_resolution.cpp)
