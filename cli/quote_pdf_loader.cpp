#include "quote_pdf_loader.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <utility>

#include "install_layout.hpp"

namespace flopcast::cli {

bool quote_pdf_built() { return true; }

std::vector<std::string> quote_pdf_module_candidates() {
  if (const char* env = std::getenv(kQuotePdfModuleEnv); env && *env) return {env};
  std::vector<std::string> out;
  if (auto installed = installed_module_path(FLOPCAST_QUOTE_PDF_MODULE_NAME); !installed.empty())
    out.push_back(std::move(installed));
  out.push_back(FLOPCAST_QUOTE_PDF_BUILD_MODULE);
  return out;
}

quote_pdf::HtmlToPdfFn load_quote_pdf_module(std::string& error) {
  error.clear();
  for (const std::string& path : quote_pdf_module_candidates()) {
    // RTLD_LOCAL: Qt's symbols stay out of the global namespace; never dlclose'd (see header).
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char* why = dlerror();
      error += (error.empty() ? "" : "; ") + std::string(why ? why : path + ": cannot be loaded");
      continue;
    }
    if (void* sym = dlsym(handle, quote_pdf::kHtmlToPdfSymbol)) {
      error.clear();  // the places tried before do not matter
      return reinterpret_cast<quote_pdf::HtmlToPdfFn>(sym);
    }
    error += (error.empty() ? "" : "; ") + path + ": no " + quote_pdf::kHtmlToPdfSymbol +
             " (a module from another version?)";
  }
  return nullptr;
}

}  // namespace flopcast::cli
