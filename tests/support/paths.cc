#include "support/paths.h"

#include <cstdlib>

namespace flowperf::testing {
std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

const std::string& flowperf_bin() {
  static const std::string p = env_or("FLOWPERF_BIN", FLOWPERF_BUILD_BIN);
  return p;
}

const std::string& bin_dir() {
  static const std::string d = [] {
    const std::string& b = flowperf_bin();
    const auto slash = b.rfind('/');
    return slash == std::string::npos ? std::string(".") : b.substr(0, slash);
  }();
  return d;
}

std::string personality(const std::string& name) { return bin_dir() + "/" + name; }

const std::string& source_dir() {
  static const std::string d = env_or("FLOWPERF_SOURCE_DIR", FLOWPERF_BUILD_SOURCE_DIR);
  return d;
}

}  // namespace flowperf::testing
