list(APPEND FLOPCAST_CORE_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/cluster_topology.cpp
  ${CMAKE_CURRENT_LIST_DIR}/fair_share.cpp
  ${CMAKE_CURRENT_LIST_DIR}/group_shape.cpp
  ${CMAKE_CURRENT_LIST_DIR}/group_traffic.cpp
  ${CMAKE_CURRENT_LIST_DIR}/rank_layout.cpp)
