target_sources(flopcast_cli_lib PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/cmd_collective.cpp)
target_sources(flopcast_cli_lib PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/cmd_quote.cpp)
if(TARGET flopcast::quote_pdf)
  target_link_libraries(flopcast_cli_lib PRIVATE flopcast::quote_pdf)
  set_property(SOURCE ${CMAKE_CURRENT_SOURCE_DIR}/cmd_quote.cpp APPEND PROPERTY COMPILE_DEFINITIONS FLOPCAST_HAS_PDF=1)
else()
  set_property(SOURCE ${CMAKE_CURRENT_SOURCE_DIR}/cmd_quote.cpp APPEND PROPERTY COMPILE_DEFINITIONS FLOPCAST_HAS_PDF=0)
endif()
target_sources(flopcast_cli_lib PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/cmd_plan.cpp ${CMAKE_CURRENT_SOURCE_DIR}/plan_support.cpp
                                        ${CMAKE_CURRENT_SOURCE_DIR}/cmd_sweep.cpp)
target_sources(flopcast_cli_lib PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/cmd_fleet.cpp ${CMAKE_CURRENT_SOURCE_DIR}/fleet_plan.cpp
               ${CMAKE_CURRENT_SOURCE_DIR}/fleet_report.cpp)
