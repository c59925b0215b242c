#include "support/paths.h"

#include <cstdlib>

namespace flowperf::testing {
namespace {

std::string from_env(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

}  // namespace

const std::string& flowperf_bin() {
  static const std::string p = from_env("FLOWPERF_BIN", FLOWPERF_BUILD_BIN);
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
  static const std::string d = from_env("FLOWPERF_SOURCE_DIR", FLOWPERF_BUILD_SOURCE_DIR);
  return d;
}

}  // namespace flowperf::testing
