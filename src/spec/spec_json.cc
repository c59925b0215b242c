#include "spec/spec_json.h"

#include <stdexcept>

#include "core/json_number.h"

namespace flowperf::spec {
namespace {

const char* family_name(IpFamily f) {
  return f == IpFamily::kV4 ? "ipv4" : f == IpFamily::kV6 ? "ipv6" : "any";
}

template <typename T>
void read(const nlohmann::json& j, const char* key, T& out) {
  auto it = j.find(key);
  if (it == j.end()) return;  // absent: keep the default
  auto v = core::checked_get<T>(*it);
  if (!v)
    throw std::invalid_argument(std::string("spec field '") + key +
                                "' has the wrong type or is out of range");
  out = *v;
}

}  // namespace

nlohmann::json to_json(const TestSpec& s) {
  return {
      {"test", info(s.test).name},
      {"ip_family", family_name(s.ip_family)},
      {"send_size", s.effective_send_size()},
      {"recv_size", s.effective_recv_size()},
      {"request_size", s.request_size},
      {"response_size", s.response_size},
      {"local_sndbuf", s.local_sndbuf},
      {"local_rcvbuf", s.local_rcvbuf},
      {"remote_sndbuf", s.remote_sndbuf},
      {"remote_rcvbuf", s.remote_rcvbuf},
      {"nodelay", s.nodelay},
      {"rate_bps", s.rate_bps},
      {"duration_s", s.duration_s},
      {"count", s.count},
      {"streams", s.streams},
      {"threads", s.threads},
      {"interval_s", s.interval_s},
      {"udp_rr_min_timeout_us", s.udp_rr_min_timeout_us},
      {"congestion_control", s.congestion_control},
      {"batch", s.batch},
      {"gso", s.gso},
      {"gro", s.gro},
      {"busy_poll", s.busy_poll},
      {"rst_close", s.rst_close},
      {"sendfile", s.sendfile},
  };
}

TestSpec spec_from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw std::invalid_argument("spec is not a JSON object");
  TestSpec s;
  std::string test;
  read(j, "test", test);
  auto kind = parse_test_name(test);
  if (!kind) throw std::invalid_argument("unknown test '" + test + "'");
  s.test = *kind;
  std::string fam = "any";
  read(j, "ip_family", fam);
  if (fam == "ipv4")
    s.ip_family = IpFamily::kV4;
  else if (fam == "ipv6")
    s.ip_family = IpFamily::kV6;
  else if (fam == "any")
    s.ip_family = IpFamily::kAny;
  else
    throw std::invalid_argument("unknown ip_family '" + fam + "'");
  read(j, "send_size", s.send_size);
  read(j, "recv_size", s.recv_size);
  read(j, "request_size", s.request_size);
  read(j, "response_size", s.response_size);
  read(j, "local_sndbuf", s.local_sndbuf);
  read(j, "local_rcvbuf", s.local_rcvbuf);
  read(j, "remote_sndbuf", s.remote_sndbuf);
  read(j, "remote_rcvbuf", s.remote_rcvbuf);
  read(j, "nodelay", s.nodelay);
  read(j, "rate_bps", s.rate_bps);
  read(j, "duration_s", s.duration_s);
  read(j, "count", s.count);
  read(j, "streams", s.streams);
  read(j, "threads", s.threads);
  read(j, "interval_s", s.interval_s);
  read(j, "udp_rr_min_timeout_us", s.udp_rr_min_timeout_us);
  read(j, "congestion_control", s.congestion_control);
  read(j, "batch", s.batch);
  read(j, "gso", s.gso);
  read(j, "gro", s.gro);
  read(j, "busy_poll", s.busy_poll);
  read(j, "rst_close", s.rst_close);
  read(j, "sendfile", s.sendfile);
  return s;
}

}  // namespace flowperf::spec
