#include <iostream>

#include "cli_context.hpp"
#include "process_setup.hpp"

int main(int argc, char** argv) {
  flopcast::cli::tune_allocator_for_short_process();
  return flopcast::cli::run(argc, argv, std::cout, std::cerr);
}
