list(APPEND FLOPCAST_CORE_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/fleet_engine.cpp
  ${CMAKE_CURRENT_LIST_DIR}/fleet.cpp
  ${CMAKE_CURRENT_LIST_DIR}/fleet_money.cpp
  ${CMAKE_CURRENT_LIST_DIR}/fleet_size_sweep.cpp)
