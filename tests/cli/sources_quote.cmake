list(APPEND FLOPCAST_TEST_SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_cmd_quote.cpp)
# The PDF checks run only when the CLI was built with quote_pdf/ (Qt 6 Gui found).
if(TARGET flopcast::quote_pdf)
  set_property(SOURCE ${CMAKE_CURRENT_LIST_DIR}/test_cmd_quote.cpp APPEND PROPERTY COMPILE_DEFINITIONS FLOPCAST_TEST_HAS_PDF=1)
else()
  set_property(SOURCE ${CMAKE_CURRENT_LIST_DIR}/test_cmd_quote.cpp APPEND PROPERTY COMPILE_DEFINITIONS FLOPCAST_TEST_HAS_PDF=0)
endif()
# The PDF module's loading (quote_pdf/ builds it; the CLI dlopens it for `quote --format pdf`).
if(TARGET flopcast_quote_pdf_module)
  list(APPEND FLOPCAST_TEST_SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_quote_pdf_module.cpp)
endif()
