// iperf3 3.12's -J document and cJSON 1.7.15's printer (iperf3_report.h).
// Key order and the values' quirks follow 3.12's recorded output
// (../shared/protocols/iperf3-wire.md §14, and runs of Debian's 3.12 as
// client and server, TCP, UDP, -R, --bidir, interrupted).
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

#include "report/iperf3_internal.h"
#include "report/iperf3_report.h"

namespace flowperf::report::iperf3 {
namespace {

using Json = nlohmann::ordered_json;
using detail::rate_bits;

// ---- cJSON's printer ----

// cJSON keeps every number as a double; iperf3's copy of it also keeps a
// saturated int64 and prints the number as that integer (through PRIu64 in
// 3.12, so negatives wrap) when the two agree.
std::string number(double d) {
  if (std::isnan(d) || std::isinf(d)) return "null";
  int64_t i;
  if (d >= static_cast<double>(LLONG_MAX))
    i = LLONG_MAX;
  else if (d <= static_cast<double>(LLONG_MIN))
    i = LLONG_MIN;
  else
    i = static_cast<int64_t>(d);
  if (d == static_cast<double>(i)) return std::to_string(static_cast<uint64_t>(i));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%1.15g", d);
  double back = 0;
  double larger = std::fabs(d);
  bool same = std::sscanf(buf, "%lg", &back) == 1 &&
              std::fabs(back - d) <= std::fmax(std::fabs(back), larger) * DBL_EPSILON;
  if (!same) std::snprintf(buf, sizeof buf, "%1.17g", d);
  return buf;
}

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 32)
          out += detail::sfmt("\\u%04x", static_cast<unsigned>(c));
        else
          out += ch;
    }
  }
  return out + "\"";
}

// `depth` is cJSON's: the nesting of the value being printed.
void print(const Json& v, int depth, std::string& out) {
  switch (v.type()) {
    case Json::value_t::object: {
      out += "{\n";
      size_t n = 0;
      for (auto it = v.begin(); it != v.end(); ++it) {
        out.append(static_cast<size_t>(depth + 1), '\t');
        out += quoted(it.key()) + ":\t";
        print(it.value(), depth + 1, out);
        if (++n < v.size()) out += ',';
        out += '\n';
      }
      out.append(static_cast<size_t>(depth), '\t');
      out += '}';
      break;
    }
    case Json::value_t::array: {
      out += '[';
      size_t n = 0;
      for (const Json& e : v) {
        print(e, depth + 1, out);
        if (++n < v.size()) out += ", ";
      }
      out += ']';
      break;
    }
    case Json::value_t::string:
      out += quoted(v.get_ref<const std::string&>());
      break;
    case Json::value_t::boolean:
      out += v.get<bool>() ? "true" : "false";
      break;
    case Json::value_t::number_integer:
      out += number(static_cast<double>(v.get<int64_t>()));
      break;
    case Json::value_t::number_unsigned:
      out += number(static_cast<double>(v.get<uint64_t>()));
      break;
    case Json::value_t::number_float:
      out += number(v.get<double>());
      break;
    default:  // null, discarded, binary
      out += "null";
      break;
  }
}

// ---- the document ----

// 3.12 prints some keys of "start" twice or more (cJSON allows it), which an
// ordered_json object cannot hold: such a key gets a marker and its number,
// and the marker is taken out of the printed text (unmark()). The marker's
// bytes print as \u001f\u001e, which no key or value of ours contains.
constexpr const char* kMarker = "\x1f\x1e";
constexpr const char* kPrintedMarker = "\\u001f\\u001e";

std::string repeated(const std::string& key, size_t i) {
  return i == 0 ? key : key + kMarker + std::to_string(i);
}

std::string unmark(std::string text) {
  const std::string m = kPrintedMarker;
  for (size_t at = text.find(m); at != std::string::npos; at = text.find(m, at)) {
    size_t end = at + m.size();
    while (end < text.size() && text[end] >= '0' && text[end] <= '9') ++end;
    text.erase(at, end - at);
  }
  return text;
}

Json connected(const std::vector<Connected>& list) {
  Json a = Json::array();
  for (const Connected& c : list) {
    a.push_back({{"socket", c.socket},
                 {"local_host", c.local_host},
                 {"local_port", c.local_port},
                 {"remote_host", c.remote_host},
                 {"remote_port", c.remote_port}});
  }
  return a;
}

Json start_object(const StartInfo& s) {
  bool client = s.role == Role::kClient;
  Json o = Json::object();
  o["connected"] = connected(s.connected);
  o["version"] = s.version;
  o["system_info"] = s.system_info;
  Json timestamp = {{"time", s.time}, {"timesecs", s.timesecs}};
  Json peer = {{"host", s.peer_host}, {"port", s.peer_port}};
  // A 3.12 client adds the socket buffers once per data connection, so
  // they repeat (recorded with -P 3, -u -P 2, -R -P 2, --bidir); a TCP
  // server adds them once (recorded with -P 2).
  auto buffers = [&] {
    size_t times = client && s.connected.size() > 1 ? s.connected.size() : 1;
    for (size_t i = 0; i < times; ++i) {
      o[repeated("sock_bufsize", i)] = s.sock_bufsize;
      o[repeated("sndbuf_actual", i)] = s.sndbuf_actual;
      o[repeated("rcvbuf_actual", i)] = s.rcvbuf_actual;
    }
  };
  if (client) {
    o["timestamp"] = timestamp;
    o["connecting_to"] = peer;
    o["cookie"] = s.cookie;
    if (!s.udp) o["tcp_mss_default"] = s.tcp_mss_default;
    o["target_bitrate"] = s.target_bitrate;
    buffers();
  } else {
    // A 3.12 server prints target_bitrate with the connection's details,
    // and when the client asked for a rate a first time right after
    // system_info (recorded TCP and UDP); its socket buffers come before the
    // timestamp for TCP, after the cookie for UDP.
    if (s.target_bitrate != 0) o[repeated("target_bitrate", 1)] = s.target_bitrate;
    if (!s.udp) buffers();
    o["timestamp"] = timestamp;
    o["accepted_connection"] = peer;
    o["cookie"] = s.cookie;
    if (!s.udp) o["tcp_mss_default"] = s.tcp_mss_default;
    o["target_bitrate"] = s.target_bitrate;
    if (s.udp) buffers();
  }
  o["test_start"] = {{"protocol", s.udp ? "UDP" : "TCP"},
                     {"num_streams", s.num_streams},
                     {"blksize", s.blksize},
                     {"omit", s.omit},
                     {"duration", s.duration},
                     {"bytes", s.bytes},
                     {"blocks", s.blocks},
                     {"reverse", s.reverse ? 1 : 0},
                     {"tos", s.tos},
                     {"target_bitrate", s.target_bitrate}};
  return o;
}

Json interval_stream(const StartInfo& start, const StreamSample& s) {
  double seconds = detail::interval_seconds(s);
  Json o = {
      {"socket", s.socket}, {"start", s.start},
      {"end", s.end},       {"seconds", seconds},
      {"bytes", s.bytes},   {"bits_per_second", rate_bits(static_cast<double>(s.bytes), seconds)}};
  if (!start.udp && s.sender) {
    o["retransmits"] = s.retransmits;
    o["snd_cwnd"] = s.snd_cwnd;
    o["snd_wnd"] = s.snd_wnd;
    o["rtt"] = s.rtt_us;
    o["rttvar"] = s.rttvar_us;
    o["pmtu"] = s.pmtu;
  } else if (start.udp && s.sender) {
    o["packets"] = s.packets;
  } else if (start.udp) {
    uint64_t total = detail::interval_total(s);
    o["jitter_ms"] = s.jitter_ms;
    o["lost_packets"] = s.lost;
    o["packets"] = total;
    o["lost_percent"] = detail::percent(s.lost, total);
  }
  o["omitted"] = s.omitted;
  o["sender"] = s.sender;
  return o;
}

// An interval's sum over one group; the times are the test's first
// stream's, as 3.12 takes them.
Json interval_sum(const StartInfo& start, const detail::Group<StreamSample>& g,
                  const StreamSample& first) {
  uint64_t bytes = 0, packets = 0;
  int64_t retransmits = 0, lost = 0;
  double jitter = 0;
  for (const StreamSample* s : g.items) {
    bytes += s->bytes;
    retransmits += s->retransmits;
    packets += s->sender ? s->packets : detail::interval_total(*s);
    lost += s->lost;
    jitter += s->jitter_ms;
  }
  if (!g.items.empty()) jitter /= static_cast<double>(g.items.size());
  double seconds = detail::interval_seconds(first);
  Json o = {{"start", first.start},
            {"end", first.end},
            {"seconds", seconds},
            {"bytes", bytes},
            {"bits_per_second", rate_bits(static_cast<double>(bytes), seconds)}};
  if (!start.udp && g.sender) {
    o["retransmits"] = retransmits;
  } else if (start.udp && g.sender) {
    o["packets"] = packets;
  } else if (start.udp) {
    o["jitter_ms"] = jitter;
    o["lost_packets"] = lost;
    o["packets"] = packets;
    o["lost_percent"] = detail::percent(lost, packets);
  }
  o["omitted"] = first.omitted;
  o["sender"] = g.sender;
  return o;
}

Json intervals(const Report& r) {
  Json a = Json::array();
  for (const Interval& in : r.intervals) {
    Json o = Json::object();
    Json streams = Json::array();
    for (const StreamSample& s : in.streams) streams.push_back(interval_stream(r.start, s));
    o["streams"] = streams;
    if (!in.streams.empty()) {
      auto gs = detail::groups(r.start, in.streams);
      o["sum"] = interval_sum(r.start, gs[0], in.streams.front());
      if (gs.size() > 1) o["sum_bidir_reverse"] = interval_sum(r.start, gs[1], in.streams.front());
    }
    a.push_back(o);
  }
  return a;
}

Json tcp_end_stream(const StartInfo& start, const StreamEnd& s) {
  Totals rcv = detail::received(s);
  const Totals& snd = s.sent;
  Json sender = {{"socket", s.socket},
                 {"start", 0},
                 {"end", snd.seconds},
                 {"seconds", snd.seconds},
                 {"bytes", snd.bytes},
                 {"bits_per_second", rate_bits(static_cast<double>(snd.bytes), snd.seconds)}};
  if (detail::shows_retransmits(start, s)) {
    sender["retransmits"] = snd.retransmits;
    sender["max_snd_cwnd"] = snd.max_snd_cwnd;
    sender["max_snd_wnd"] = snd.max_snd_wnd;
    sender["max_rtt"] = snd.max_rtt_us;
    sender["min_rtt"] = snd.min_rtt_us;
    sender["mean_rtt"] = snd.mean_rtt_us;
  }
  sender["sender"] = s.sender;
  // 3.12's receiver object: the receiver's end time, but the sender's
  // seconds (recorded: "end": 2.000455, "seconds": 2.000284).
  Json receiver = {{"socket", s.socket},
                   {"start", 0},
                   {"end", rcv.seconds},
                   {"seconds", snd.seconds},
                   {"bytes", rcv.bytes},
                   {"bits_per_second", rate_bits(static_cast<double>(rcv.bytes), rcv.seconds)},
                   {"sender", s.sender}};
  return {{"sender", sender}, {"receiver", receiver}};
}

// UDP packets as 3.12 counts them for a stream's summary: this side's own
// count (sent, or the highest sequence received), else the peer's.
uint64_t udp_packets(const StreamEnd& s, const Totals& rcv) {
  uint64_t own = s.sender ? s.sent.packets : rcv.packets;
  uint64_t peer = s.sender ? rcv.packets : s.sent.packets;
  return own ? own : peer;
}

Json udp_end_stream(const StreamEnd& s) {
  Totals rcv = detail::received(s);
  const Totals& snd = s.sent;
  uint64_t packets = udp_packets(s, rcv);
  Json udp = {{"socket", s.socket},
              {"start", 0},
              {"end", snd.seconds},
              {"seconds", snd.seconds},
              {"bytes", snd.bytes},
              {"bits_per_second", rate_bits(static_cast<double>(snd.bytes), snd.seconds)},
              {"jitter_ms", rcv.jitter_ms},
              {"lost_packets", rcv.lost},
              {"packets", packets},
              {"lost_percent", detail::percent(rcv.lost, packets)},
              {"out_of_order", rcv.out_of_order},
              {"sender", s.sender}};
  return {{"udp", udp}};
}

struct Sums {
  uint64_t sent_bytes = 0, received_bytes = 0;
  uint64_t sent_packets = 0, received_packets = 0, packets = 0;
  int64_t retransmits = 0, lost = 0;
  double jitter = 0;
  double sent_seconds = 0, received_seconds = 0;  // the group's last stream's, as 3.12
  bool retr = false;
};

Sums sums(const StartInfo& start, const detail::Group<StreamEnd>& g) {
  Sums t;
  for (const StreamEnd* s : g.items) {
    Totals rcv = detail::received(*s);
    t.sent_bytes += s->sent.bytes;
    t.received_bytes += rcv.bytes;
    t.sent_packets += s->sent.packets;
    t.received_packets += rcv.packets;
    t.packets += udp_packets(*s, rcv);
    t.lost += rcv.lost;
    t.jitter += rcv.jitter_ms;
    if (detail::shows_retransmits(start, *s)) {
      t.retransmits += s->sent.retransmits;
      t.retr = true;
    }
    t.sent_seconds = s->sent.seconds;
    t.received_seconds = rcv.seconds;
  }
  if (!g.items.empty()) t.jitter /= static_cast<double>(g.items.size());
  return t;
}

Json times(double seconds, uint64_t bytes, double rate_seconds) {
  return {{"start", 0},
          {"end", seconds},
          {"seconds", seconds},
          {"bytes", bytes},
          {"bits_per_second", rate_bits(static_cast<double>(bytes), rate_seconds)}};
}

void udp_fields(Json& o, double jitter, int64_t lost, uint64_t packets, bool sender) {
  o["jitter_ms"] = jitter;
  o["lost_packets"] = lost;
  o["packets"] = packets;
  o["lost_percent"] = detail::percent(lost, packets);
  o["sender"] = sender;
}

Json end_object(const Report& r) {
  const StartInfo& start = r.start;
  Json o = Json::object();
  Json streams = Json::array();
  for (const StreamEnd& s : r.end.streams)
    streams.push_back(start.udp ? udp_end_stream(s) : tcp_end_stream(start, s));
  o["streams"] = streams;

  auto gs = detail::groups(start, r.end.streams);
  for (size_t i = 0; i < gs.size(); ++i) {
    const std::string suffix = i == 0 ? "" : "_bidir_reverse";
    Sums t = sums(start, gs[i]);
    if (!start.udp) {
      Json sent = times(t.sent_seconds, t.sent_bytes, t.sent_seconds);
      if (t.retr) sent["retransmits"] = t.retransmits;
      sent["sender"] = gs[i].sender;
      Json received = times(t.received_seconds, t.received_bytes, t.received_seconds);
      received["sender"] = gs[i].sender;
      o["sum_sent" + suffix] = sent;
      o["sum_received" + suffix] = received;
    } else {
      // 3.12's UDP "sum": the receiver's time, the sender's bytes and rate;
      // "sum_sent" and "sum_received" say sender true and false whichever
      // side prints them (recorded on client and server).
      Json sum = times(t.received_seconds, t.sent_bytes, t.sent_seconds);
      udp_fields(sum, t.jitter, t.lost, t.packets, gs[i].sender);
      Json sent = times(t.sent_seconds, t.sent_bytes, t.sent_seconds);
      udp_fields(sent, 0, 0, t.sent_packets, true);
      sent["lost_percent"] = 0;
      Json received = times(t.received_seconds, t.received_bytes, t.received_seconds);
      udp_fields(received, t.jitter, t.lost, t.received_packets, false);
      o["sum" + suffix] = sum;
      o["sum_sent" + suffix] = sent;
      o["sum_received" + suffix] = received;
    }
  }
  o["cpu_utilization_percent"] = {
      {"host_total", r.end.host.total},   {"host_user", r.end.host.user},
      {"host_system", r.end.host.system}, {"remote_total", r.end.remote.total},
      {"remote_user", r.end.remote.user}, {"remote_system", r.end.remote.system}};
  if (!start.udp) {
    // Each only when known: a server has only its own side's algorithm.
    if (!r.end.sender_tcp_congestion.empty())
      o["sender_tcp_congestion"] = r.end.sender_tcp_congestion;
    if (!r.end.receiver_tcp_congestion.empty())
      o["receiver_tcp_congestion"] = r.end.receiver_tcp_congestion;
  }
  return o;
}

// The top level's tail, in the order 3.12 adds it: "error" when the test
// failed (added as it fails), then at the end title, extra_data and the
// server's output (recorded: start, intervals, end, error, title,
// extra_data).
void tail(Json& top, const StartInfo& start, const std::string& error) {
  if (!error.empty()) top["error"] = error;
  if (!start.title.empty()) top["title"] = start.title;
  if (!start.extra_data.empty()) top["extra_data"] = start.extra_data;
}

}  // namespace

std::string cjson_print(const nlohmann::ordered_json& value) {
  std::string out;
  print(value, 0, out);
  return out;
}

// json() and json_error() return what iperf3 writes: the document and a
// newline.
std::string json(const Report& report) {
  Json top = Json::object();
  top["start"] = start_object(report.start);
  top["intervals"] = intervals(report);
  top["end"] = end_object(report);
  tail(top, report.start, report.error);
  if (report.server_output_json) top["server_output_json"] = *report.server_output_json;
  if (report.server_output_text) top["server_output_text"] = *report.server_output_text;
  return unmark(cjson_print(top)) + "\n";
}

std::string json_error(const StartInfo& start, const std::string& message) {
  Json top = Json::object();
  top["start"] = {{"connected", connected(start.connected)},
                  {"version", start.version},
                  {"system_info", start.system_info}};
  top["intervals"] = Json::array();
  top["end"] = Json::object();
  tail(top, start, message);
  return cjson_print(top) + "\n";
}

}  // namespace flowperf::report::iperf3
