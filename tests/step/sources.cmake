list(APPEND FLOPCAST_TEST_SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_step_simulation.cpp ${CMAKE_CURRENT_LIST_DIR}/test_trace.cpp)
