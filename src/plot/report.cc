#include "plot/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>

#include "core/error.h"
#include "core/version.h"
#include "core/wall_clock.h"
#include "measure/histogram.h"

namespace flowperf::plot {
namespace {

using nlohmann::json;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// j[key] as a number; NaN when absent, null or not a number.
double number(const json& j, const char* key) {
  if (!j.is_object()) return kNaN;
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : kNaN;
}
const json& child(const json& j, const char* key) {
  static const json null;
  if (!j.is_object()) return null;
  auto it = j.find(key);
  return it == j.end() ? null : *it;
}
std::string text(const json& j, const char* key) {
  const json& c = child(j, key);
  return c.is_string() ? c.get<std::string>() : c.is_number() ? c.dump() : "";
}
bool is_array(const json& j) { return j.is_array(); }

double nan_sum(double a, double b) { return std::isnan(a) ? b : std::isnan(b) ? a : a + b; }

std::string fixed(double v, int decimals) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", decimals, v);
  return b;
}

std::string rate_text(double bps) {
  if (!std::isfinite(bps)) return "";
  const Unit u = si_unit(bps, "bit/s");
  return fixed(bps / u.divisor, 2) + " " + u.name;
}

std::string latency_text(double us) {
  if (!std::isfinite(us)) return "";
  if (us >= 1000) return tick_label(std::round(us / 10) / 100) + " ms";
  return tick_label(std::round(us * 10) / 10) + " us";
}

// Puts v at [stream][interval], growing the matrix with NaN.
void put(std::vector<std::vector<double>>& m, size_t stream, size_t interval, size_t intervals,
         double v) {
  if (m.size() <= stream) m.resize(stream + 1);
  m[stream].resize(intervals, kNaN);
  m[stream][interval] = v;
}
void even_out(SideSeries& s) {
  for (auto* m : {&s.stream_bps, &s.cwnd_bytes, &s.rtt_ms})
    for (auto& row : *m) row.resize(s.t.size(), kNaN);
}

Distribution distribution(const json& latency_us, std::string name) {
  Distribution d;
  d.name = std::move(name);
  const json& h = child(latency_us, "histogram_ns");
  const json& buckets = child(h, "buckets");
  if (!is_array(buckets)) return d;
  const double lo = number(h, "min"), hi = number(h, "max");
  double total = 0;
  for (const auto& b : buckets)
    if (b.is_array() && b.size() == 2 && b[1].is_number()) total += b[1].get<double>();
  if (total <= 0) return d;
  double seen = 0;
  for (const auto& b : buckets) {
    if (!b.is_array() || b.size() != 2 || !b[0].is_number_integer() || !b[1].is_number() ||
        b[0].get<int64_t>() < 0)
      continue;
    const auto index = static_cast<uint32_t>(std::min<int64_t>(b[0].get<int64_t>(), UINT32_MAX));
    seen += b[1].get<double>();
    // The bucket's top, held within the exact extremes.
    double v = static_cast<double>(measure::Histogram::bucket_high(index));
    if (std::isfinite(hi)) v = std::min(v, hi);
    if (std::isfinite(lo)) v = std::max(v, lo);
    d.us.push_back(v / 1000);
    d.fraction.push_back(seen / total);
  }
  d.p50 = number(latency_us, "p50");
  d.p99 = number(latency_us, "p99");
  d.p999 = number(latency_us, "p99_9");
  return d;
}

// The closing sample of a run can be a few milliseconds long: a rate over
// it is noise, and the charts leave it out (the totals keep its counts).
bool too_short(double seconds, double longest) { return seconds < 0.2 * longest; }

// ---- flowperf's document --------------------------------------------------------

void read_flowperf_side(const json& intervals, bool client, const std::string& test,
                        SideSeries& s) {
  if (!is_array(intervals)) return;
  const bool maerts = test == "TCP_MAERTS";
  double longest = 0;
  for (const auto& iv : intervals)
    longest = std::max(longest, number(iv, "end_s") - number(iv, "start_s"));
  for (const auto& iv : intervals) {
    const double start = number(iv, "start_s"), end = number(iv, "end_s");
    const double dt = end - start;
    if (!(dt > 0) || too_short(dt, longest)) continue;
    const size_t i = s.t.size();
    s.t.push_back(end);
    const json& flows = child(iv, client ? "streams" : "flows");
    double sum = 0, txn = 0, lost = 0, got = 0, jitter = 0, retrans = kNaN;
    size_t k = 0, jitters = 0;
    bool udp_counts = false;
    if (is_array(flows)) {
      for (const auto& f : flows) {
        // The bytes in the test's direction: the client sends in a stream
        // test and receives in TCP_MAERTS; the server the other way.
        const bool sent = client != maerts;
        const double bytes = number(f, sent     ? "bytes_sent"
                                       : client ? "bytes_received"
                                                : "bytes_recv");
        const double bps = 8 * bytes / dt;
        put(s.stream_bps, k, i, i + 1, bps);
        sum = nan_sum(sum, bps);
        txn = nan_sum(txn, number(f, "transactions"));
        if (!client && f.contains("lost") && child(f, "lost").is_number()) {
          udp_counts = true;
          lost += std::max(0.0, number(f, "lost"));
          got += std::max(0.0, number(f, "datagrams_recv"));
          const double j = number(f, "jitter_ns");
          if (std::isfinite(j)) jitter += j, ++jitters;
        }
        retrans = nan_sum(retrans, number(f, client ? "retransmits" : "retrans"));
        const json& tcp = child(f, "tcp");
        const double cwnd = number(tcp, "snd_cwnd") * number(tcp, "snd_mss");
        put(s.cwnd_bytes, k, i, i + 1, cwnd);
        put(s.rtt_ms, k, i, i + 1, number(tcp, "rtt_us") / 1000);
        ++k;
      }
    }
    s.sum_bps.push_back(sum);
    s.tps.push_back(txn / dt);
    s.loss_percent.push_back(udp_counts && lost + got > 0 ? 100 * lost / (lost + got)
                             : udp_counts                 ? 0
                                                          : kNaN);
    s.jitter_ms.push_back(jitters ? jitter / static_cast<double>(jitters) / 1e6 : kNaN);
    s.cpu_percent.push_back(number(child(iv, "cpu"), "util"));
    s.retransmits.push_back(retrans);
    // The interval's latency: the client's "sum.latency_us" (microseconds),
    // the server's "latency" (a histogram in nanoseconds).
    const json& lat = client ? child(child(iv, "sum"), "latency_us") : json();
    s.p50_us.push_back(number(lat, "p50"));
    s.p90_us.push_back(number(lat, "p90"));
    s.p99_us.push_back(number(lat, "p99"));
  }
  even_out(s);
}

void read_flowperf(const json& doc, Run& r) {
  auto& dists = r.latency;
  r.source = "flowperf";
  r.test = text(doc, "test");
  r.rr = r.test.find("_RR") != std::string::npos || r.test == "TCP_CRR" || r.test == "TCP_CC";
  r.udp = r.test.rfind("UDP", 0) == 0;
  const json& spec = child(doc, "spec");
  const json& total = child(doc, "total");
  const json& streams = child(doc, "streams");
  r.streams = is_array(streams) ? streams.size() : 0;
  read_flowperf_side(child(doc, "intervals"), true, r.test, r.client);
  read_flowperf_side(child(child(doc, "remote"), "intervals"), false, r.test, r.server);
  r.total_bps = number(total, "bits_per_second");
  r.total_tps = number(total, "transactions_per_second");
  const json& lat = child(total, "latency_us");
  if (r.rr || number(lat, "count") > 0)
    dists.push_back(distribution(lat, r.rr ? "latency" : "call latency"));
  const json& probe = child(doc, "probe");
  if (probe.is_object()) {
    dists.push_back(distribution(child(child(probe, "idle"), "latency_us"), "probe idle"));
    dists.push_back(distribution(child(child(probe, "loaded"), "latency_us"), "probe loaded"));
  }

  const json& ep = child(doc, "endpoints");
  const json& local = child(ep, "local");
  const json& remote = child(ep, "remote");
  auto& f = r.facts;
  f.emplace_back("test", r.test);
  f.emplace_back("tool", "flowperf " + text(child(doc, "tool"), "version"));
  const double started = number(child(doc, "timestamp"), "unix_s");
  if (std::isfinite(started) && started > 0)
    f.emplace_back("date", core::utc_text(static_cast<std::time_t>(started), kDateFormat));
  f.emplace_back("client", text(local, "host"));
  std::string server = text(remote, "host") + ":" + text(remote, "port");
  if (!text(remote, "hostname").empty()) server += " (" + text(remote, "hostname") + ")";
  if (child(remote, "embedded").is_boolean() && child(remote, "embedded").get<bool>())
    server += ", embedded";
  f.emplace_back("server", server);
  f.emplace_back("server software", text(remote, "software"));
  f.emplace_back("streams", std::to_string(r.streams));
  f.emplace_back("duration", text(spec, "duration_s") + " s");
  if (r.rr)
    f.emplace_back("request, response",
                   text(spec, "request_size") + ", " + text(spec, "response_size") + " bytes");
  else
    f.emplace_back("send size", text(spec, "send_size") + " bytes");
  const std::string cc = text(child(spec, "local"), "cc");
  if (!cc.empty()) f.emplace_back("congestion control", cc);
  if (std::isfinite(r.total_bps) && !r.rr) f.emplace_back("throughput", rate_text(r.total_bps));
  if (r.rr && std::isfinite(r.total_tps))
    f.emplace_back("transactions", fixed(r.total_tps, 1) + " /s");
  if (r.udp && std::isfinite(number(total, "loss_percent")))
    f.emplace_back("loss", fixed(number(total, "loss_percent"), 3) + " %");
  const double cl = number(child(child(doc, "local"), "cpu"), "util"),
               cr = number(child(child(doc, "remote"), "cpu"), "util");
  if (std::isfinite(cl) || std::isfinite(cr))
    f.emplace_back("CPU client, server", (std::isfinite(cl) ? fixed(cl, 1) + " %" : "-") + ", " +
                                             (std::isfinite(cr) ? fixed(cr, 1) + " %" : "-"));
  if (child(doc, "interrupted").is_boolean() && child(doc, "interrupted").get<bool>())
    f.emplace_back("interrupted", "yes: the figures cover the time until the stop");
}

// ---- iperf3's -J document ------------------------------------------------------

void read_iperf3_side(const json& intervals, SideSeries& s) {
  if (!is_array(intervals)) return;
  std::map<double, size_t> stream_of;  // socket -> stream index
  double longest = 0;
  for (const auto& iv : intervals) longest = std::max(longest, number(child(iv, "sum"), "seconds"));
  for (const auto& iv : intervals) {
    const json& sum = child(iv, "sum");
    const double end = number(sum, "end");
    if (!std::isfinite(end) || too_short(number(sum, "seconds"), longest)) continue;
    const size_t i = s.t.size();
    s.t.push_back(end);
    double retrans = kNaN;
    const json& streams = child(iv, "streams");
    if (is_array(streams)) {
      for (const auto& st : streams) {
        double socket = number(st, "socket");
        if (!std::isfinite(socket)) socket = -1;  // NaN would break the map's order
        const size_t k = stream_of.emplace(socket, stream_of.size()).first->second;
        put(s.stream_bps, k, i, i + 1, number(st, "bits_per_second"));
        put(s.cwnd_bytes, k, i, i + 1, number(st, "snd_cwnd"));
        put(s.rtt_ms, k, i, i + 1, number(st, "rtt") / 1000);
        retrans = nan_sum(retrans, number(st, "retransmits"));
      }
    }
    s.sum_bps.push_back(number(sum, "bits_per_second"));
    s.tps.push_back(kNaN);
    s.loss_percent.push_back(number(sum, "lost_percent"));
    s.jitter_ms.push_back(number(sum, "jitter_ms"));
    s.cpu_percent.push_back(kNaN);
    s.retransmits.push_back(retrans);
    s.p50_us.push_back(kNaN);
    s.p90_us.push_back(kNaN);
    s.p99_us.push_back(kNaN);
  }
  even_out(s);
}

void read_iperf3(const json& doc, Run& r) {
  r.source = "iperf3";
  const json& start = child(doc, "start");
  const json& ts = child(start, "test_start");
  const std::string proto = text(ts, "protocol");
  const bool reverse = number(ts, "reverse") > 0;
  r.udp = proto == "UDP";
  r.test = r.udp ? "UDP_STREAM" : reverse ? "TCP_MAERTS" : "TCP_STREAM";
  r.streams = static_cast<size_t>(std::max(0.0, number(ts, "num_streams")));
  read_iperf3_side(child(doc, "intervals"), r.client);
  read_iperf3_side(child(child(doc, "server_output_json"), "intervals"), r.server);
  const json& end = child(doc, "end");
  r.total_bps = r.udp ? number(child(end, "sum"), "bits_per_second")
                      : number(child(end, "sum_received"), "bits_per_second");
  auto& f = r.facts;
  f.emplace_back("test", "iperf3 " + proto + (reverse ? " reverse" : "") +
                             (number(ts, "bidir") > 0 ? " bidir" : ""));
  f.emplace_back("tool", text(start, "version"));
  f.emplace_back("date", text(child(start, "timestamp"), "time"));
  const json& connected = child(start, "connected");
  if (is_array(connected) && !connected.empty())
    f.emplace_back("client", text(connected[0], "local_host"));
  const json& to = child(start, "connecting_to");
  f.emplace_back("server", text(to, "host") + ":" + text(to, "port"));
  f.emplace_back("system", text(start, "system_info"));
  f.emplace_back("streams", std::to_string(r.streams));
  f.emplace_back("duration", text(ts, "duration") + " s");
  f.emplace_back("block size", text(ts, "blksize") + " bytes");
  if (std::isfinite(r.total_bps)) f.emplace_back("throughput", rate_text(r.total_bps));
  if (r.udp) {
    const double loss = number(child(end, "sum"), "lost_percent");
    if (std::isfinite(loss)) f.emplace_back("loss", fixed(loss, 3) + " %");
  }
  const json& cpu = child(end, "cpu_utilization_percent");
  if (cpu.is_object())
    f.emplace_back("CPU client, server", fixed(number(cpu, "host_total"), 1) + " %, " +
                                             fixed(number(cpu, "remote_total"), 1) + " %");
  const std::string error = text(doc, "error");
  if (!error.empty()) f.emplace_back("error", error);
}

// ---- charts ----------------------------------------------------------------------

std::string who(const Run& r, size_t runs, const std::string& what) {
  return runs > 1 ? r.label + " " + what : what;
}

// Per-stream values of one run: a line each when few, else a band from the
// smallest to the largest and the median.
void per_stream(Chart& c, const std::vector<double>& t, const std::vector<std::vector<double>>& m,
                double divisor, const Run& r, size_t run_index, size_t runs,
                const std::string& what) {
  size_t streams = 0;
  for (const auto& row : m)
    if (std::any_of(row.begin(), row.end(), [](double v) { return std::isfinite(v); })) ++streams;
  if (streams == 0) return;
  auto scaled = [&](const std::vector<double>& row) {
    std::vector<double> y(row.size());
    for (size_t i = 0; i < row.size(); ++i) y[i] = row[i] / divisor;
    return y;
  };
  if (streams == 1 || (runs == 1 && m.size() <= kMaxStreamLines)) {
    for (size_t k = 0; k < m.size(); ++k)
      c.series.push_back(
          {m.size() == 1 ? who(r, runs, what) : what + " stream " + std::to_string(k), t,
           scaled(m[k]), runs > 1 ? run_index : k});
    return;
  }
  Band band{who(r, runs, what + ": streams min to max"), t, {}, {}, run_index};
  Series median{who(r, runs, what + ": median stream"), t, {}, run_index};
  for (size_t i = 0; i < t.size(); ++i) {
    std::vector<double> v;
    for (const auto& row : m)
      if (i < row.size() && std::isfinite(row[i])) v.push_back(row[i] / divisor);
    if (v.empty()) {
      band.lo.push_back(kNaN), band.hi.push_back(kNaN), median.y.push_back(kNaN);
      continue;
    }
    std::sort(v.begin(), v.end());
    band.lo.push_back(v.front());
    band.hi.push_back(v.back());
    median.y.push_back(v[v.size() / 2]);
  }
  c.bands.push_back(std::move(band));
  c.series.push_back(std::move(median));
}

double max_of(const std::vector<double>& v) {
  double m = 0;
  for (double x : v)
    if (std::isfinite(x)) m = std::max(m, x);
  return m;
}
double max_of(const std::vector<std::vector<double>>& m) {
  double r = 0;
  for (const auto& row : m) r = std::max(r, max_of(row));
  return r;
}
bool any(const std::vector<double>& v) {
  return std::any_of(v.begin(), v.end(), [](double x) { return std::isfinite(x); });
}
bool any(const std::vector<std::vector<double>>& m) {
  return std::any_of(m.begin(), m.end(), [](const auto& row) { return any(row); });
}
std::vector<double> divided(const std::vector<double>& v, double d) {
  std::vector<double> out(v);
  for (auto& x : out) x /= d;
  return out;
}

Chart time_chart(std::string id, std::string title, std::string y_label) {
  Chart c;
  c.id = std::move(id);
  c.title = std::move(title);
  c.x_label = "time (s)";
  c.x_from_zero = true;
  c.y_label = std::move(y_label);
  return c;
}

// A chart of one per-interval figure of both ends, a line per run and end
// (only the UDP runs' with udp_only).
Chart both_ends(const std::vector<Run>& runs, const char* id, std::string title,
                std::string y_label, std::vector<double> SideSeries::*field, bool udp_only) {
  Chart c = time_chart(id, std::move(title), std::move(y_label));
  for (size_t r = 0; r < runs.size(); ++r) {
    const Run& run = runs[r];
    if (udp_only && !run.udp) continue;
    if (any(run.client.*field))
      c.series.push_back({who(run, runs.size(), "client"), run.client.t, run.client.*field, r});
    if (any(run.server.*field))
      c.series.push_back({who(run, runs.size(), "server"), run.server.t, run.server.*field,
                          runs.size() > 1 ? r : r + 1, true});
  }
  return c;
}

}  // namespace

std::vector<Chart> charts_for(const std::vector<Run>& runs) {
  std::vector<Chart> out;
  const size_t n = runs.size();

  // Throughput, for the runs that move a stream.
  {
    double top = 0;
    for (const auto& r : runs)
      if (!r.rr) top = std::max({top, max_of(r.client.sum_bps), max_of(r.server.sum_bps)});
    const Unit u = si_unit(top, "bit/s");
    Chart c = time_chart("throughput", "Throughput per interval", "throughput (" + u.name + ")");
    for (size_t r = 0; r < n; ++r) {
      const Run& run = runs[r];
      if (run.rr) continue;
      const SideSeries& s = run.client;
      if (n > 1) {
        // Runs compared: each run's sums, a colour per run.
        if (any(s.sum_bps))
          c.series.push_back({run.label + " client", s.t, divided(s.sum_bps, u.divisor), r});
        if (any(run.server.sum_bps))
          c.series.push_back({run.label + " server", run.server.t,
                              divided(run.server.sum_bps, u.divisor), r, true});
        continue;
      }
      // One run: its streams (lines, or a band when many) and the sums.
      const bool many = s.stream_bps.size() > 1;
      if (many) per_stream(c, s.t, s.stream_bps, u.divisor, run, r, n, "client");
      if (any(s.sum_bps))
        c.series.push_back(
            {many ? "sum (client)" : "client", s.t, divided(s.sum_bps, u.divisor), many ? 6u : 0u});
      if (any(run.server.sum_bps))
        c.series.push_back({many ? "sum (server)" : "server", run.server.t,
                            divided(run.server.sum_bps, u.divisor), many ? 6u : 1u, true});
    }
    if (!c.series.empty()) out.push_back(std::move(c));
  }

  // Transactions, for request/response runs.
  {
    Chart c =
        time_chart("transactions", "Transaction rate per interval", "transactions per second");
    for (size_t r = 0; r < n; ++r)
      if (runs[r].rr && any(runs[r].client.tps))
        c.series.push_back({who(runs[r], n, "client"), runs[r].client.t, runs[r].client.tps, r});
    if (!c.series.empty()) out.push_back(std::move(c));
  }

  // Latency percentiles per interval: a line per percentile for one run;
  // p50 solid and p99 dashed in each run's colour for several. A log axis
  // when the tail is far from the median.
  {
    Chart c = time_chart("latency-time", "Latency percentiles per interval", "latency (us)");
    double lo = 0, hi = 0;
    for (size_t r = 0; r < n; ++r) {
      const SideSeries& s = runs[r].client;
      if (!any(s.p50_us)) continue;
      if (n == 1) {
        c.series.push_back({"p50", s.t, s.p50_us, 0});
        c.series.push_back({"p90", s.t, s.p90_us, 2});
        c.series.push_back({"p99", s.t, s.p99_us, 1});
      } else {
        c.series.push_back({runs[r].label + " p50", s.t, s.p50_us, r});
        c.series.push_back({runs[r].label + " p99", s.t, s.p99_us, r, true});
      }
      for (double v : s.p50_us)
        if (std::isfinite(v) && v > 0) lo = lo > 0 ? std::min(lo, v) : v;
      hi = std::max(hi, max_of(s.p99_us));
    }
    c.y_log = lo > 0 && hi / lo > 50;
    if (c.y_log) c.y_label = "latency (us, log scale)";
    if (!c.series.empty()) out.push_back(std::move(c));
  }

  // The latency distribution.
  {
    Chart c;
    c.id = "latency-cdf";
    c.title = "Latency distribution (CDF)";
    c.x_label = "latency (us, log scale)";
    c.y_label = "fraction at or below";
    c.x_log = true;
    c.y_min = 0;
    c.y_max = 1;
    size_t dists = 0;
    for (const auto& r : runs) dists += r.latency.size();
    size_t index = 0;
    for (size_t r = 0; r < n; ++r) {
      for (const auto& d : runs[r].latency) {
        if (d.us.empty()) continue;
        const size_t col = n > 1 ? r : index;
        const std::string name = n > 1 ? runs[r].label + " " + d.name : d.name;
        // The CDF starts at zero at the smallest sample.
        Series s{name, {d.us.front()}, {0.0}, col};
        s.steps = true;
        s.x.insert(s.x.end(), d.us.begin(), d.us.end());
        s.y.insert(s.y.end(), d.fraction.begin(), d.fraction.end());
        s.dashed = n > 1 && index % 2 == 1;
        c.series.push_back(std::move(s));
        const std::string prefix = dists > 1 ? name + " " : "";
        if (std::isfinite(d.p50))
          c.markers.push_back({d.p50, prefix + "p50 " + latency_text(d.p50), col});
        if (std::isfinite(d.p99))
          c.markers.push_back({d.p99, prefix + "p99 " + latency_text(d.p99), col});
        if (std::isfinite(d.p999))
          c.markers.push_back({d.p999, prefix + "p99.9 " + latency_text(d.p999), col});
        ++index;
      }
    }
    if (!c.series.empty()) out.push_back(std::move(c));
  }

  // UDP: loss and jitter, as the receiver saw them.
  auto keep = [&](Chart c) {
    if (!c.series.empty()) out.push_back(std::move(c));
  };
  keep(both_ends(runs, "loss", "UDP loss per interval", "datagrams lost (%)",
                 &SideSeries::loss_percent, true));
  keep(both_ends(runs, "jitter", "UDP jitter", "jitter (ms)", &SideSeries::jitter_ms, true));

  // TCP: the sender's congestion window, round-trip time and retransmits.
  {
    double top = 0;
    for (const auto& r : runs) top = std::max(top, max_of(r.sender().cwnd_bytes));
    const Unit u = si_unit(top, "B");
    Chart cw = time_chart("cwnd", "Congestion window (sender)", "cwnd (" + u.name + ")");
    Chart rtt = time_chart("rtt", "Smoothed RTT (sender)", "RTT (ms)");
    for (size_t r = 0; r < n; ++r) {
      const SideSeries& s = runs[r].sender();
      if (runs[r].rr || runs[r].udp) continue;
      if (any(s.cwnd_bytes)) per_stream(cw, s.t, s.cwnd_bytes, u.divisor, runs[r], r, n, "cwnd");
      if (any(s.rtt_ms)) per_stream(rtt, s.t, s.rtt_ms, 1, runs[r], r, n, "RTT");
    }
    keep(std::move(cw));
    keep(std::move(rtt));
    Chart re =
        time_chart("retransmits", "Retransmitted segments per interval (sender)", "segments");
    for (size_t r = 0; r < n; ++r) {
      const SideSeries& s = runs[r].sender();
      if (!runs[r].udp && !runs[r].rr && any(s.retransmits))
        re.series.push_back({who(runs[r], n, "retransmits"), s.t, s.retransmits, r});
    }
    keep(std::move(re));
  }

  keep(both_ends(runs, "cpu", "CPU utilization of both ends", "CPU (% of all CPUs)",
                 &SideSeries::cpu_percent, false));
  return out;
}

// A --json-stream "end" line holds the document in "data".
Run read_run(const json& doc, std::string label) {
  if (doc.is_object() && doc.contains("event") && doc.contains("data"))
    return read_run(doc["data"], std::move(label));
  Run r;
  r.label = std::move(label);
  if (doc.is_object() && child(child(doc, "tool"), "name") == "flowperf") {
    read_flowperf(doc, r);
  } else if (doc.is_object() && doc.contains("start") && doc.contains("intervals") &&
             doc.contains("end")) {
    read_iperf3(doc, r);
  } else {
    throw Error(ExitCode::kUsage,
                "not a result flowperf can draw: expected flowperf's --json document (with "
                "\"tool\": {\"name\": \"flowperf\"}) or iperf3's -J output (with \"start\", "
                "\"intervals\" and \"end\")");
  }
  if (!r.latency.empty() && !r.latency[0].us.empty()) {
    const Distribution& d = r.latency[0];
    r.facts.emplace_back(
        d.name + " p50 / p99 / p99.9",
        latency_text(d.p50) + " / " + latency_text(d.p99) + " / " + latency_text(d.p999));
  }
  return r;
}

std::vector<Run> read_runs(const json& doc, const std::string& label) {
  if (doc.is_object() && doc.contains("event") && doc.contains("data"))
    return read_runs(doc["data"], label);
  std::vector<Run> runs{read_run(doc, label)};
  if (runs[0].source == "flowperf" && child(doc, "reverse").is_object()) {
    json reverse = doc["reverse"];
    reverse["tool"] = doc["tool"];  // the reverse document leaves it to the outer one
    runs.push_back(read_run(reverse, label + " reverse"));
  }
  return runs;
}

std::string html_report(const std::vector<Run>& runs, const std::string& title) {
  const std::vector<Chart> all = charts_for(runs);
  std::string o =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" +
      xml_escape(title) +
      "</title>\n<style>\n"
      "body{font-family:sans-serif;margin:24px;color:#222;max-width:1600px}\n"
      "h1{font-size:20px}h2{font-size:16px;margin:24px 0 6px}\n"
      "table{border-collapse:collapse;font-size:13px}\n"
      "th,td{border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top}\n"
      "th{background:#f3f3f3}\nnav a{margin-right:12px}\n"
      "section.chart-box{display:inline-block;vertical-align:top;margin:0 12px 12px 0}\n"
      "footer{margin-top:24px;font-size:12px;color:#666}\n"
      "</style>\n</head>\n<body>\n<h1>" +
      xml_escape(title) + "</h1>\n";
  // The header table: a column per run, a row per fact any run has.
  std::vector<std::string> keys;
  for (const auto& r : runs)
    for (const auto& [k, v] : r.facts)
      if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
  o += "<table class=\"facts\">\n<tr><th></th>";
  for (const auto& r : runs) o += "<th>" + xml_escape(r.label) + "</th>";
  o += "</tr>\n";
  for (const auto& k : keys) {
    o += "<tr><th>" + xml_escape(k) + "</th>";
    for (const auto& r : runs) {
      std::string v;
      for (const auto& [fk, fv] : r.facts)
        if (fk == k) v = fv;
      o += "<td>" + xml_escape(v) + "</td>";
    }
    o += "</tr>\n";
  }
  o += "</table>\n<nav>";
  for (const auto& c : all)
    o += "<a href=\"#box-" + xml_escape(c.id) + "\">" + xml_escape(c.title) + "</a>";
  o += "</nav>\n";
  // What is not drawn, and why: the charts over time need interval samples.
  bool intervals = false, server_lines = false;
  for (const auto& r : runs) {
    intervals = intervals || !r.client.t.empty() || !r.server.t.empty();
    server_lines = server_lines || !r.server.t.empty();
  }
  if (all.empty())
    o += "<p>No charts: these results have no intervals (run with -i) and no latency "
         "histogram.</p>\n";
  else if (!intervals)
    o += "<p class=\"note\">Only the latency distribution is drawn: the charts over time "
         "(throughput, transactions, latency, loss, congestion window, CPU) need interval "
         "samples, which a test run with <code>-i SECONDS</code> records (iperf3 records them "
         "by default).</p>\n";
  for (const auto& c : all)
    o += "<section class=\"chart-box\" id=\"box-" + xml_escape(c.id) + "\">\n" + render_svg(c) +
         "</section>\n";
  o += std::string("<footer>Made by flowperf ") + kVersion + ".";
  if (server_lines)
    o += " Client and server lines come from each end's own interval samples.";
  else if (intervals)
    o += " The lines come from the client's interval samples.";
  o += "</footer>\n</body>\n</html>\n";
  return o;
}

}  // namespace flowperf::plot
