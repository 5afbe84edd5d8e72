# The sweep module: a sweep's points run, written, sharded, merged and checked. Built into
# flopcast::io (it writes files atomically through io); its public headers are flopcast/sweep/,
# and the sweep file's loader stays with the other loaders in io (flopcast/io/sweep_loader.hpp).
list(APPEND FLOPCAST_IO_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/sweep_meta.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sweep_rows.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sweep_runner.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sweep_merge.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sweep_check.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sweep_shard.cpp)
