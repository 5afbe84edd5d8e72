target_sources(flopcast_cli_lib PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/cmd_collective.cpp)
