# ctest entry "tests/every test source is built" (tests/CMakeLists.txt): every tests/*/test_*.cpp
# is one of the sources the configure step accounted for (built into a test executable, or left
# out on purpose because its part of the program is not configured). Run with
#   cmake -D TESTS_DIR=<tests/> -D ACCOUNTED=<list file, one absolute path a line> -P this file
cmake_minimum_required(VERSION 3.25)
file(STRINGS "${ACCOUNTED}" accounted)
file(GLOB found LIST_DIRECTORIES false "${TESTS_DIR}/*/test_*.cpp")
set(missing "")
foreach(source IN LISTS found)
  cmake_path(NORMAL_PATH source)
  if(NOT source IN_LIST accounted)
    list(APPEND missing "${source}")
  endif()
endforeach()
if(missing)
  list(JOIN missing "\n  " lines)
  message(FATAL_ERROR "test sources that no test executable builds (add each to its folder's CMakeLists.txt):\n  ${lines}")
endif()
list(LENGTH found count)
message(STATUS "${count} test sources, each built or left out on purpose")
