list(APPEND FLOPCAST_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/test_money.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_bill.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_plan_comparison.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_price_catalog_io.cpp)
