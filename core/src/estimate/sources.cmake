list(APPEND FLOPCAST_CORE_SOURCES ${CMAKE_CURRENT_LIST_DIR}/step_estimate.cpp ${CMAKE_CURRENT_LIST_DIR}/setting_resolution.cpp)
