# Reliability tests (issue 9): sizes at the planning limits, fuzz-crash regressions,
# deterministic and crash-safe outputs.
list(APPEND FLOPCAST_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/test_limits.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_determinism.cpp)
