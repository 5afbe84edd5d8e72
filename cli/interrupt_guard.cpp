#include "interrupt_guard.hpp"

#include <csignal>

namespace flopcast::cli {
namespace {

// Lock-free atomics may be touched from a signal handler (C++17 [support.signal]).
std::atomic<bool> g_flag{false};
std::atomic<int> g_signal{0};
static_assert(std::atomic<bool>::is_always_lock_free && std::atomic<int>::is_always_lock_free);

struct sigaction g_old_int, g_old_term;

extern "C" void on_signal(int sig) {
  g_signal.store(sig);
  g_flag.store(true);
}

}  // namespace

InterruptGuard::InterruptGuard() {
  g_flag.store(false);
  g_signal.store(0);
  struct sigaction sa = {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND;  // a second Ctrl-C ends the process at once
  sigaction(SIGINT, &sa, &g_old_int);
  sigaction(SIGTERM, &sa, &g_old_term);
}

InterruptGuard::~InterruptGuard() {
  sigaction(SIGINT, &g_old_int, nullptr);
  sigaction(SIGTERM, &g_old_term, nullptr);
}

const std::atomic<bool>& InterruptGuard::flag() const { return g_flag; }

int caught_signal() { return g_signal.load(); }

const char* signal_name(int sig) {
  switch (sig) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    default:
      return "a signal";
  }
}

}  // namespace flopcast::cli
