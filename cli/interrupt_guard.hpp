#pragma once
/// Ctrl-C (SIGINT) and SIGTERM (`kill`, Slurm's scancel and time limit, Kubernetes' pod stop) while
/// a long command writes its output: the command stops at a clean point, says what it wrote, and
/// the process then ends by that signal (main() re-raises it), as the shell and the scheduler
/// expect (exit status 130 and 143).
#include <atomic>

namespace flopcast::cli {

/// While alive, SIGINT and SIGTERM set flag() instead of ending the process; a second signal ends
/// it at once (the handler is reset after the first). The previous handlers come back with the
/// destructor. One at a time per process.
class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  /// Set by the first signal; for sweep::RunOptions::cancel.
  const std::atomic<bool>& flag() const;
};

/// The signal an InterruptGuard caught (SIGINT or SIGTERM), 0 when none: main() ends the process
/// by it once the command has returned.
int caught_signal();

/// "SIGINT", "SIGTERM", or the number.
const char* signal_name(int sig);

}  // namespace flopcast::cli
