// What a side measures about its machine while its flows run: CPU (system
// and process) and the counters of the interface its data path uses. Both
// ends take it the same way: start() when the flows are released, finish()
// when they are done.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "engine/collect.h"
#include "measure/cpu_meter.h"
#include "measure/nic_counters.h"
#include "net/socket.h"

namespace flowperf::session {

class SideMeter {
 public:
  struct Reading {
    std::optional<measure::CpuUsage> cpu;
    std::optional<measure::NicUsage> nic;
  };
  // local: this side's address on the connection to the peer (nullptr: no
  // interface counters).
  void start(const net::Address* local);
  void start(const net::Address& local) { start(&local); }
  // What happened since start() or the last lap(); the next lap starts now.
  Reading lap();
  // Fills side.cpu and side.nic for the time since start(). Safe to call
  // once; later calls do nothing.
  void finish(results::SideResult& side);
  bool started() const { return started_; }

 private:
  bool started_ = false, finished_ = false;
  std::chrono::steady_clock::time_point t0_{};
  measure::CpuSnapshot cpu0_;
  std::optional<std::string> nic_;
  measure::NicCounters nic0_;
};

}  // namespace flowperf::session
