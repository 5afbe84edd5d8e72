#pragma once
/// Catalog files from data/ compiled into the binary (see data/CMakeLists.txt).
#include <span>
#include <string_view>

namespace flopcast::io::data {

/// One embedded file: its path relative to data/ and its bytes.
struct EmbeddedFile {
  std::string_view path;
  std::string_view content;
};

/// Every embedded catalog file, in the order data/CMakeLists.txt lists them.
std::span<const EmbeddedFile> embedded_files();

}  // namespace flopcast::io::data
