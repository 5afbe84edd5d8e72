list(APPEND FLOPCAST_IO_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/claims_loader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/claims_loader_state.cpp
  ${CMAKE_CURRENT_LIST_DIR}/claims_needs_loader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/claimed_value_parse.cpp)
list(APPEND FLOPCAST_IO_SOURCES ${CMAKE_CURRENT_LIST_DIR}/claims_render.cpp)
