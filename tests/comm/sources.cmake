list(APPEND FLOPCAST_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/test_cmd_collective.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_comm_calibration.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_comm_model.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_nccl_tuning.cpp)
