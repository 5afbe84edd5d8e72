#include <csignal>
#include <iostream>

#include "cli_context.hpp"
#include "interrupt_guard.hpp"
#include "process_setup.hpp"

int main(int argc, char** argv) {
  flopcast::cli::tune_allocator_for_short_process();
  const int code = flopcast::cli::run(argc, argv, std::cout, std::cerr);
  // A command that stopped on Ctrl-C or SIGTERM said what it wrote; the process now ends by that
  // signal, so that a shell loop or a scheduler sees it was interrupted.
  if (const int sig = flopcast::cli::caught_signal()) {
    std::cout.flush();
    std::cerr.flush();
    std::signal(sig, SIG_DFL);
    std::raise(sig);
  }
  return code;
}
