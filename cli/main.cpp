#include <iostream>

#include "cli_context.hpp"

int main(int argc, char** argv) { return flopcast::cli::run(argc, argv, std::cout, std::cerr); }
