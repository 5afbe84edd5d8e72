list(APPEND FLOPCAST_IO_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/units_parse.cpp
  ${CMAKE_CURRENT_LIST_DIR}/yaml_util.cpp
  ${CMAKE_CURRENT_LIST_DIR}/catalog.cpp
  ${CMAKE_CURRENT_LIST_DIR}/profile_io.cpp
  ${CMAKE_CURRENT_LIST_DIR}/model_io.cpp
  ${CMAKE_CURRENT_LIST_DIR}/scenario_loader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/atomic_file.cpp
  ${CMAKE_CURRENT_LIST_DIR}/collective_runs.cpp
  ${CMAKE_CURRENT_LIST_DIR}/fleet_loader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/price_catalog_io.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sweep_loader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sweep_runner.cpp
  ${CMAKE_CURRENT_LIST_DIR}/chrome_trace.cpp
  ${CMAKE_CURRENT_LIST_DIR}/scenario_writer.cpp)
