// Summary: the numbers a report shows, computed once from a TestResult so
// every renderer shows the same thing. Stream throughput counts the bytes
// the receiver got (the server's count for client-to-server tests) over the
// client's elapsed time; when the receiver's count is missing (server gone)
// the sender's count is used and `receiver_counted` says so.
#pragma once

#include <optional>
#include <vector>

#include "measure/confidence.h"
#include "measure/histogram.h"
#include "results/test_result.h"

namespace flowperf::report {

struct StreamSummary {
  uint32_t index = 0;
  double elapsed_s = 0;
  // Stream family.
  uint64_t bytes_sent = 0;      // by the sender
  uint64_t bytes_received = 0;  // by the receiver (== bytes_sent for TCP)
  double throughput_bps = 0;    // bits per second delivered
  // UDP stream.
  uint64_t datagrams_sent = 0, datagrams_received = 0, datagrams_lost = 0;
  uint64_t out_of_order = 0, duplicates = 0, send_errors = 0;
  double loss_percent = 0;
  double send_bps = 0;  // offered load
  double jitter_ms = 0;
  // Request/response family.
  uint64_t transactions = 0;
  uint64_t remote_transactions = 0;
  double transactions_per_s = 0;
  uint64_t timeouts = 0, late = 0;
  // Nanoseconds; points into the TestResult summarized (not a copy: with
  // per-flow histograms, a copy per stream was several KB a stream).
  const measure::Histogram* latency = nullptr;
};

// An open-loop test's schedule (TestSpec::rate_tps), the client's counts.
struct OpenLoopSummary {
  double rate_per_s = 0;  // asked for
  double sent_per_s = 0;  // requests sent a second, over the client's elapsed time
  uint64_t sent = 0;      // requests sent on the schedule
  uint64_t late = 0;      // of them, sent more than 1 ms after their time
  uint64_t held = 0;      // of them, due while the cap of requests in flight was reached
  uint64_t unsent = 0;    // due before the end but never sent
  double max_lag_us = 0;  // the longest delay of a send
};

struct Summary {
  std::vector<StreamSummary> streams;
  StreamSummary total;
  // netperf's service demand: CPU microseconds per KB (1024 bytes)
  // delivered, or per transaction; absent where that side's CPU was not
  // measured.
  std::optional<double> local_sd, remote_sd;
  const char* sd_units = "us/KB";
  // TCP tests: retransmitted segments summed over each side's connections
  // (from TCP_INFO at the end), absent where not read.
  std::optional<uint64_t> local_retrans, remote_retrans;
  std::optional<OpenLoopSummary> open_loop;
  bool receiver_counted = true;
  bool stream_family = true;
  bool udp = false;
};

// The Summary points into `r` (latency histograms): keep r alive while it is used.
Summary summarize(const results::TestResult& r);
Summary summarize(const results::TestResult&& r) = delete;

// The figures a test repeated with --repeat/--confidence is judged on, by
// their JSON names: bits_per_second (delivered) for stream tests;
// transactions_per_second, latency_p50_us and latency_p99_us for RR tests.
// All of them govern when the runs may stop.
std::vector<measure::ConfidenceLoop::Metric> repeat_metrics(spec::TestKind kind);
// One run's values of those figures, in the same order.
std::vector<double> repeat_sample(const results::TestResult& r);

}  // namespace flowperf::report
