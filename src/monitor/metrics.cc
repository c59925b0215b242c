#include "monitor/metrics.h"

#include <cmath>
#include <cstdio>

#include "report/summary.h"

namespace flowperf::monitor {
namespace {

// A label value as the text format wants it: backslash, quote and line
// feed escaped.
std::string escaped(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

std::string labels(const SeriesKey& k, const std::string& extra = {}) {
  std::string s = "{target=\"" + escaped(k.target) + "\",test=\"" + escaped(k.test) +
                  "\",streams=\"" + std::to_string(k.streams) + "\",direction=\"" +
                  escaped(k.direction) + "\"";
  if (!extra.empty()) s += "," + extra;
  return s + "}";
}

std::string number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char b[64];
  std::snprintf(b, sizeof b, "%.17g", v);
  return b;
}

// A bucket bound as a label: the shortest form ("1e-05", "0.5", "10").
std::string bound(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%g", v);
  return b;
}

bool contains(const std::string& s, const char* what) { return s.find(what) != std::string::npos; }

}  // namespace

std::string failure_reason(const std::string& message, bool started) {
  if (started) return "error";
  if (contains(message, "timed out") || contains(message, "did not answer") ||
      contains(message, "no answer"))
    return "timeout";
  if (contains(message, "no server is listening") || contains(message, "refused") ||
      contains(message, "busy"))
    return "refused";
  if (contains(message, "unreachable") || contains(message, "No route") ||
      contains(message, "resolve"))
    return "unreachable";
  return "setup";
}

void Metrics::record(const SeriesKey& key, const results::TestResult& r, double wall_s,
                     double now_unix) {
  const report::Summary sum = report::summarize(r);
  std::lock_guard lock(mu_);
  Series& s = series_[key];
  ++s.runs;
  s.duration_s = wall_s;
  s.rr = !sum.stream_family;
  s.tcp = !sum.udp;
  if (!r.error.empty()) {
    ++s.failures[failure_reason(r.error, true)];
    return;
  }
  if (r.interrupted) return;  // stopped by a reload or shutdown: not a result
  s.last_success_unix = now_unix;
  if (sum.stream_family) {
    s.throughput_bps = sum.total.throughput_bps;
    if (sum.udp) {
      s.loss_ratio = sum.total.loss_percent / 100;
      s.jitter_s = sum.total.jitter_ms / 1e3;
    }
  } else {
    s.tps = sum.total.transactions_per_s;
    const measure::Histogram* h = sum.total.latency;
    if (h && h->count() > 0) {
      s.p50_s = static_cast<double>(h->percentile(50)) / 1e9;
      s.p99_s = static_cast<double>(h->percentile(99)) / 1e9;
      for (const auto& b : h->nonzero_buckets()) {
        // A flowperf bucket goes under the first bound its largest value
        // fits: every sample counted under `le` is at most `le`.
        const double high = static_cast<double>(measure::Histogram::bucket_high(b.index)) / 1e9;
        size_t i = 0;
        while (i < kLatencyBounds.size() && high > kLatencyBounds[i]) ++i;
        s.buckets[i] += b.count;
      }
      s.latency_count += h->count();
      s.latency_sum_s += static_cast<double>(h->sum()) / 1e9;
    }
  }
  const bool remote_sends = r.spec.test == spec::TestKind::kTcpMaerts;
  const auto& sender_retrans = remote_sends ? sum.remote_retrans : sum.local_retrans;
  if (sender_retrans) s.retransmits += *sender_retrans;
  s.cpu_local = r.local_side.cpu ? r.local_side.cpu->util / 100 : NAN;
  s.cpu_remote = r.have_remote && r.remote_side.cpu ? r.remote_side.cpu->util / 100 : NAN;
  s.sd_local = sum.local_sd.value_or(NAN);
  s.sd_remote = sum.remote_sd.value_or(NAN);
  s.sd_unit = sum.sd_units;
}

void Metrics::record_failure(const SeriesKey& key, const std::string& reason, double wall_s) {
  std::lock_guard lock(mu_);
  Series& s = series_[key];
  ++s.runs;
  s.duration_s = wall_s;
  ++s.failures[reason];
}

void Metrics::record_reload(bool ok) {
  std::lock_guard lock(mu_);
  ++(ok ? reloads_ok_ : reloads_failed_);
}

std::string Metrics::render() const {
  std::lock_guard lock(mu_);
  std::string out;
  auto family = [&](const char* name, const char* type, const char* help) {
    out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
  };
  // One gauge family: a line per series that has the figure.
  auto gauge = [&](const char* name, const char* help, auto value) {
    bool any = false;
    for (const auto& [k, s] : series_) {
      const double v = value(s);
      if (std::isnan(v)) continue;
      if (!any) family(name, "gauge", help);
      any = true;
      out += name + labels(k) + " " + number(v) + "\n";
    }
  };
  family("flowperf_tests_total", "counter", "Tests started against the target, by series.");
  for (const auto& [k, s] : series_)
    out += "flowperf_tests_total" + labels(k) + " " + std::to_string(s.runs) + "\n";
  family("flowperf_test_failures_total", "counter",
         "Tests that gave no result, by reason (refused, timeout, unreachable, setup, error).");
  for (const auto& [k, s] : series_)
    for (const auto& [reason, n] : s.failures)
      out += "flowperf_test_failures_total" + labels(k, "reason=\"" + escaped(reason) + "\"") +
             " " + std::to_string(n) + "\n";
  gauge("flowperf_last_success_timestamp_seconds", "Unix time of the last test that gave a result.",
        [](const Series& s) { return s.last_success_unix > 0 ? s.last_success_unix : NAN; });
  gauge("flowperf_test_duration_seconds",
        "Wall time of the last test, set-up included (a failed one: until it gave up).",
        [](const Series& s) { return s.runs ? s.duration_s : NAN; });
  // Prometheus' base units: bytes and seconds (promtool checks for them).
  gauge("flowperf_throughput_bytes_per_second",
        "Stream tests: the last result, as the receiver counted (x 8 for bit/s).",
        [](const Series& s) { return s.throughput_bps / 8; });
  gauge("flowperf_transactions_per_second", "Request/response tests: the last result.",
        [](const Series& s) { return s.tps; });
  gauge("flowperf_latency_p50_seconds", "Request/response tests: the last run's median latency.",
        [](const Series& s) { return s.p50_s; });
  gauge("flowperf_latency_p99_seconds", "Request/response tests: the last run's 99th percentile.",
        [](const Series& s) { return s.p99_s; });
  gauge("flowperf_udp_loss_ratio", "UDP_STREAM: datagrams lost of those sent, last run (0 to 1).",
        [](const Series& s) { return s.loss_ratio; });
  gauge("flowperf_udp_jitter_seconds", "UDP_STREAM: the receiver's RFC 3550 jitter, last run.",
        [](const Series& s) { return s.jitter_s; });
  gauge("flowperf_cpu_local_ratio", "The monitor host's CPU use during the last run (0 to 1).",
        [](const Series& s) { return s.cpu_local; });
  gauge("flowperf_cpu_remote_ratio", "The server host's CPU use during the last run (0 to 1).",
        [](const Series& s) { return s.cpu_remote; });
  bool any_sd = false;
  for (const auto& [k, s] : series_)
    for (const auto& [end, v] :
         {std::pair{"local", s.sd_local}, std::pair{"remote", s.sd_remote}}) {
      if (std::isnan(v)) continue;
      if (!any_sd)
        family("flowperf_service_demand_seconds", "gauge",
               "CPU seconds per KB delivered (stream tests) or per transaction, last run "
               "(netperf's service demand, which is in microseconds, x 1e-6).");
      any_sd = true;
      out += "flowperf_service_demand_seconds" +
             labels(k, std::string("end=\"") + end + "\",per=\"" + (s.rr ? "transaction" : "KB") +
                           "\"") +
             " " + number(v / 1e6) + "\n";
    }
  bool any_tcp = false;
  for (const auto& [k, s] : series_) {
    if (!s.tcp || s.runs == 0) continue;
    if (!any_tcp)
      family("flowperf_tcp_retransmits_total", "counter",
             "TCP segments the sending side retransmitted, over every run.");
    any_tcp = true;
    out +=
        "flowperf_tcp_retransmits_total" + labels(k) + " " + std::to_string(s.retransmits) + "\n";
  }
  bool any_latency = false;
  for (const auto& [k, s] : series_) {
    if (!s.rr) continue;
    if (!any_latency)
      family("flowperf_latency_seconds", "histogram",
             "Request/response tests: every transaction's latency, over every run.");
    any_latency = true;
    uint64_t cumulative = 0;
    for (size_t i = 0; i < kLatencyBounds.size(); ++i) {
      cumulative += s.buckets[i];
      out += "flowperf_latency_seconds_bucket" +
             labels(k, "le=\"" + bound(kLatencyBounds[i]) + "\"") + " " +
             std::to_string(cumulative) + "\n";
    }
    cumulative += s.buckets.back();
    out += "flowperf_latency_seconds_bucket" + labels(k, "le=\"+Inf\"") + " " +
           std::to_string(cumulative) + "\n";
    out += "flowperf_latency_seconds_sum" + labels(k) + " " + number(s.latency_sum_s) + "\n";
    out +=
        "flowperf_latency_seconds_count" + labels(k) + " " + std::to_string(s.latency_count) + "\n";
  }
  family("flowperf_config_reloads_total", "counter", "Configuration reloads (SIGHUP), by result.");
  out += "flowperf_config_reloads_total{result=\"ok\"} " + std::to_string(reloads_ok_) + "\n";
  out +=
      "flowperf_config_reloads_total{result=\"failed\"} " + std::to_string(reloads_failed_) + "\n";
  return out;
}

}  // namespace flowperf::monitor
