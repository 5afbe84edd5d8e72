#pragma once
/// FLOPCAST_ASSERT: a broken internal invariant aborts with file:line in every build.
/// Never used for bad input, which gets a Diagnostic instead.
#include <cstdio>
#include <cstdlib>

#define FLOPCAST_ASSERT(cond, msg)                                                              \
  do {                                                                                          \
    if (!(cond)) {                                                                              \
      std::fprintf(stderr, "%s:%d: internal error: %s (%s)\n", __FILE__, __LINE__, msg, #cond); \
      std::abort();                                                                             \
    }                                                                                           \
  } while (false)
