list(APPEND FLOPCAST_CORE_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/validation.cpp
  ${CMAKE_CURRENT_LIST_DIR}/calibrate.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cross_validation.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kernel_measurement.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kernel_fit.cpp)
