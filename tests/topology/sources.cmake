list(APPEND FLOPCAST_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/test_cluster_topology.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_fair_share.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_group_traffic.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_rank_layout.cpp)
