list(APPEND FLOPCAST_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/test_fleet.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_fleet_loader.cpp)
