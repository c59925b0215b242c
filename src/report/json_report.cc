#include "report/json_report.h"

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "core/version.h"
#include "core/wall_clock.h"
#include "measure/histogram_json.h"
#include "report/result_json.h"
#include "report/summary.h"
#include "spec/spec_json.h"

namespace flowperf::report {
namespace {

using nlohmann::json;

json num(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

json stream_json(const StreamSummary& s, const Summary& sum) {
  json j = {{"elapsed_s", num(s.elapsed_s)}};
  if (sum.stream_family) {
    j["bytes_sent"] = s.bytes_sent;
    j["bytes_received"] = s.bytes_received;
    j["bits_per_second"] = num(s.throughput_bps);
    if (sum.udp) {
      j["datagrams_sent"] = s.datagrams_sent;
      j["datagrams_received"] = s.datagrams_received;
      j["datagrams_lost"] = s.datagrams_lost;
      j["loss_percent"] = num(s.loss_percent);
      j["out_of_order"] = s.out_of_order;
      j["duplicates"] = s.duplicates;
      j["send_errors"] = s.send_errors;
      j["jitter_ms"] = num(s.jitter_ms);
      j["offered_bits_per_second"] = num(s.send_bps);
    }
  } else {
    j["transactions"] = s.transactions;
    j["remote_transactions"] = s.remote_transactions;
    j["transactions_per_second"] = num(s.transactions_per_s);
    j["timeouts"] = s.timeouts;
    j["late"] = s.late;
    j["latency_us"] = s.latency ? latency_json(*s.latency) : json(nullptr);
  }
  return j;
}

}  // namespace

json latency_json(const measure::Histogram& h) {
  auto us = [](double ns) { return num(ns / 1000.0); };
  return {{"count", h.count()},
          {"min", us(static_cast<double>(h.min()))},
          {"mean", us(h.mean())},
          {"stddev", us(h.stddev())},
          {"p50", us(static_cast<double>(h.percentile(50)))},
          {"p90", us(static_cast<double>(h.percentile(90)))},
          {"p99", us(static_cast<double>(h.percentile(99)))},
          {"p99_9", us(static_cast<double>(h.percentile(99.9)))},
          {"p99_99", us(static_cast<double>(h.percentile(99.99)))},
          {"max", us(static_cast<double>(h.max()))},
          {"histogram_ns", measure::histogram_to_json(h)}};
}

namespace {

json open_loop_json(const OpenLoopSummary& o, const spec::TestSpec& s) {
  return {{"rate_per_second", num(o.rate_per_s)},
          {"arrival", spec::arrival_name(s.arrival)},
          {"seed", s.seed},
          {"max_outstanding", s.max_outstanding},
          {"sent", o.sent},
          {"sent_per_second", num(o.sent_per_s)},
          {"sent_late", o.late},
          {"held_by_cap", o.held},
          {"unsent", o.unsent},
          {"max_send_lag_us", num(o.max_lag_us)}};
}

// One phase of a latency probe: the probe test's totals, as a request/
// response test's "total" has them, with its schedule and its errors.
json probe_phase_json(const results::TestResult& p) {
  const Summary sum = summarize(p);
  json j = stream_json(sum.total, sum);
  if (sum.open_loop) j["open_loop"] = open_loop_json(*sum.open_loop, p.spec);
  json errors = json::array();
  if (!p.error.empty()) errors.push_back(p.error);
  j["errors"] = errors;
  return j;
}

json probe_json(const spec::TestSpec& s, const results::ProbeResult& p) {
  return {{"test", spec::info(s.probe_test).name},
          {"rate_per_second", num(s.probe_rate_tps)},
          {"baseline_s", num(s.probe_baseline_s)},
          {"message_bytes", spec::kProbeMessageBytes},
          {"idle", p.idle ? probe_phase_json(*p.idle) : json(nullptr)},
          {"loaded", p.loaded ? probe_phase_json(*p.loaded) : json(nullptr)}};
}

}  // namespace

json head_json(const results::TestResult& r) {
  json j = {{"schema_version", kJsonSchemaVersion},
            {"tool", {{"name", "flowperf"}, {"version", kVersion}}},
            {"test", spec::info(r.spec.test).name},
            {"spec", spec::to_json(r.spec)},
            {"endpoints",
             {{"local", {{"host", r.local.host}, {"port", r.local.port}}},
              {"remote",
               {{"host", r.remote.host},
                {"port", r.remote.port},
                {"software", r.server_software},
                {"hostname", r.server_hostname},
                {"embedded", r.embedded_server}}}}}};
  if (r.started != std::chrono::system_clock::time_point{})
    j["timestamp"] = {
        {"unix_s", num(std::chrono::duration<double>(r.started.time_since_epoch()).count())},
        {"utc", core::utc_iso8601(r.started)}};
  return j;
}

json interval_json(const spec::TestSpec& spec, const results::IntervalSample& iv) {
  json flows = json::array();
  uint64_t sent = 0, recv = 0, txn = 0;
  const double dt = iv.end_s - iv.start_s;
  for (size_t i = 0; i < iv.flows.size(); ++i) {
    const auto& f = iv.flows[i];
    sent += f.bytes_sent;
    recv += f.bytes_recv;
    txn += f.transactions;
    json fj = {{"index", i},
               {"bytes_sent", f.bytes_sent},
               {"bytes_received", f.bytes_recv},
               {"transactions", f.transactions}};
    if (f.datagrams_sent || f.datagrams_recv) {
      fj["datagrams_sent"] = f.datagrams_sent;
      fj["datagrams_received"] = f.datagrams_recv;
    }
    if (f.timeouts) fj["timeouts"] = f.timeouts;
    if (f.tcp) {
      fj["retransmits"] = f.retrans;
      fj["tcp"] = tcp_info_json(*f.tcp);
    }
    flows.push_back(std::move(fj));
  }
  const uint64_t moved = spec.test == spec::TestKind::kTcpMaerts ? recv : sent;
  return {{"start_s", num(iv.start_s)},
          {"end_s", num(iv.end_s)},
          {"streams", flows},
          {"sum",
           {{"bytes_sent", sent},
            {"bytes_received", recv},
            {"transactions", txn},
            {"bits_per_second", num(dt > 0 ? 8.0 * static_cast<double>(moved) / dt : 0)},
            {"transactions_per_second", num(dt > 0 ? static_cast<double>(txn) / dt : 0)},
            {"latency_us", iv.latency ? latency_json(*iv.latency) : json(nullptr)}}},
          {"cpu", iv.cpu ? cpu_json(*iv.cpu) : json(nullptr)},
          {"nic", iv.nic ? nic_json(*iv.nic) : json(nullptr)}};
}

namespace {

// Stand-ins for the big arrays in a document written by write_result_json().
constexpr const char* kStreamsMark = "\x01\x02flowperf-splice:streams\x02\x01";
constexpr const char* kLocalMark = "\x01\x02flowperf-splice:local\x02\x01";
constexpr const char* kRemoteMark = "\x01\x02flowperf-splice:remote\x02\x01";

json indexed_stream_json(const StreamSummary& s, const Summary& sum) {
  json j = stream_json(s, sum);
  j["index"] = s.index;
  return j;
}

// The document; with `marks`, "streams" and both sides' "flows" are strings
// standing in for those arrays.
json result_doc(const results::TestResult& r, const Summary& sum, bool marks) {
  json streams = json::array();
  if (marks) {
    streams = kStreamsMark;
  } else {
    for (const auto& s : sum.streams) streams.push_back(indexed_stream_json(s, sum));
  }
  auto side = [&](const results::SideResult& sr, const char* mark) {
    if (!marks) return side_json(sr);
    json j = side_head_json(sr);
    j["flows"] = mark;
    return j;
  };
  json intervals = json::array();
  for (const auto& iv : r.intervals) intervals.push_back(interval_json(r.spec, iv));
  json errors = json::array();
  if (!r.error.empty()) errors.push_back(r.error);
  json total = stream_json(sum.total, sum);
  total["receiver_counted"] = sum.receiver_counted;
  if (const auto& o = sum.open_loop) total["open_loop"] = open_loop_json(*o, r.spec);
  total["service_demand"] = {{"units", sum.sd_units},
                             {"local", sum.local_sd ? num(*sum.local_sd) : json(nullptr)},
                             {"remote", sum.remote_sd ? num(*sum.remote_sd) : json(nullptr)}};
  json doc = head_json(r);
  doc["intervals"] = std::move(intervals);
  doc["streams"] = std::move(streams);
  doc["total"] = std::move(total);
  doc["local"] = side(r.local_side, kLocalMark);
  doc["remote"] = r.have_remote ? side(r.remote_side, kRemoteMark) : json(nullptr);
  doc["interrupted"] = r.interrupted;
  doc["errors"] = std::move(errors);
  if (r.probe) doc["probe"] = probe_json(r.spec, *r.probe);
  if (r.reverse) {
    // The other direction, a document of its own inside this one.
    json back = result_doc(*r.reverse, summarize(*r.reverse), false);
    back.erase("schema_version");
    back.erase("tool");
    doc["reverse"] = std::move(back);
  }
  return doc;
}

// Whether pretty_json writes j on one line: a non-empty array whose
// elements are scalars or arrays of scalars.
bool flat_array(const json& j) {
  if (!j.is_array() || j.empty()) return false;
  for (const auto& e : j) {
    if (e.is_object()) return false;
    if (e.is_array())
      for (const auto& x : e)
        if (x.is_structured()) return false;
  }
  return true;
}

// An array on one line, ", " between elements; anything else as dump().
void inline_json(const json& j, std::string& out) {
  if (!j.is_array()) {
    out += j.dump();
    return;
  }
  out += '[';
  for (size_t i = 0; i < j.size(); ++i) {
    if (i) out += ", ";
    inline_json(j[i], out);
  }
  out += ']';
}

void pretty(const json& j, size_t indent, std::string& out) {
  if (flat_array(j)) {
    inline_json(j, out);
    return;
  }
  if (!j.is_structured() || j.empty()) {
    out += j.dump();  // scalars, {} and []
    return;
  }
  out += j.is_object() ? "{\n" : "[\n";
  size_t i = 0;
  for (auto it = j.begin(); it != j.end(); ++it) {
    out.append(indent + 2, ' ');
    if (j.is_object()) {
      out += json(it.key()).dump();
      out += ": ";
    }
    pretty(it.value(), indent + 2, out);
    out += ++i < j.size() ? ",\n" : "\n";
  }
  out.append(indent, ' ');
  out += j.is_object() ? '}' : ']';
}

// Writes n elements as pretty_json would inside a document, the array's own
// line indented by `indent` spaces; compact, as dump() would.
template <typename Element>
void write_array(std::ostream& out, size_t n, size_t indent, bool compact, Element&& element) {
  if (n == 0) {
    out << "[]";
    return;
  }
  if (compact) {
    out << '[';
    for (size_t i = 0; i < n; ++i) out << (i ? "," : "") << element(i).dump();
    out << ']';
    return;
  }
  const std::string pad(indent + 2, ' ');
  out << "[\n";
  for (size_t i = 0; i < n; ++i) {
    const std::string text = pretty_json(element(i));
    out << pad;
    size_t from = 0;
    for (size_t nl = text.find('\n'); nl != std::string::npos; nl = text.find('\n', from)) {
      out.write(text.data() + from, static_cast<std::streamsize>(nl + 1 - from));
      out << pad;  // lines break only between tokens: strings escape theirs
      from = nl + 1;
    }
    out.write(text.data() + from, static_cast<std::streamsize>(text.size() - from));
    out << (i + 1 < n ? ",\n" : "\n");
  }
  out << std::string(indent, ' ') << ']';
}

}  // namespace

json result_json(const results::TestResult& r) { return result_doc(r, summarize(r), false); }

std::string pretty_json(const json& j) {
  std::string out;
  pretty(j, 0, out);
  return out;
}

namespace {

void write_doc(std::ostream& out, const results::TestResult& r, const measure::ConfidenceLoop* loop,
               bool compact) {
  const Summary sum = summarize(r);
  json doc = result_doc(r, sum, true);
  if (loop) doc["confidence"] = confidence_json(*loop);
  const std::string text = compact ? doc.dump() : pretty_json(doc);
  struct Splice {
    std::string mark;  // as dump() writes it
    size_t n;
    std::function<json(size_t)> element;
  };
  std::vector<Splice> splices;
  splices.push_back({json(kLocalMark).dump(), r.local_side.flows.size(),
                     [&](size_t i) { return flow_json(r.local_side.flows[i]); }});
  if (r.have_remote)
    splices.push_back({json(kRemoteMark).dump(), r.remote_side.flows.size(),
                       [&](size_t i) { return flow_json(r.remote_side.flows[i]); }});
  splices.push_back({json(kStreamsMark).dump(), sum.streams.size(),
                     [&](size_t i) { return indexed_stream_json(sum.streams[i], sum); }});
  // The marks appear in key order: "local" < "remote" < "streams".
  size_t pos = 0;
  for (const auto& s : splices) {
    const size_t at = text.find(s.mark, pos);
    if (at == std::string::npos) continue;  // cannot happen: the document holds every mark
    size_t indent = 0;
    if (!compact) {
      const size_t line = text.rfind('\n', at) + 1;
      indent = text.find_first_not_of(' ', line) - line;
    }
    out.write(text.data() + pos, static_cast<std::streamsize>(at - pos));
    write_array(out, s.n, indent, compact, s.element);
    pos = at + s.mark.size();
  }
  out.write(text.data() + pos, static_cast<std::streamsize>(text.size() - pos));
}

}  // namespace

void write_result_json(std::ostream& out, const results::TestResult& r,
                       const measure::ConfidenceLoop* loop) {
  write_doc(out, r, loop, false);
}

void write_result_json_line(std::ostream& out, const results::TestResult& r,
                            const measure::ConfidenceLoop* loop) {
  write_doc(out, r, loop, true);
}

json confidence_json(const measure::ConfidenceLoop& loop) {
  const auto& g = loop.goal();
  json metrics = json::object();
  for (size_t i = 0; i < loop.metrics().size(); ++i) {
    const measure::Interval iv = loop.interval(i);
    json values = json::array();
    for (double v : loop.values(i)) values.push_back(num(v));
    metrics[loop.metrics()[i].name] = {{"mean", num(iv.mean)},
                                       {"stddev", num(iv.stddev)},
                                       {"half_width", num(iv.half_width)},
                                       {"width_percent", num(iv.width_pct)},
                                       {"achieved", loop.achieved(i)},
                                       {"governs", loop.metrics()[i].governs},
                                       {"values", values}};
  }
  return {{"level_percent", g.level_pct},
          {"width_percent", num(g.width_pct)},
          {"min_iterations", g.min_iterations},
          {"max_iterations", g.max_iterations},
          {"iterations", loop.iterations()},
          {"achieved", loop.achieved()},
          {"metrics", metrics}};
}

json result_json(const results::TestResult& last, const measure::ConfidenceLoop& loop) {
  json j = result_json(last);
  j["confidence"] = confidence_json(loop);
  return j;
}

}  // namespace flowperf::report
