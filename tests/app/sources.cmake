list(APPEND FLOPCAST_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/test_evaluation.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_quote_request.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_plan_request.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_sweep_evaluator.cpp)
