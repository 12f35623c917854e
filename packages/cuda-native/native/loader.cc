// Run-time loading of libcuda, libnvrtc and libcublas. The candidate file list comes from
// TypeScript (src/libraries.ts decides the search order: MX_CUDA_LIB_DIR, the loader path, CUDA
// install folders, pip's nvidia/* wheels), so this file only opens, resolves and reports: every
// candidate tried, with dlerror()'s text or the first symbol it lacked.
#include <dlfcn.h>

#include "cuda_api.h"

namespace mx {

LoadReport LoadLibrary(const std::vector<std::string>& candidates, const char* const* names, size_t count,
                       void** table, void** handle) {
  LoadReport report;
  for (const std::string& path : candidates) {
    dlerror();
    void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (h == nullptr) {
      const char* err = dlerror();
      report.tried.push_back({path, err != nullptr ? err : "dlopen failed"});
      continue;
    }
    std::string missing;
    for (size_t i = 0; i < count; i++) {
      dlerror();
      void* sym = dlsym(h, names[i]);
      if (sym == nullptr) {
        missing = names[i];
        break;
      }
      table[i] = sym;
    }
    if (!missing.empty()) {
      dlclose(h);
      for (size_t i = 0; i < count; i++) table[i] = nullptr;
      report.tried.push_back({path, "opened, but it does not export " + missing + " (too old a version?)"});
      continue;
    }
    report.tried.push_back({path, ""});
    report.loaded = path;
    *handle = h;
    return report;
  }
  return report;
}

}  // namespace mx
