list(APPEND FLOPCAST_CORE_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/quote_format.cpp
  ${CMAKE_CURRENT_LIST_DIR}/quote.cpp
  ${CMAKE_CURRENT_LIST_DIR}/quote_render.cpp
  ${CMAKE_CURRENT_LIST_DIR}/quote_text.cpp)
