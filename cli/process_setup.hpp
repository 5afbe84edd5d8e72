#pragma once
/// Settings for the `flopcast` process itself, made once at the start of main() (never by the
/// library: tests and benchmarks run commands in their own processes with their own settings).

namespace flopcast::cli {

/// Tunes the C library's allocator for a short process that builds large arrays and frees
/// them (a 16,384-GPU cluster's links, routed flows, fair-share tables). glibc serves blocks
/// over 128 KiB with fresh mmap()s and hands freed memory back to the system, so each such
/// array costs new page faults (~10 us each on virtual machines: a third of a cold
/// `flopcast simulate` of Llama 3 405B). With large blocks kept in the heap and freed memory
/// kept for reuse, that run takes ~2,400 page faults instead of ~3,200. No effect on results;
/// nothing to do on other C libraries.
void tune_allocator_for_short_process();

}  // namespace flopcast::cli
