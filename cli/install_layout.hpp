#pragma once
/// Where an installed flopcast finds its files: relative to the running program, so that any
/// prefix works (/usr, /usr/local, a folder a package was unpacked into). The folders come from
/// GNUInstallDirs at configure time (cli/CMakeLists.txt); in the build tree none of them exist
/// and the program uses its built-in catalogs and the build's PDF module.
#include <filesystem>
#include <string>

namespace flopcast::cli {

/// The running program's path (/proc/self/exe), or "" when the system does not say.
std::filesystem::path program_path();

/// The catalog folder of an installed flopcast, PREFIX/share/flopcast/data (found from
/// PREFIX/bin/flopcast), when it holds gpus.yaml; "" otherwise (the built-in copy is used).
std::string installed_data_dir();

/// PREFIX/lib/flopcast/FILE beside an installed program: where the PDF module is installed.
/// "" when the program's path is unknown.
std::string installed_module_path(const std::string& file);

}  // namespace flopcast::cli
