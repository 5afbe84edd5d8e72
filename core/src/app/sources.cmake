list(APPEND FLOPCAST_APP_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/scenario_session.cpp
  ${CMAKE_CURRENT_LIST_DIR}/evaluation.cpp
  ${CMAKE_CURRENT_LIST_DIR}/report_text.cpp
  ${CMAKE_CURRENT_LIST_DIR}/report_json.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compute_result.cpp
  ${CMAKE_CURRENT_LIST_DIR}/quote_request.cpp
  ${CMAKE_CURRENT_LIST_DIR}/plan_request.cpp
  ${CMAKE_CURRENT_LIST_DIR}/plan_report.cpp
  ${CMAKE_CURRENT_LIST_DIR}/fleet_request.cpp
  ${CMAKE_CURRENT_LIST_DIR}/fleet_report.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sweep_evaluator.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sweep_check_report.cpp
  ${CMAKE_CURRENT_LIST_DIR}/scenario_form.cpp
  ${CMAKE_CURRENT_LIST_DIR}/claims_check.cpp
  ${CMAKE_CURRENT_LIST_DIR}/step_timeline.cpp
  ${CMAKE_CURRENT_LIST_DIR}/des_timeline.cpp)
