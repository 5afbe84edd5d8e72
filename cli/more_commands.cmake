target_sources(flopcast_cli_lib PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/cmd_collective.cpp)
target_sources(flopcast_cli_lib PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/cmd_quote.cpp)
if(TARGET flopcast_quote_pdf_module)
  # PDF through the module quote_pdf/ builds, loaded only by `quote --format pdf` (no Qt at start).
  target_sources(flopcast_cli_lib PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/quote_pdf_loader.cpp)
  target_include_directories(flopcast_cli_lib PUBLIC ${PROJECT_SOURCE_DIR}/quote_pdf)
  target_link_libraries(flopcast_cli_lib PRIVATE ${CMAKE_DL_LIBS})
  add_dependencies(flopcast_cli_lib flopcast_quote_pdf_module)
  set_property(SOURCE ${CMAKE_CURRENT_SOURCE_DIR}/quote_pdf_loader.cpp APPEND PROPERTY COMPILE_DEFINITIONS
               FLOPCAST_QUOTE_PDF_BUILD_MODULE="$<TARGET_FILE:flopcast_quote_pdf_module>"
               FLOPCAST_QUOTE_PDF_MODULE_NAME="$<TARGET_FILE_NAME:flopcast_quote_pdf_module>")
  set_property(SOURCE ${CMAKE_CURRENT_SOURCE_DIR}/cmd_quote.cpp APPEND PROPERTY COMPILE_DEFINITIONS FLOPCAST_HAS_PDF=1)
else()
  set_property(SOURCE ${CMAKE_CURRENT_SOURCE_DIR}/cmd_quote.cpp APPEND PROPERTY COMPILE_DEFINITIONS FLOPCAST_HAS_PDF=0)
endif()
target_sources(flopcast_cli_lib PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/cmd_plan.cpp ${CMAKE_CURRENT_SOURCE_DIR}/plan_support.cpp
                                        ${CMAKE_CURRENT_SOURCE_DIR}/cmd_sweep.cpp)
target_sources(flopcast_cli_lib PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/cmd_fleet.cpp ${CMAKE_CURRENT_SOURCE_DIR}/fleet_plan.cpp
               ${CMAKE_CURRENT_SOURCE_DIR}/fleet_report.cpp)
target_sources(flopcast_cli_lib PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/cmd_check.cpp ${CMAKE_CURRENT_SOURCE_DIR}/claims_check.cpp)
