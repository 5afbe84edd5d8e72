list(APPEND FLOPCAST_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/test_young_daly.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_job_simulation.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_job_size.cpp)
