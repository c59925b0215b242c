// Reports from results: a flowperf --json document or an iperf3 -J one is
// read into a Run (time series of both ends, the latency distribution, the
// facts for the header), and runs become charts, an HTML page or one SVG.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "plot/chart.h"

namespace flowperf::plot {

// One end's interval samples. Per-stream vectors are [stream][interval];
// a value that end did not measure is NaN.
struct SideSeries {
  std::vector<double> t;  // each interval's end, s
  std::vector<std::vector<double>> stream_bps;
  std::vector<double> sum_bps, tps, loss_percent, jitter_ms, cpu_percent, retransmits;
  std::vector<double> p50_us, p90_us, p99_us;  // each interval's latency percentiles
  std::vector<std::vector<double>> cwnd_bytes, rtt_ms;
};

// A latency distribution: (value in us, fraction of samples at or below).
struct Distribution {
  std::string name;  // "latency", "probe idle", ...
  std::vector<double> us, fraction;
  double p50 = 0, p99 = 0, p999 = 0;  // us; NaN when not reported
};

struct Run {
  std::string label;   // names the run in legends
  std::string source;  // "flowperf" or "iperf3"
  std::string test;    // TCP_STREAM, TCP_RR, ...
  bool rr = false, udp = false;
  size_t streams = 0;
  std::vector<std::pair<std::string, std::string>> facts;  // the header table's rows
  SideSeries client, server;
  const SideSeries& sender() const { return test == "TCP_MAERTS" ? server : client; }
  std::vector<Distribution> latency;  // empty bucket lists when none was measured
  double total_bps = 0, total_tps = 0;
};

// Reads a flowperf --json document or an iperf3 -J one (also the last
// "end" line of --json-stream). Throws flowperf::Error naming what is
// missing when it is neither.
Run read_run(const nlohmann::json& doc, std::string label);
// read_run, and for flowperf's --bidir (and -t RRUL) the other direction,
// the document's "reverse", as a second run labelled "LABEL reverse".
std::vector<Run> read_runs(const nlohmann::json& doc, const std::string& label);

// The charts for these runs, in report order; ids are stable names:
// throughput, transactions, latency-time, latency-cdf, loss, jitter, cwnd,
// rtt, retransmits, cpu. A chart no run has data for is left out.
std::vector<Chart> charts_for(const std::vector<Run>& runs);

// A self-contained page: inline CSS and SVG, nothing to fetch.
std::string html_report(const std::vector<Run>& runs, const std::string& title);

// How the header table writes a run's date (strftime, UTC).
inline constexpr const char* kDateFormat = "%Y-%m-%d %H:%M:%S UTC";

// Most streams drawn as lines of their own; more become a band.
inline constexpr size_t kMaxStreamLines = 8;

}  // namespace flowperf::plot
