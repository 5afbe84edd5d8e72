list(APPEND FLOPCAST_CORE_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/compute_profile.cpp
  ${CMAKE_CURRENT_LIST_DIR}/prediction_band.cpp)
