// The flopcast process's allocator settings (cli/process_setup.hpp), called by main() only.
#include <doctest/doctest.h>

#include <cstdlib>

#include "process_setup.hpp"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

TEST_CASE("cli: after the process setup, a large block comes from the heap, not a fresh mapping") {
  flopcast::cli::tune_allocator_for_short_process();
#if defined(__GLIBC__)
  // mallinfo2().hblks counts blocks served by mmap: glibc's default maps anything over 128 KiB.
  const std::size_t mapped_before = mallinfo2().hblks;
  void* block = std::malloc(std::size_t{8} << 20);  // 8 MiB: 10^5 links x 80 bytes
  REQUIRE(block != nullptr);
  const std::size_t mapped_with_block = mallinfo2().hblks;
  std::free(block);
  CHECK(mapped_with_block == mapped_before);
#else
  MESSAGE("not glibc: nothing to check");
#endif
}
