#include "support/peers.h"

#include <unistd.h>

namespace flowperf::testing {
namespace {

std::string from_env(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

}  // namespace

std::string peer_dir() { return from_env("NETPERF_PEER_DIR", "/tmp/peers/bin"); }
std::string real_netperf() { return peer_dir() + "/netperf"; }
std::string real_netserver() { return peer_dir() + "/netserver"; }
std::string real_iperf3() { return from_env("IPERF3_PEER", "/usr/bin/iperf3"); }
std::string real_qperf() { return from_env("QPERF_PEER", "/usr/bin/qperf"); }

std::string chromium() {
  for (const char* p : {"/usr/bin/chromium", "/usr/bin/chromium-browser"})
    if (executable(p)) return p;
  return "";
}

bool executable(const std::string& path) {
  return !path.empty() && ::access(path.c_str(), X_OK) == 0;
}

}  // namespace flowperf::testing
