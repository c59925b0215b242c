#include "support/peers.h"

#include <unistd.h>

#include "support/paths.h"

namespace flowperf::testing {

std::string peer_dir() { return env_or("NETPERF_PEER_DIR", "/tmp/peers/bin"); }
std::string real_netperf() { return peer_dir() + "/netperf"; }
std::string real_netserver() { return peer_dir() + "/netserver"; }
std::string real_iperf3() { return env_or("IPERF3_PEER", "/usr/bin/iperf3"); }
std::string real_iperf3_321() { return peer_dir() + "/iperf3-3.21"; }
std::string real_qperf() { return env_or("QPERF_PEER", "/usr/bin/qperf"); }

std::string chromium() {
  for (const char* p : {"/usr/bin/chromium", "/usr/bin/chromium-browser"})
    if (executable(p)) return p;
  return "";
}

bool executable(const std::string& path) {
  return !path.empty() && ::access(path.c_str(), X_OK) == 0;
}

}  // namespace flowperf::testing
