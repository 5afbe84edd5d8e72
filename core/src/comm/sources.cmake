list(APPEND FLOPCAST_CORE_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/collective.cpp
  ${CMAKE_CURRENT_LIST_DIR}/comm_model.cpp
  ${CMAKE_CURRENT_LIST_DIR}/nccl_tuning.cpp)
