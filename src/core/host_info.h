// Facts about this host that reports show for each end of a test (qperf's
// conf, netperf's omni selectors, JSON endpoints).
#pragma once

#include <string>

namespace flowperf::core {

struct HostInfo {
  std::string hostname;
  std::string os;         // "Linux 6.1.0-18-amd64"
  std::string cpu_model;  // "Intel(R) Xeon(R) Gold 6161 CPU @ 2.20GHz"
  unsigned cores = 0;     // online CPUs
  double cpu_mhz = 0;     // 0 when unknown
};

HostInfo local_host_info();

}  // namespace flowperf::core
