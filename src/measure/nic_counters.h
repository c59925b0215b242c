// Interface counters (what `sar -n DEV` shows) for the interface a test's
// data path uses, found from the local address of the connection: packets,
// bytes, drops and errors each way, from /sys/class/net/IF/statistics.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "net/socket.h"

namespace flowperf::measure {

struct NicCounters {
  uint64_t rx_packets = 0, tx_packets = 0, rx_bytes = 0, tx_bytes = 0;
  uint64_t rx_dropped = 0, tx_dropped = 0, rx_errors = 0, tx_errors = 0;
};

struct NicUsage {
  std::string name;
  NicCounters delta;  // over the interval
  double elapsed_s = 0;
  double per_s(uint64_t v) const { return elapsed_s > 0 ? static_cast<double>(v) / elapsed_s : 0; }
};

// The interface that holds this local address ("lo" for loopback), or
// nullopt when none does (e.g. an address behind NAT we cannot see).
std::optional<std::string> interface_for(const net::Address& local);
// Reads the counters from a statistics directory (for tests, a copy).
std::optional<NicCounters> read_nic_counters(const std::string& name,
                                             const std::string& sysfs = "/sys/class/net");
NicUsage nic_between(const std::string& name, const NicCounters& a, const NicCounters& b,
                     double elapsed_s);

}  // namespace flowperf::measure
