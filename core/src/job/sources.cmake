list(APPEND FLOPCAST_CORE_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/rng.cpp
  ${CMAKE_CURRENT_LIST_DIR}/young_daly.cpp
  ${CMAKE_CURRENT_LIST_DIR}/scenario_job.cpp
  ${CMAKE_CURRENT_LIST_DIR}/job_simulation.cpp
  ${CMAKE_CURRENT_LIST_DIR}/job_size.cpp)
