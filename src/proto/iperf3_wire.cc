// iperf3's messages: the cookie, the parameter and results JSON, framing.
// Written from the facts in ../shared/protocols/iperf3-wire.md.
#include "proto/iperf3_wire.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <type_traits>

#include "core/json_number.h"
#include "proto/messages.h"

namespace flowperf::proto::iperf3 {
namespace {

constexpr char kAlphabet[] = "abcdefghijklmnopqrstuvwxyz234567";

bool in_alphabet(uint8_t c) { return (c >= 'a' && c <= 'z') || (c >= '2' && c <= '7'); }

using ordered = nlohmann::ordered_json;
using json = nlohmann::json;

// 3.12 reads a number the way its JSON library does: a string "2" is taken
// as 2 (no type checks before 3.18). A value that does not fit the field
// (negative where none can be, past its range, not a number) is refused.
template <typename T>
T number(const json& j, const char* key, T fallback) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  auto refuse = [key]() -> T {
    throw ProtocolError(std::string("parameter '") + key + "' is out of range or not a number");
  };
  auto from_double = [&](double v) -> T {
    // Both bounds as doubles: a value at or past them does not fit T.
    if (!(v >= static_cast<double>(std::numeric_limits<T>::lowest())) ||
        !(v < static_cast<double>(std::numeric_limits<T>::max())))
      return refuse();
    return static_cast<T>(v);
  };
  if (it->is_number_unsigned()) {
    const uint64_t v = it->get<uint64_t>();
    // Every 64-bit integer is within a double's range (comparing them with
    // a double's maximum cast to an integer would be undefined).
    if constexpr (std::is_floating_point_v<T>) return static_cast<T>(v);
    if (v > static_cast<uint64_t>(std::numeric_limits<T>::max())) return refuse();
    return static_cast<T>(v);
  }
  if (it->is_number_integer()) {
    const int64_t v = it->get<int64_t>();
    if constexpr (std::is_floating_point_v<T>) {
      return static_cast<T>(v);
    } else if constexpr (std::is_unsigned_v<T>) {
      if (v < 0) return refuse();
    } else {
      if (v < static_cast<int64_t>(std::numeric_limits<T>::lowest()) ||
          v > static_cast<int64_t>(std::numeric_limits<T>::max()))
        return refuse();
    }
    return static_cast<T>(v);
  }
  if (it->is_number_float()) return from_double(it->get<double>());
  if (it->is_boolean()) return static_cast<T>(it->get<bool>() ? 1 : 0);
  if (it->is_string()) {
    const std::string& s = it->get_ref<const std::string&>();
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(s.c_str(), &end);
    if (end != s.c_str() && *end == '\0' && errno == 0) return from_double(v);
  }
  return refuse();
}

// A signed count that 3.12 prints as unsigned when it is -1.
int64_t signed_count(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return 0;
  if (it->is_number_unsigned()) return static_cast<int64_t>(it->get<uint64_t>());  // 2^64-1 → -1
  if (it->is_number_integer()) return it->get<int64_t>();
  if (it->is_number_float()) {
    const double v = it->get<double>();
    if (v >= -9.2e18 && v <= 9.2e18) return static_cast<int64_t>(v);
  }
  throw ProtocolError(std::string("results key '") + key + "' is out of range or not a number");
}

std::string text(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return {};
  return it->get<std::string>();
}

bool present(const json& j, const char* key) { return j.contains(key); }

// A double as cJSON prints it: a whole number without ".0".
ordered real(double v) {
  if (v > -1e15 && v < 1e15 && v == static_cast<double>(static_cast<int64_t>(v)))
    return static_cast<int64_t>(v);
  return v;
}

json parse(std::string_view body, const char* what) {
  // Nesting is refused as it is met (core::kMaxJsonDepth): no DOM is built
  // below the limit.
  auto shallow = [what](int depth, json::parse_event_t event, json&) {
    if ((event == json::parse_event_t::object_start || event == json::parse_event_t::array_start) &&
        depth >= core::kMaxJsonDepth)
      throw ProtocolError(std::string("the ") + what + " are nested deeper than " +
                          std::to_string(core::kMaxJsonDepth) + " levels");
    return true;
  };
  json j = json::parse(body.begin(), body.end(), shallow, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object())
    throw ProtocolError(std::string("the ") + what + " are not a JSON object");
  return j;
}

}  // namespace

std::string make_cookie() {
  uint8_t raw[kCookieBytes - 1];
  size_t got = 0;
  int fd = ::open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    while (got < sizeof raw) {
      ssize_t n = ::read(fd, raw + got, sizeof raw - got);
      if (n <= 0) break;
      got += static_cast<size_t>(n);
    }
    ::close(fd);
  }
  if (got < sizeof raw) {
    std::random_device rd;
    for (auto& b : raw) b = static_cast<uint8_t>(rd());
  }
  std::string cookie;
  cookie.reserve(kCookieBytes);
  for (uint8_t b : raw) cookie.push_back(kAlphabet[b % 32]);
  cookie.push_back('\0');
  return cookie;
}

CookieMatch match_cookie(std::span<const uint8_t> first) {
  const size_t n = std::min(first.size(), kCookieBytes);
  for (size_t i = 0; i < n; ++i) {
    if (i == kCookieBytes - 1) return first[i] == 0 ? CookieMatch::kYes : CookieMatch::kNo;
    if (!in_alphabet(first[i])) return CookieMatch::kNo;
  }
  return CookieMatch::kNeedMore;
}

std::string encode_params(const Params& p) {
  ordered j;
  j[p.udp ? "udp" : "tcp"] = true;
  j["omit"] = p.omit;
  if (p.server_affinity) j["server_affinity"] = *p.server_affinity;
  j["time"] = p.time;
  j["num"] = p.num;
  j["blockcount"] = p.blockcount;
  if (p.mss) j["MSS"] = p.mss;
  if (p.nodelay) j["nodelay"] = true;
  j["parallel"] = p.parallel;
  if (p.reverse) j["reverse"] = true;
  if (p.bidirectional) j["bidirectional"] = true;
  if (p.window) j["window"] = p.window;
  j["len"] = p.len;
  if (p.bandwidth) j["bandwidth"] = p.bandwidth;
  if (p.fqrate) j["fqrate"] = p.fqrate;
  j["pacing_timer"] = p.pacing_timer;
  if (p.burst) j["burst"] = p.burst;
  if (p.tos) j["TOS"] = *p.tos;
  if (p.flowlabel) j["flowlabel"] = p.flowlabel;
  if (!p.title.empty()) j["title"] = p.title;
  if (!p.extra_data.empty()) j["extra_data"] = p.extra_data;
  if (!p.congestion.empty()) j["congestion"] = p.congestion;
  if (p.get_server_output) j["get_server_output"] = 1;
  if (p.udp_counters_64bit) j["udp_counters_64bit"] = 1;
  if (p.repeating_payload) j["repeating_payload"] = 1;
  if (p.zerocopy) j["zerocopy"] = 1;
  if (p.dont_fragment) j["dont_fragment"] = 1;
  if (!p.authtoken.empty()) j["authtoken"] = p.authtoken;
  j["client_version"] = p.client_version;
  return j.dump();
}

Params decode_params(std::string_view body) {
  const json j = parse(body, "parameters");
  Params p;
  if (present(j, "sctp")) throw ProtocolError("SCTP tests are not supported");
  p.udp = present(j, "udp");
  if (!p.udp && !present(j, "tcp")) throw ProtocolError("the parameters name no protocol");
  p.omit = number<int>(j, "omit", 0);
  if (present(j, "server_affinity")) p.server_affinity = number<int>(j, "server_affinity", -1);
  p.time = number<int>(j, "time", 0);
  p.num = number<uint64_t>(j, "num", 0);
  p.blockcount = number<uint64_t>(j, "blockcount", 0);
  p.mss = number<int>(j, "MSS", 0);
  p.nodelay = present(j, "nodelay");
  p.parallel = number<int>(j, "parallel", 1);
  p.reverse = present(j, "reverse");
  p.bidirectional = present(j, "bidirectional");
  p.window = number<uint32_t>(j, "window", 0);
  p.len = number<uint32_t>(j, "len", 0);
  p.bandwidth = number<uint64_t>(j, "bandwidth", 0);
  p.fqrate = number<uint64_t>(j, "fqrate", 0);
  p.pacing_timer = number<uint32_t>(j, "pacing_timer", 1000);
  p.burst = number<uint32_t>(j, "burst", 0);
  if (present(j, "TOS")) p.tos = number<int>(j, "TOS", 0);
  p.flowlabel = number<int>(j, "flowlabel", 0);
  p.title = text(j, "title");
  p.extra_data = text(j, "extra_data");
  p.congestion = text(j, "congestion");
  p.get_server_output = present(j, "get_server_output");
  p.udp_counters_64bit = present(j, "udp_counters_64bit");
  p.repeating_payload = present(j, "repeating_payload");
  p.zerocopy = present(j, "zerocopy");
  p.dont_fragment = present(j, "dont_fragment");
  p.authtoken = text(j, "authtoken");
  p.client_version = text(j, "client_version");
  if (p.parallel < 0 || p.omit < 0 || p.time < 0)
    throw ProtocolError("negative parallel, omit or time in the parameters");
  return p;
}

std::string encode_results(const Results& r) {
  ordered j;
  j["cpu_util_total"] = real(r.cpu_util_total);
  j["cpu_util_user"] = real(r.cpu_util_user);
  j["cpu_util_system"] = real(r.cpu_util_system);
  j["sender_has_retransmits"] = r.sender_has_retransmits;
  if (r.congestion_used) j["congestion_used"] = *r.congestion_used;
  if (r.server_output_text) j["server_output_text"] = *r.server_output_text;
  if (r.server_output_json) {
    ordered o = ordered::parse(*r.server_output_json, nullptr, false);
    if (!o.is_discarded()) j["server_output_json"] = std::move(o);
  }
  ordered streams = ordered::array();
  for (const auto& s : r.streams) {
    ordered o;
    o["id"] = s.id;
    o["bytes"] = s.bytes;
    o["retransmits"] = s.retransmits;
    o["jitter"] = real(s.jitter);
    o["errors"] = s.errors;
    o["packets"] = s.packets;
    o["start_time"] = real(s.start_time);
    o["end_time"] = real(s.end_time);
    streams.push_back(std::move(o));
  }
  j["streams"] = std::move(streams);
  return j.dump();
}

Results decode_results(std::string_view body) {
  const json j = parse(body, "results");
  Results r;
  r.cpu_util_total = number<double>(j, "cpu_util_total", 0);
  r.cpu_util_user = number<double>(j, "cpu_util_user", 0);
  r.cpu_util_system = number<double>(j, "cpu_util_system", 0);
  r.sender_has_retransmits = static_cast<int>(signed_count(j, "sender_has_retransmits"));
  if (auto it = j.find("congestion_used"); it != j.end() && it->is_string())
    r.congestion_used = it->get<std::string>();
  if (auto it = j.find("server_output_text"); it != j.end() && it->is_string())
    r.server_output_text = it->get<std::string>();
  if (auto it = j.find("server_output_json"); it != j.end() && it->is_object())
    r.server_output_json = it->dump();
  auto streams = j.find("streams");
  if (streams == j.end() || !streams->is_array())
    throw ProtocolError("the results have no streams");
  for (const auto& s : *streams) {
    if (!s.is_object()) throw ProtocolError("a stream in the results is not an object");
    StreamResult sr;
    sr.id = number<int>(s, "id", 0);
    sr.bytes = number<uint64_t>(s, "bytes", 0);
    sr.retransmits = signed_count(s, "retransmits");
    sr.jitter = number<double>(s, "jitter", 0);
    sr.errors = signed_count(s, "errors");
    sr.packets = signed_count(s, "packets");
    sr.start_time = number<double>(s, "start_time", 0);
    sr.end_time = number<double>(s, "end_time", 0);
    r.streams.push_back(sr);
  }
  return r;
}

std::array<uint8_t, 4> length_prefix(uint32_t n) {
  return {static_cast<uint8_t>(n >> 24), static_cast<uint8_t>(n >> 16),
          static_cast<uint8_t>(n >> 8), static_cast<uint8_t>(n)};
}

uint32_t read_length(const uint8_t* b) {
  return (uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) | (uint32_t{b[2]} << 8) | b[3];
}

std::string server_error_text(int32_t code) {
  switch (code) {
    case kErrSetBuf:
      return "socket buffer size not set correctly";
    case kErrSetMss:
      return "unable to set TCP/SCTP MSS";
    case kErrAuth:
      return "test authorization failed";
    case kErrSetCongestion:
      return "unable to set TCP_CONGESTION: Supplied congestion control algorithm not "
             "supported on this host";
    case kErrSetTos:
      return "unable to set IP TOS";
    case kErrRecvParams:
      return "unable to receive parameters from client";
    case kErrCreateStream:
      return "unable to create a new stream";
    case kErrMaxDuration:
      return "client's requested duration exceeds the server's maximum permitted limit";
    case kErrDurationExpired:
      return "server test duration expired";
    default:
      return {};
  }
}

std::string state_name(int8_t state) {
  switch (state) {
    case kTestStart:
      return "TEST_START";
    case kTestRunning:
      return "TEST_RUNNING";
    case kTestEnd:
      return "TEST_END";
    case kParamExchange:
      return "PARAM_EXCHANGE";
    case kCreateStreams:
      return "CREATE_STREAMS";
    case kServerTerminate:
      return "SERVER_TERMINATE";
    case kClientTerminate:
      return "CLIENT_TERMINATE";
    case kExchangeResults:
      return "EXCHANGE_RESULTS";
    case kDisplayResults:
      return "DISPLAY_RESULTS";
    case kIperfDone:
      return "IPERF_DONE";
    case kAccessDenied:
      return "ACCESS_DENIED";
    case kServerError:
      return "SERVER_ERROR";
  }
  return "state " + std::to_string(state);
}

}  // namespace flowperf::proto::iperf3
