#include "monitor/config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <initializer_list>
#include <set>
#include <sstream>

#include "core/error.h"
#include "core/units.h"

namespace flowperf::monitor {
namespace {

// Builds "FILE:LINE: FIELD: why" for a node (yaml-cpp counts lines from 0).
class Where {
 public:
  explicit Where(std::string origin) : origin_(std::move(origin)) {}
  [[noreturn]] void fail(const YAML::Node& at, const std::string& field,
                         const std::string& why) const {
    std::string where = origin_;
    if (at.IsDefined() && at.Mark().line >= 0) where += ":" + std::to_string(at.Mark().line + 1);
    throw usage_error(where + ": " + field + ": " + why);
  }

 private:
  std::string origin_;
};

std::string scalar(const Where& w, const YAML::Node& n, const std::string& field) {
  if (!n.IsScalar()) w.fail(n, field, "give a single value, not a list or a mapping");
  return n.Scalar();
}

double duration(const Where& w, const YAML::Node& n, const std::string& field) {
  const std::string text = scalar(w, n, field);
  auto d = parse_duration(text);
  if (!d) w.fail(n, field, "'" + text + "' is not a duration; give e.g. 30s, 500ms, 5m or 1h");
  return *d;
}

uint64_t whole(const Where& w, const YAML::Node& n, const std::string& field, uint64_t lo,
               uint64_t hi) {
  const std::string text = scalar(w, n, field);
  uint64_t v = 0;
  size_t used = 0;
  try {
    if (!text.empty() && text[0] != '-') v = std::stoull(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || v < lo || v > hi)
    w.fail(n, field,
           "'" + text + "' is not a whole number from " + std::to_string(lo) + " to " +
               std::to_string(hi));
  return v;
}

// Refuses keys the mapping should not have, naming the first one.
void only_keys(const Where& w, const YAML::Node& map, const std::string& what,
               const std::set<std::string>& allowed) {
  for (const auto& kv : map) {
    const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : std::string("?");
    if (!allowed.count(key)) {
      std::string names;
      for (const auto& a : allowed) names += (names.empty() ? "" : ", ") + a;
      w.fail(kv.first, what + "." + key, "unknown key; " + what + " takes " + names);
    }
  }
}

std::string direction_of(spec::TestKind k) {
  const auto& info = spec::info(k);
  if (info.workload == spec::Workload::kRr) return "both";
  return info.client_sends ? "send" : "receive";
}

Test read_test(const Where& w, const YAML::Node& n, const std::string& at) {
  if (!n.IsMap()) w.fail(n, at, "each test is a mapping with at least `test: NAME`");
  only_keys(w, n, at, {"test", "length", "streams", "rr", "send_size", "rate"});
  Test t;
  if (!n["test"]) w.fail(n, at + ".test", "missing; name the test, e.g. TCP_RR or TCP_STREAM");
  const std::string name = scalar(w, n["test"], at + ".test");
  const auto kind = spec::parse_test_name(name);
  if (!kind) {
    std::string names;
    for (const auto& i : spec::all_tests())
      names += (names.empty() ? "" : ", ") + std::string(i.name);
    w.fail(n["test"], at + ".test", "unknown test '" + name + "'; choose one of " + names);
  }
  spec::TestSpec& s = t.spec;
  s.test = *kind;
  s.duration_s = 5;
  if (n["length"]) s.duration_s = duration(w, n["length"], at + ".length");
  if (n["streams"])
    s.streams = static_cast<uint32_t>(whole(w, n["streams"], at + ".streams", 1, 10000));
  if (n["rr"]) {
    const std::string rr = scalar(w, n["rr"], at + ".rr");
    const auto comma = rr.find(',');
    std::string why;
    auto req = core::parse_size(rr.substr(0, comma), &why);
    auto resp = comma == std::string::npos ? req : core::parse_size(rr.substr(comma + 1), &why);
    if (!req || !resp || *req == 0 || *resp == 0 || *req > UINT32_MAX || *resp > UINT32_MAX)
      w.fail(n["rr"], at + ".rr",
             "'" + rr + "': give SIZE or REQUEST,RESPONSE in bytes, e.g. 64,64");
    s.request_size = static_cast<uint32_t>(*req);
    s.response_size = static_cast<uint32_t>(*resp);
  }
  if (n["send_size"]) {
    const std::string v = scalar(w, n["send_size"], at + ".send_size");
    std::string why;
    auto size = core::parse_size(v, &why);
    if (!size || *size == 0 || *size > UINT32_MAX)
      w.fail(n["send_size"], at + ".send_size", "'" + v + "': give bytes per send, e.g. 64K");
    s.send_size = static_cast<uint32_t>(*size);
  }
  if (n["rate"]) {
    const std::string v = scalar(w, n["rate"], at + ".rate");
    std::string why;
    auto bps = core::parse_rate_bps(v, &why);
    if (!bps) w.fail(n["rate"], at + ".rate", "'" + v + "': " + why);
    s.rate_bps = *bps;
  }
  if (s.test == spec::TestKind::kUdpStream && !n["rate"])
    w.fail(n, at + ".rate",
           "UDP_STREAM needs a rate (e.g. rate: 10M): an unpaced UDP test would flood the path "
           "every round");
  auto problems = spec::validate(s);
  if (!problems.empty()) w.fail(n, at, problems.front());
  t.label_test = spec::info(s.test).name;
  t.direction = direction_of(s.test);
  return t;
}

Target read_target(const Where& w, const YAML::Node& n, const std::string& at) {
  if (!n.IsMap()) w.fail(n, at, "each target is a mapping with name, host and tests");
  only_keys(w, n, at,
            {"name", "host", "port", "protocol", "every", "jitter", "connect_timeout", "tests"});
  Target t;
  if (!n["name"]) w.fail(n, at + ".name", "missing; each target needs a name for its metrics");
  t.name = scalar(w, n["name"], at + ".name");
  if (t.name.empty()) w.fail(n["name"], at + ".name", "empty");
  if (!n["host"]) w.fail(n, at + ".host", "missing; give the server's address");
  t.host = scalar(w, n["host"], at + ".host");
  if (t.host.empty()) w.fail(n["host"], at + ".host", "empty");
  if (n["protocol"]) {
    const std::string p = scalar(w, n["protocol"], at + ".protocol");
    bool known = false;
    for (Protocol k :
         {Protocol::kFlowperf, Protocol::kNetperf, Protocol::kIperf3, Protocol::kQperf})
      if (p == protocol_name(k)) {
        t.protocol = k;
        known = true;
      }
    if (!known)
      w.fail(n["protocol"], at + ".protocol",
             "'" + p + "': choose flowperf, netperf (a netserver), iperf3 (iperf3 -s) or qperf");
  }
  t.port = default_port(t.protocol);
  if (n["port"]) t.port = static_cast<uint16_t>(whole(w, n["port"], at + ".port", 1, 65535));
  if (n["every"]) t.every_s = duration(w, n["every"], at + ".every");
  t.jitter_s = t.every_s / 10;
  if (n["jitter"]) {
    const std::string j = scalar(w, n["jitter"], at + ".jitter");
    if (j == "0" || j == "0s" || j == "0ms") {
      t.jitter_s = 0;
    } else {
      t.jitter_s = duration(w, n["jitter"], at + ".jitter");
      if (t.jitter_s >= t.every_s)
        w.fail(n["jitter"], at + ".jitter", "must be shorter than `every`");
    }
  }
  if (n["connect_timeout"])
    t.connect_timeout_s = duration(w, n["connect_timeout"], at + ".connect_timeout");
  const YAML::Node tests = n["tests"];
  if (!tests || !tests.IsSequence() || tests.size() == 0)
    w.fail(tests ? tests : n, at + ".tests", "give a list of at least one test");
  for (size_t i = 0; i < tests.size(); ++i) {
    const std::string where = at + ".tests[" + std::to_string(i) + "]";
    t.tests.push_back(read_test(w, tests[i], where));
    if (std::string why = protocol_refuses(t.protocol, t.tests.back().spec); !why.empty())
      w.fail(tests[i], where, why);
  }
  return t;
}

}  // namespace

const char* protocol_name(Protocol p) {
  switch (p) {
    case Protocol::kNetperf:
      return "netperf";
    case Protocol::kIperf3:
      return "iperf3";
    case Protocol::kQperf:
      return "qperf";
    case Protocol::kFlowperf:
      break;
  }
  return "flowperf";
}

uint16_t default_port(Protocol p) {
  switch (p) {
    case Protocol::kIperf3:
      return 5201;
    case Protocol::kQperf:
      return 19765;
    case Protocol::kFlowperf:
    case Protocol::kNetperf:
      break;
  }
  return 12865;
}

std::string protocol_refuses(Protocol p, const spec::TestSpec& s) {
  using spec::TestKind;
  const char* name = spec::info(s.test).name;
  const auto one_of = [&](std::initializer_list<TestKind> kinds) {
    return std::find(kinds.begin(), kinds.end(), s.test) != kinds.end();
  };
  switch (p) {
    case Protocol::kFlowperf:
      return {};
    case Protocol::kNetperf:
      if (s.test == TestKind::kUdpStream)
        return "netperf cannot pace a UDP_STREAM, and an unpaced one would flood the path every "
               "round; use UDP_RR, or a flowperf or iperf3 target";
      if (!one_of({TestKind::kTcpStream, TestKind::kTcpMaerts, TestKind::kTcpRr, TestKind::kTcpCrr,
                   TestKind::kTcpCc, TestKind::kUdpRr}))
        return std::string(name) +
               " is not a netperf test; a netserver runs TCP_STREAM, "
               "TCP_MAERTS, TCP_RR, TCP_CRR, TCP_CC and UDP_RR";
      if (s.streams != 1)
        return "netperf runs one stream a test: drop `streams`, or use a flowperf target";
      return {};
    case Protocol::kIperf3:
      if (!one_of({TestKind::kTcpStream, TestKind::kTcpMaerts, TestKind::kUdpStream}))
        return std::string(name) +
               " is not an iperf3 test; iperf3 -s runs TCP_STREAM, TCP_MAERTS (-R) and "
               "UDP_STREAM";
      if (s.streams > 128) return "iperf3 runs at most 128 streams a test";
      return {};
    case Protocol::kQperf:
      if (s.test == TestKind::kUdpStream)
        return "qperf cannot pace its udp_bw, and an unpaced one would flood the path every "
               "round; use UDP_RR (udp_lat), or a flowperf or iperf3 target";
      if (!one_of({TestKind::kTcpStream, TestKind::kTcpRr, TestKind::kUdpRr}))
        return std::string(name) +
               " is not a qperf test; a qperf server runs TCP_STREAM (tcp_bw), TCP_RR "
               "(tcp_lat) and UDP_RR (udp_lat)";
      if (s.streams != 1) return "qperf runs one stream a test: drop `streams`";
      if (s.request_size != s.response_size)
        return "qperf's latency tests send one size both ways: give `rr: SIZE`";
      if (s.duration_s < 1) return "qperf counts a test's length in whole seconds: give 1s or more";
      return {};
  }
  return {};
}

std::optional<double> parse_duration(const std::string& text) {
  double v = 0;
  size_t used = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  const std::string unit = text.substr(used);
  double scale = 0;
  if (unit.empty() || unit == "s")
    scale = 1;
  else if (unit == "ms")
    scale = 1e-3;
  else if (unit == "m")
    scale = 60;
  else if (unit == "h")
    scale = 3600;
  else if (unit == "d")
    scale = 86400;
  v *= scale;
  if (scale == 0 || !std::isfinite(v) || v <= 0 || v > 366 * 86400.0) return std::nullopt;
  return v;
}

std::pair<std::string, uint16_t> split_host_port(const std::string& text, const std::string& what) {
  const auto colon = text.rfind(':');
  std::string host = colon == std::string::npos ? std::string() : text.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  const std::string port = colon == std::string::npos ? text : text.substr(colon + 1);
  size_t used = 0;
  unsigned long p = 0;
  try {
    if (!port.empty() && std::isdigit(static_cast<unsigned char>(port[0])))
      p = std::stoul(port, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (colon == std::string::npos || host.empty() || used == 0 || used != port.size() || p > 65535)
    throw usage_error(
        what + " " + text +
        ": give HOST:PORT, e.g. 127.0.0.1:9464 ([::1]:9464 for IPv6; port 0 picks one)");
  return {host, static_cast<uint16_t>(p)};
}

Config parse_config(const std::string& text, const std::string& origin) {
  const Where w(origin);
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw usage_error(origin + ":" + std::to_string(e.mark.line + 1) +
                      ": not valid YAML: " + e.msg);
  }
  if (!root.IsMap()) w.fail(root, "(top)", "the file must be a mapping with `targets:`");
  only_keys(w, root, "(top)", {"targets", "listen"});
  Config c;
  if (root["listen"]) {
    c.listen = scalar(w, root["listen"], "listen");
    try {
      split_host_port(c.listen, "listen:");
    } catch (const Error& e) {
      w.fail(root["listen"], "listen", e.what());
    }
  }
  const YAML::Node targets = root["targets"];
  if (!targets || !targets.IsSequence() || targets.size() == 0)
    w.fail(targets ? targets : root, "targets", "give a list of at least one target");
  std::set<std::string> names;
  for (size_t i = 0; i < targets.size(); ++i) {
    const std::string at = "targets[" + std::to_string(i) + "]";
    Target t = read_target(w, targets[i], at);
    if (!names.insert(t.name).second)
      w.fail(targets[i]["name"], at + ".name",
             "'" + t.name + "' names another target too; each needs its own name");
    c.targets.push_back(std::move(t));
  }
  return c;
}

Config load_config(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw usage_error(path + ": cannot read the monitor's configuration file");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_config(text.str(), path);
}

}  // namespace flowperf::monitor
