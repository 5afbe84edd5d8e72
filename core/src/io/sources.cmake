list(APPEND FLOPCAST_IO_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/units_parse.cpp
  ${CMAKE_CURRENT_LIST_DIR}/yaml_util.cpp
  ${CMAKE_CURRENT_LIST_DIR}/catalog.cpp
  ${CMAKE_CURRENT_LIST_DIR}/profile_io.cpp
  ${CMAKE_CURRENT_LIST_DIR}/model_io.cpp
  ${CMAKE_CURRENT_LIST_DIR}/scenario_loader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/atomic_file.cpp
  ${CMAKE_CURRENT_LIST_DIR}/collective_runs.cpp)
# Other modules' io (price catalogs, sweeps, ...) list themselves in sources_<module>.cmake.
file(GLOB _flopcast_io_parts CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/sources_*.cmake)
foreach(part IN LISTS _flopcast_io_parts)
  include(${part})
endforeach()
