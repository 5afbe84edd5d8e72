list(APPEND FLOPCAST_APP_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/step_timeline.cpp
  ${CMAKE_CURRENT_LIST_DIR}/des_timeline.cpp)
