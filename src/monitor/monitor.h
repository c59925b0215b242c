// Runs a configuration's schedule: a thread per target, which sleeps until
// its next round, runs the target's tests one after another (so tests to one
// target never overlap) and records each into the Metrics. A target that is
// down or black-holed costs its own thread a connect timeout; the others
// keep their schedules.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "monitor/config.h"
#include "monitor/metrics.h"

namespace flowperf::monitor {

class Monitor {
 public:
  using Log = std::function<void(const std::string&)>;
  Monitor(Config config, Metrics& metrics, Log log);
  ~Monitor();  // stop()
  void start();
  // Ends every target's thread; a test under way is cut short (and not
  // counted as a result).
  void stop();
  const Config& config() const { return config_; }

 private:
  void run_target(const Target& t, uint64_t seed);
  Config config_;
  Metrics& metrics_;
  Log log_;
  std::atomic<bool> stopping_{false};
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::thread> threads_;
};

// The log line for a test that ran (exposed for tests).
std::string describe_result(const Target& t, const Test& test, const results::TestResult& r);

}  // namespace flowperf::monitor
