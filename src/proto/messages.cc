#include "proto/messages.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/json_number.h"
#include "spec/spec_json.h"

namespace flowperf::proto {
namespace {

using nlohmann::json;

template <class... Ts>
struct Overload : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
Overload(Ts...) -> Overload<Ts...>;

template <typename T>
T field(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end()) throw ProtocolError(std::string("message lacks field '") + key + "'");
  if constexpr (std::is_same_v<T, std::vector<uint16_t>>) {
    if (!it->is_array())
      throw ProtocolError(std::string("message field '") + key + "' is not a list");
    T out;
    for (const auto& e : *it) {
      auto v = core::checked_get<uint16_t>(e);
      if (!v) throw ProtocolError(std::string("message field '") + key + "' has a bad entry");
      out.push_back(*v);
    }
    return out;
  } else {
    auto v = core::checked_get<T>(*it);
    if (!v)
      throw ProtocolError(std::string("message field '") + key +
                          "' has the wrong type or is out of range");
    return *v;
  }
}

template <typename T>
T field_or(const json& j, const char* key, T fallback) {
  return j.contains(key) ? field<T>(j, key) : fallback;
}

// A member that is itself JSON, by reference: field<json> would copy it, and
// a results message's flows are most of the message.
const json& member(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end()) throw ProtocolError(std::string("message lacks field '") + key + "'");
  return *it;
}

}  // namespace

json tcp_info_to_json(const net::TcpInfo& t) {
  return {{"total_retrans", t.total_retrans},
          {"rtt_us", t.rtt_us},
          {"rttvar_us", t.rttvar_us},
          {"snd_cwnd", t.snd_cwnd},
          {"snd_mss", t.snd_mss},
          {"rcv_mss", t.rcv_mss},
          {"pmtu", t.pmtu},
          {"pacing_rate_bps", t.pacing_rate_bps},
          {"delivery_rate_bps", t.delivery_rate_bps},
          {"congestion_control", t.congestion_control}};
}

net::TcpInfo tcp_info_from_json(const json& j) {
  if (!j.is_object()) throw ProtocolError("tcp_info is not an object");
  net::TcpInfo t;
  t.total_retrans = field<uint32_t>(j, "total_retrans");
  t.rtt_us = field<uint32_t>(j, "rtt_us");
  t.rttvar_us = field<uint32_t>(j, "rttvar_us");
  t.snd_cwnd = field<uint32_t>(j, "snd_cwnd");
  t.snd_mss = field<uint32_t>(j, "snd_mss");
  t.rcv_mss = field<uint32_t>(j, "rcv_mss");
  t.pmtu = field<uint32_t>(j, "pmtu");
  t.pacing_rate_bps = field<uint64_t>(j, "pacing_rate_bps");
  t.delivery_rate_bps = field<uint64_t>(j, "delivery_rate_bps");
  t.congestion_control = field<std::string>(j, "congestion_control");
  return t;
}

json flow_to_json(const engine::FlowResult& f) {
  json j = {{"index", f.index},
            {"elapsed_s", f.elapsed_s},
            {"bytes_sent", f.bytes_sent},
            {"bytes_recv", f.bytes_recv},
            {"send_calls", f.send_calls},
            {"recv_calls", f.recv_calls},
            {"transactions", f.transactions},
            {"datagrams_sent", f.datagrams_sent},
            {"datagrams_recv", f.datagrams_recv},
            {"timeouts", f.timeouts},
            {"late", f.late},
            {"out_of_order", f.out_of_order},
            {"duplicates", f.duplicates},
            {"send_errors", f.send_errors},
            {"connects", f.connects},
            {"jitter_ns", f.jitter_ns},
            {"finished", f.finished},
            {"error", f.error}};
  if (f.latency) j["latency"] = histogram_to_json(*f.latency);
  if (f.tcp) j["tcp_info"] = tcp_info_to_json(*f.tcp);
  return j;
}

namespace {

engine::FlowResult flow_from_json(const json& j) {
  engine::FlowResult f;
  f.index = field<uint32_t>(j, "index");
  f.elapsed_s = field<double>(j, "elapsed_s");
  f.bytes_sent = field<uint64_t>(j, "bytes_sent");
  f.bytes_recv = field<uint64_t>(j, "bytes_recv");
  f.send_calls = field<uint64_t>(j, "send_calls");
  f.recv_calls = field<uint64_t>(j, "recv_calls");
  f.transactions = field<uint64_t>(j, "transactions");
  f.datagrams_sent = field<uint64_t>(j, "datagrams_sent");
  f.datagrams_recv = field<uint64_t>(j, "datagrams_recv");
  f.timeouts = field<uint64_t>(j, "timeouts");
  f.late = field<uint64_t>(j, "late");
  f.out_of_order = field<uint64_t>(j, "out_of_order");
  f.duplicates = field<uint64_t>(j, "duplicates");
  f.send_errors = field<uint64_t>(j, "send_errors");
  f.connects = field<uint64_t>(j, "connects");
  f.jitter_ns = field<double>(j, "jitter_ns");
  f.finished = field<bool>(j, "finished");
  f.error = field<std::string>(j, "error");
  if (j.contains("latency")) f.latency = histogram_from_json(j.at("latency"));
  if (j.contains("tcp_info")) f.tcp = tcp_info_from_json(j.at("tcp_info"));
  return f;
}

}  // namespace

json histogram_to_json(const measure::Histogram& h) {
  auto s = h.snapshot();
  json buckets = json::array();
  for (const auto& b : s.buckets) buckets.push_back({b.index, b.count});
  return {{"min", s.min},
          {"max", s.max},
          {"sum_lo", s.sum_lo},
          {"sum_hi", s.sum_hi},
          {"buckets", buckets}};
}

measure::Histogram histogram_from_json(const json& j) {
  if (!j.is_object()) throw ProtocolError("histogram is not an object");
  measure::Histogram::Snapshot s;
  s.min = field<uint64_t>(j, "min");
  s.max = field<uint64_t>(j, "max");
  s.sum_lo = field<uint64_t>(j, "sum_lo");
  s.sum_hi = field<uint64_t>(j, "sum_hi");
  const json& b = member(j, "buckets");
  if (!b.is_array()) throw ProtocolError("histogram buckets is not an array");
  for (const auto& e : b) {
    if (!e.is_array() || e.size() != 2)
      throw ProtocolError("histogram bucket is not a pair of counts");
    auto index = core::checked_get<uint32_t>(e[0]);
    auto count = core::checked_get<uint64_t>(e[1]);
    if (!index || !count) throw ProtocolError("histogram bucket is not a pair of counts");
    s.buckets.push_back({*index, *count});
  }
  try {
    return measure::Histogram::from_snapshot(s);
  } catch (const std::exception& e) {
    throw ProtocolError(std::string("bad histogram: ") + e.what());
  }
}

json cpu_to_json(const measure::CpuUsage& c) {
  return {{"util", c.util},
          {"user", c.user},
          {"system", c.system},
          {"iowait", c.iowait},
          {"irq", c.irq},
          {"softirq", c.softirq},
          {"peak_cpu", c.peak_cpu},
          {"peak_util", c.peak_util},
          {"num_cpus", c.num_cpus},
          {"process_user_s", c.process_user_s},
          {"process_system_s", c.process_system_s},
          {"elapsed_s", c.elapsed_s},
          {"method", c.method}};
}

measure::CpuUsage cpu_from_json(const json& j) {
  if (!j.is_object()) throw ProtocolError("cpu is not an object");
  measure::CpuUsage c;
  c.util = field<double>(j, "util");
  c.user = field<double>(j, "user");
  c.system = field<double>(j, "system");
  c.iowait = field<double>(j, "iowait");
  c.irq = field<double>(j, "irq");
  c.softirq = field<double>(j, "softirq");
  c.peak_cpu = field<int>(j, "peak_cpu");
  c.peak_util = field<double>(j, "peak_util");
  c.num_cpus = field<unsigned>(j, "num_cpus");
  c.process_user_s = field<double>(j, "process_user_s");
  c.process_system_s = field<double>(j, "process_system_s");
  c.elapsed_s = field<double>(j, "elapsed_s");
  c.method = field<std::string>(j, "method");
  return c;
}

json nic_to_json(const measure::NicUsage& n) {
  const auto& d = n.delta;
  return {{"name", n.name},
          {"elapsed_s", n.elapsed_s},
          {"rx_packets", d.rx_packets},
          {"tx_packets", d.tx_packets},
          {"rx_bytes", d.rx_bytes},
          {"tx_bytes", d.tx_bytes},
          {"rx_dropped", d.rx_dropped},
          {"tx_dropped", d.tx_dropped},
          {"rx_errors", d.rx_errors},
          {"tx_errors", d.tx_errors}};
}

measure::NicUsage nic_from_json(const json& j) {
  if (!j.is_object()) throw ProtocolError("nic is not an object");
  measure::NicUsage n;
  n.name = field<std::string>(j, "name");
  n.elapsed_s = field<double>(j, "elapsed_s");
  auto& d = n.delta;
  d.rx_packets = field<uint64_t>(j, "rx_packets");
  d.tx_packets = field<uint64_t>(j, "tx_packets");
  d.rx_bytes = field<uint64_t>(j, "rx_bytes");
  d.tx_bytes = field<uint64_t>(j, "tx_bytes");
  d.rx_dropped = field<uint64_t>(j, "rx_dropped");
  d.tx_dropped = field<uint64_t>(j, "tx_dropped");
  d.rx_errors = field<uint64_t>(j, "rx_errors");
  d.tx_errors = field<uint64_t>(j, "tx_errors");
  return n;
}

json interval_to_json(const engine::IntervalSample& iv) {
  json flows = json::array();
  for (const auto& f : iv.flows)
    flows.push_back({{"bytes_sent", f.bytes_sent},
                     {"bytes_recv", f.bytes_recv},
                     {"transactions", f.transactions},
                     {"datagrams_sent", f.datagrams_sent},
                     {"datagrams_recv", f.datagrams_recv},
                     {"lost", f.lost},
                     {"out_of_order", f.out_of_order},
                     {"jitter_ns", f.jitter_ns},
                     {"timeouts", f.timeouts},
                     {"retrans", f.retrans},
                     {"tcp", f.tcp ? tcp_info_to_json(*f.tcp) : json(nullptr)}});
  return {{"start_s", iv.start_s},
          {"end_s", iv.end_s},
          {"flows", flows},
          {"cpu", iv.cpu ? cpu_to_json(*iv.cpu) : json(nullptr)},
          {"nic", iv.nic ? nic_to_json(*iv.nic) : json(nullptr)}};
}

engine::IntervalSample interval_from_json(const json& j) {
  if (!j.is_object()) throw ProtocolError("an interval is not an object");
  engine::IntervalSample iv;
  iv.start_s = field<double>(j, "start_s");
  iv.end_s = field<double>(j, "end_s");
  const json& flows = member(j, "flows");
  if (!flows.is_array()) throw ProtocolError("an interval's flows is not an array");
  for (const auto& fj : flows) {
    if (!fj.is_object()) throw ProtocolError("an interval flow is not an object");
    engine::IntervalFlow f;
    f.bytes_sent = field<uint64_t>(fj, "bytes_sent");
    f.bytes_recv = field<uint64_t>(fj, "bytes_recv");
    f.transactions = field<uint64_t>(fj, "transactions");
    f.datagrams_sent = field_or<uint64_t>(fj, "datagrams_sent", 0);
    f.datagrams_recv = field_or<uint64_t>(fj, "datagrams_recv", 0);
    f.lost = field_or<int64_t>(fj, "lost", 0);
    f.out_of_order = field_or<uint64_t>(fj, "out_of_order", 0);
    f.jitter_ns = field_or<double>(fj, "jitter_ns", 0.0);
    f.timeouts = field_or<uint64_t>(fj, "timeouts", 0);
    f.retrans = field_or<uint64_t>(fj, "retrans", 0);
    if (auto it = fj.find("tcp"); it != fj.end() && !it->is_null()) f.tcp = tcp_info_from_json(*it);
    iv.flows.push_back(std::move(f));
  }
  if (auto it = j.find("cpu"); it != j.end() && !it->is_null()) iv.cpu = cpu_from_json(*it);
  if (auto it = j.find("nic"); it != j.end() && !it->is_null()) iv.nic = nic_from_json(*it);
  return iv;
}

json side_head_to_json(const engine::SideResult& s) {
  json intervals = json::array();
  for (const auto& iv : s.intervals) intervals.push_back(interval_to_json(iv));
  return {{"elapsed_s", s.elapsed_s},
          {"threads", s.threads},
          {"sndbuf", s.sndbuf},
          {"rcvbuf", s.rcvbuf},
          {"sndbuf_end", s.sndbuf_end},
          {"rcvbuf_end", s.rcvbuf_end},
          {"latency", histogram_to_json(s.latency)},
          {"cpu", s.cpu ? cpu_to_json(*s.cpu) : json(nullptr)},
          {"nic", s.nic ? nic_to_json(*s.nic) : json(nullptr)},
          {"intervals", intervals}};
}

namespace {

// The text side_to_json(s).dump() would give (keys in another order), without
// ever holding a DOM of all flows: each flow becomes a small DOM, is written
// out and dropped. With 10,000 flows the whole DOM was ~3 KB a flow.
void append_side(std::string& out, const engine::SideResult& s) {
  json head = side_head_to_json(s);
  head["flow_count"] = s.flows.size();  // lets decode() size its vector before the flows come
  out += head.dump();
  out.pop_back();  // the head's closing brace
  out += ",\"flows\":[";
  for (size_t i = 0; i < s.flows.size(); ++i) {
    if (i) out += ',';
    out += flow_to_json(s.flows[i]).dump();
  }
  out += "]}";
}

}  // namespace

json side_to_json(const engine::SideResult& s) {
  json j = side_head_to_json(s);
  json flows = json::array();
  for (const auto& f : s.flows) flows.push_back(flow_to_json(f));
  j["flows"] = std::move(flows);
  return j;
}

namespace {

// `streamed`: flows already taken out of the DOM while it was parsed (see
// decode()); any left in j["flows"] come after them.
engine::SideResult side_from_json(const json& j, std::vector<engine::FlowResult>* streamed) {
  if (!j.is_object()) throw ProtocolError("results are not an object");
  engine::SideResult s;
  if (streamed) s.flows = std::move(*streamed);
  s.elapsed_s = field<double>(j, "elapsed_s");
  s.threads = field<unsigned>(j, "threads");
  s.sndbuf = field<int>(j, "sndbuf");
  s.rcvbuf = field<int>(j, "rcvbuf");
  s.sndbuf_end = field_or<int>(j, "sndbuf_end", 0);
  s.rcvbuf_end = field_or<int>(j, "rcvbuf_end", 0);
  const json& flows = member(j, "flows");
  if (!flows.is_array()) throw ProtocolError("results flows is not an array");
  for (const auto& f : flows) {
    if (!f.is_object()) throw ProtocolError("a flow result is not an object");
    s.flows.push_back(flow_from_json(f));
  }
  s.latency = histogram_from_json(member(j, "latency"));
  if (auto it = j.find("cpu"); it != j.end() && !it->is_null()) s.cpu = cpu_from_json(*it);
  if (auto it = j.find("nic"); it != j.end() && !it->is_null()) s.nic = nic_from_json(*it);
  if (auto it = j.find("intervals"); it != j.end()) {
    if (!it->is_array()) throw ProtocolError("results intervals is not an array");
    for (const auto& iv : *it) s.intervals.push_back(interval_from_json(iv));
  }
  return s;
}

}  // namespace

engine::SideResult side_from_json(const json& j) { return side_from_json(j, nullptr); }

const char* message_name(const Message& m) {
  return std::visit(
      Overload{[](const Hello&) { return "hello"; }, [](const Welcome&) { return "welcome"; },
               [](const Setup&) { return "setup"; }, [](const SetupOk&) { return "setup_ok"; },
               [](const Start&) { return "start"; }, [](const Started&) { return "started"; },
               [](const Stop&) { return "stop"; }, [](const Quit&) { return "quit"; },
               [](const Results&) { return "results"; }, [](const ErrorMsg&) { return "error"; }},
      m);
}

std::string encode(const Message& m) {
  std::string out;
  encode_into(out, m);
  return out;
}

void encode_into(std::string& out, const Message& m) {
  if (const auto* r = std::get_if<Results>(&m)) {
    // Room for the usual ~500 bytes a flow up front: no doubling (which holds two copies at the
    // peak); pages reserved but never written cost no memory.
    out.reserve(out.size() + 4096 + 1024 * r->side.flows.size());
    out += "{\"type\":\"results\",\"side\":";
    append_side(out, r->side);
    out += '}';
    return;
  }
  json j = std::visit(
      Overload{
          [](const Hello& h) -> json {
            return {{"version", h.version}, {"software", h.software}};
          },
          [](const Welcome& w) -> json {
            return {{"version", w.version}, {"software", w.software},   {"hostname", w.hostname},
                    {"os", w.os},           {"cpu_model", w.cpu_model}, {"cores", w.cores},
                    {"cpu_mhz", w.cpu_mhz}};
          },
          [](const Setup& s) -> json {
            return {{"spec", spec::to_json(s.spec)}};
          },
          [](const SetupOk& s) -> json {
            return {{"tcp_port", s.tcp_port}, {"udp_ports", s.udp_ports}, {"cookie", s.cookie},
                    {"threads", s.threads},   {"sndbuf", s.sndbuf},       {"rcvbuf", s.rcvbuf}};
          },
          [](const Start&) -> json { return json::object(); },
          [](const Started&) -> json { return json::object(); },
          [](const Stop& s) -> json {
            json o = s.abort ? json{{"abort", true}, {"at_s", s.at_s}} : json::object();
            if (!s.sent.empty()) o["sent"] = s.sent;
            return o;
          },
          [](const Quit&) -> json { return json::object(); },
          [](const Results& r) -> json {
            return {{"side", side_to_json(r.side)}};
          },
          [](const ErrorMsg& e) -> json {
            return {{"code", e.code}, {"message", e.message}};
          }},
      m);
  j["type"] = message_name(m);
  out += j.dump();
}

Message decode(std::string_view body) {
  // The flows of a results message (side.flows[i], depth 3) become
  // FlowResults as soon as each is parsed and leave the DOM at once, so the
  // DOM never holds them all (it took ~5 KB a flow, and there may be 10,000s).
  std::vector<engine::FlowResult> flows;
  std::string key1, key2;  // the keys last seen at depths 1 and 2
  auto take_flows = [&](int depth, json::parse_event_t event, json& parsed) -> bool {
    if (event == json::parse_event_t::key) {
      if (depth == 1) key1 = parsed.get<std::string>();
      if (depth == 2) key2 = parsed.get<std::string>();
    } else if (event == json::parse_event_t::value && depth == 2 && key1 == "side" &&
               key2 == "flow_count" && flows.empty()) {
      // A hint, written before the flows: growing by doubling would hold two copies at the peak.
      // Never more than the body could hold (a flow's text is far over 64 bytes).
      if (auto n = core::checked_get<size_t>(parsed)) flows.reserve(std::min(*n, body.size() / 64));
    } else if (event == json::parse_event_t::object_end && depth == 3 && key1 == "side" &&
               key2 == "flows") {
      flows.push_back(flow_from_json(parsed));
      return false;
    }
    return true;
  };
  json j = json::parse(body, take_flows, /*allow_exceptions=*/false);
  if (j.is_discarded()) throw ProtocolError("control message is not valid JSON");
  if (!j.is_object()) throw ProtocolError("control message is not a JSON object");
  auto type = field<std::string>(j, "type");
  if (type == "hello")
    return Hello{field<uint32_t>(j, "version"), field<std::string>(j, "software")};
  if (type == "welcome")
    return Welcome{field<uint32_t>(j, "version"),
                   field<std::string>(j, "software"),
                   field_or<std::string>(j, "hostname", ""),
                   field_or<std::string>(j, "os", ""),
                   field_or<std::string>(j, "cpu_model", ""),
                   field_or<uint32_t>(j, "cores", 0),
                   field_or<double>(j, "cpu_mhz", 0)};
  if (type == "setup") {
    try {
      return Setup{spec::spec_from_json(member(j, "spec"))};
    } catch (const std::invalid_argument& e) {
      throw ProtocolError(e.what());
    }
  }
  if (type == "setup_ok")
    return SetupOk{field<uint16_t>(j, "tcp_port"), field<std::vector<uint16_t>>(j, "udp_ports"),
                   field<uint64_t>(j, "cookie"),   field<uint32_t>(j, "threads"),
                   field<int32_t>(j, "sndbuf"),    field<int32_t>(j, "rcvbuf")};
  if (type == "start") return Start{};
  if (type == "started") return Started{};
  if (type == "stop")
    return Stop{field_or<bool>(j, "abort", false), field_or<double>(j, "at_s", 0.0),
                field_or<std::vector<uint64_t>>(j, "sent", {})};
  if (type == "quit") return Quit{};
  if (type == "results") return Results{side_from_json(member(j, "side"), &flows)};
  if (type == "error")
    return ErrorMsg{field<std::string>(j, "code"), field<std::string>(j, "message")};
  throw ProtocolError("unknown control message type '" + type + "'");
}

}  // namespace flowperf::proto
