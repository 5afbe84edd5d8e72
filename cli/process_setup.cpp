#include "process_setup.hpp"

#include <cstdlib>  // defines __GLIBC__ on glibc

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace flopcast::cli {

void tune_allocator_for_short_process() {
#if defined(__GLIBC__)
  // Blocks up to 64 MiB come from the heap (not mmap), and up to 128 MiB of free heap top is
  // kept (not trimmed). Fixed thresholds also turn off glibc's dynamic threshold, which only
  // rises after large blocks were already mapped and unmapped once (mallopt(3)).
  constexpr int kMiB = 1 << 20;
  mallopt(M_MMAP_THRESHOLD, 64 * kMiB);
  mallopt(M_TRIM_THRESHOLD, 128 * kMiB);
#endif
}

}  // namespace flopcast::cli
