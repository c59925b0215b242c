// The monitor's metrics: what each test run added, kept per series (target,
// test, streams, direction) and written in the Prometheus text format
// (version 0.0.4) for /metrics. Counters only grow; the memory is fixed per
// series (latency buckets are a fixed set), so it stays flat however many
// tests run. Thread-safe: the targets' threads record, the HTTP thread
// renders.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "results/test_result.h"

namespace flowperf::monitor {

// The latency histogram's upper bounds, seconds (10 µs to 10 s).
inline constexpr std::array<double, 19> kLatencyBounds = {
    10e-6, 20e-6, 50e-6,  100e-6, 200e-6, 500e-6, 1e-3, 2e-3, 5e-3, 10e-3,
    20e-3, 50e-3, 100e-3, 200e-3, 500e-3, 1,      2,    5,    10};

struct SeriesKey {
  std::string target, test, direction;
  uint32_t streams = 1;
  auto operator<=>(const SeriesKey&) const = default;
};

// Why a test did not give a result (the `reason` label).
// "refused": nothing listens or the server said no; "timeout": no answer in
// time (down or firewalled); "unreachable": no route; "error": the test
// started and failed part-way; "setup": any other failure before it ran.
std::string failure_reason(const std::string& message, bool started);

class Metrics {
 public:
  // A test that ran (r.error may say it failed part-way) and how long it took.
  void record(const SeriesKey& key, const results::TestResult& r, double wall_s, double now_unix);
  // A test that never ran: the error before it started, after wall_s.
  void record_failure(const SeriesKey& key, const std::string& reason, double wall_s);
  void record_reload(bool ok);
  std::string render() const;  // the /metrics body

 private:
  struct Series {
    uint64_t runs = 0;
    std::map<std::string, uint64_t> failures;  // by reason
    double last_success_unix = 0;
    double duration_s = 0;
    // The last successful run's figures; NaN: not measured for this test.
    double throughput_bps = NAN, tps = NAN, loss_ratio = NAN, jitter_s = NAN;
    double cpu_local = NAN, cpu_remote = NAN, sd_local = NAN, sd_remote = NAN;
    std::string sd_unit;
    double p50_s = NAN, p99_s = NAN;
    uint64_t retransmits = 0;  // counter: the sending side's, summed over runs
    bool tcp = false, rr = false;
    // Latency histogram over every run: per bound (not cumulative), +Inf.
    std::array<uint64_t, kLatencyBounds.size() + 1> buckets{};
    uint64_t latency_count = 0;
    double latency_sum_s = 0;
  };
  mutable std::mutex mu_;
  std::map<SeriesKey, Series> series_;
  uint64_t reloads_ok_ = 0, reloads_failed_ = 0;
};

}  // namespace flowperf::monitor
