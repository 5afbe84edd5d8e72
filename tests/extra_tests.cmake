# Test suites beyond the doctest binary, each added only when its target is built.
if(TARGET flopcast_gui_lib)
  add_subdirectory(${CMAKE_CURRENT_LIST_DIR}/gui ${CMAKE_CURRENT_BINARY_DIR}/gui)
endif()
