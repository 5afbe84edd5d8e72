# Lists the test functions of a QtTest program (`PROGRAM -functions`) and writes one ctest entry
# per function to OUT, named PREFIX<function> and run as `PROGRAM <function>` headless. Run after
# each build of the program (tests/gui/CMakeLists.txt), as doctest_discover_tests lists the
# doctest cases, so a new test function needs no CMake change.
#   cmake -D PROGRAM=... -D OUT=... -D PREFIX=gui/ -D TIMEOUT=300 -P discover_qtest_functions.cmake
foreach(var PROGRAM OUT PREFIX TIMEOUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "discover_qtest_functions.cmake: ${var} is not set")
  endif()
endforeach()

execute_process(
  COMMAND "${CMAKE_COMMAND}" -E env QT_QPA_PLATFORM=offscreen "${PROGRAM}" -functions
  OUTPUT_VARIABLE listed
  ERROR_VARIABLE errors
  RESULT_VARIABLE status
  TIMEOUT 120)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} -functions exited with ${status}:\n${listed}${errors}")
endif()

string(REPLACE "\n" ";" lines "${listed}")
set(entries "")
set(count 0)
foreach(line IN LISTS lines)
  string(STRIP "${line}" line)
  # "name()": a test function (QtTest lists neither initTestCase nor the _data functions).
  if(line MATCHES "^([A-Za-z_][A-Za-z0-9_]*)\\(\\)$")
    set(name "${PREFIX}${CMAKE_MATCH_1}")
    string(APPEND entries "add_test([=[${name}]=] [=[${PROGRAM}]=] [=[${CMAKE_MATCH_1}]=])\n"
                          "set_tests_properties([=[${name}]=] PROPERTIES ENVIRONMENT QT_QPA_PLATFORM=offscreen"
                          " TIMEOUT ${TIMEOUT})\n")
    math(EXPR count "${count} + 1")
  endif()
endforeach()
if(count EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} -functions listed no test function:\n${listed}${errors}")
endif()
file(WRITE "${OUT}" "${entries}")
