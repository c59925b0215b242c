#include "spec/test_spec.h"

#include <fmt/format.h>
#include <sched.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <thread>

namespace flowperf::spec {

const std::vector<TestInfo>& all_tests() {
  static const std::vector<TestInfo> tests = {
      {TestKind::kTcpStream, "TCP_STREAM", Protocol::kTcp, Workload::kStream, true, false,
       "TCP bulk transfer, client to server"},
      {TestKind::kTcpMaerts, "TCP_MAERTS", Protocol::kTcp, Workload::kStream, false, false,
       "TCP bulk transfer, server to client"},
      {TestKind::kUdpStream, "UDP_STREAM", Protocol::kUdp, Workload::kStream, true, false,
       "UDP datagrams, client to server"},
      {TestKind::kTcpRr, "TCP_RR", Protocol::kTcp, Workload::kRr, true, false,
       "TCP request/response on one connection"},
      {TestKind::kTcpCrr, "TCP_CRR", Protocol::kTcp, Workload::kRr, true, true,
       "TCP connect/request/response, a new connection per transaction"},
      {TestKind::kUdpRr, "UDP_RR", Protocol::kUdp, Workload::kRr, true, false,
       "UDP request/response"},
      {TestKind::kTcpCc, "TCP_CC", Protocol::kTcp, Workload::kRr, true, true,
       "TCP connect/close, a new connection per transaction and no data"},
  };
  return tests;
}

const TestInfo& info(TestKind kind) {
  for (const auto& t : all_tests())
    if (t.kind == kind) return t;
  return all_tests().front();
}

std::optional<TestKind> parse_test_name(std::string_view name) {
  std::string upper(name);
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  for (const auto& t : all_tests())
    if (upper == t.name) return t.kind;
  return std::nullopt;
}

const char* arrival_name(Arrival a) { return a == Arrival::kPoisson ? "poisson" : "fixed"; }

std::optional<Arrival> parse_arrival(std::string_view name) {
  if (name == "fixed") return Arrival::kFixed;
  if (name == "poisson") return Arrival::kPoisson;
  return std::nullopt;
}

uint32_t TestSpec::effective_send_size() const {
  if (send_size) return send_size;
  return info(test).protocol == Protocol::kUdp ? kUdpDefaultSizeV4 : 128 * 1024;
}

uint32_t TestSpec::effective_recv_size() const {
  if (recv_size) return recv_size;
  return info(test).protocol == Protocol::kUdp ? 65536 : 128 * 1024;
}

unsigned default_threads(const TestSpec& spec) {
  if (spec.threads) return std::min(spec.threads, spec.streams);
  unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  return std::min<unsigned>(spec.streams, cores);
}

uint32_t max_gso_batch(const TestSpec& s) {
  const uint32_t limit = s.ip_family == IpFamily::kV6 ? kMaxUdpPayloadV6 : kMaxUdpPayloadV4;
  const uint32_t m = std::max<uint32_t>(1, s.effective_send_size());
  return std::max<uint32_t>(1, std::min(kMaxGsoSegments, limit / m));
}

uint64_t data_descriptors(const TestSpec& s, unsigned threads) {
  // One socket per stream (TCP_CRR: one connection in flight per stream on
  // the client, up to one per stream on the server), one epoll set per
  // worker thread and per CRR server flow, one listener per thread, and a
  // margin for stdio, the control connection and the libraries.
  return uint64_t{s.streams} + 2ull * std::max(1u, threads) + 32;
}

bool cpu_usable(int cpu) {
  if (cpu < 0 || cpu >= CPU_SETSIZE) return false;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return false;
  return CPU_ISSET(cpu, &set);
}

namespace {

bool cc_name_ok(const std::string& name) {
  bool ok = name.size() < 16;
  for (char c : name)
    ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-');
  return ok;
}

// The per-end options (SideOptions), named as the native command line
// writes them: "-K x" for both ends, "-K x," for the client's alone and
// "-K ,x" for the server's. The same value on both ends is one problem.
template <typename Add>
void check_sides(const TestSpec& s, End here, Add&& add) {
  const TestInfo& t = info(s.test);
  const bool udp = t.protocol == Protocol::kUdp;
  // check(value, as_given, end) for each end's value, or once for both.
  auto per_end = [&](auto member, auto&& check) {
    const auto &l = s.local.*member, &r = s.remote.*member;
    if (l == r) {
      check(l, fmt::format("{}", l), here);
    } else {
      check(l, fmt::format("{},", l), End::kLocal);
      check(r, fmt::format(",{}", r), End::kRemote);
    }
  };
  per_end(&SideOptions::cc, [&](const std::string& cc, const std::string& given, End) {
    if (cc.empty()) return;
    if (!cc_name_ok(cc))
      add(fmt::format("-K {}: not a congestion control name (letters, digits, _ and -, at most 15)",
                      given));
    else if (udp)
      add(fmt::format("-K {}: congestion control applies to TCP tests, not {}", given, t.name));
  });
  per_end(&SideOptions::tos, [&](int tos, const std::string& given, End) {
    if (tos < -1 || tos > 255)
      add(fmt::format("--tos {} (netperf -Y): a TOS byte is from 0 to 255 (0x00 to 0xff)", given));
  });
  per_end(&SideOptions::priority, [&](int priority, const std::string& given, End) {
    if (priority < -1)
      add(fmt::format("--priority {} (netperf -y): a socket priority is 0 or more", given));
  });
  per_end(&SideOptions::cpu, [&](int cpu, const std::string& given, End end) {
    if (cpu < -1 || cpu >= kMaxCpu)
      add(fmt::format("--cpu-bind {} (netperf -T): a CPU number is from 0 to {}", given,
                      kMaxCpu - 1));
    else if (cpu >= 0 && end == here && !cpu_usable(cpu))
      add(
          fmt::format("--cpu-bind {} (netperf -T): CPU {} is not one this {} may run on (see "
                      "nproc, taskset)",
                      given, cpu, here == End::kLocal ? "client" : "server"));
  });
}

}  // namespace

std::vector<std::string> validate(const TestSpec& s, End here) {
  std::vector<std::string> problems;
  const TestInfo& t = info(s.test);
  const bool udp = t.protocol == Protocol::kUdp;
  const bool stream = t.workload == Workload::kStream;
  auto add = [&](std::string p) { problems.push_back(std::move(p)); };

  if (!(s.duration_s > 0) || !std::isfinite(s.duration_s) || s.duration_s > 31'536'000)
    add(fmt::format("-l {}: the test length must be more than 0 and at most 31536000 seconds",
                    s.duration_s));
  if (s.streams < 1 || s.streams > kMaxStreams)
    add(fmt::format("-P {}: the number of streams must be from 1 to {}", s.streams, kMaxStreams));
  if (s.threads > 1024) add(fmt::format("--threads {}: at most 1024 worker threads", s.threads));
  if (s.interval_s < 0 || (s.interval_s > 0 && s.interval_s < 0.01) || !std::isfinite(s.interval_s))
    add(fmt::format("-i {}: the report interval must be 0 (off) or at least 0.01 seconds",
                    s.interval_s));
  check_sides(s, here, add);
  if (s.keepalive && udp)
    add(fmt::format("--keepalive (netperf -S): SO_KEEPALIVE applies to TCP tests, not {}", t.name));
  if (s.cork && udp)
    add(fmt::format("--cork (netperf test -C): TCP_CORK applies to TCP tests, not {}", t.name));
  if (s.burst > kMaxBurst)
    add(fmt::format("--burst {} (netperf test -b): at most {} requests in flight beyond the first",
                    s.burst, kMaxBurst));
  else if (s.burst && s.test != TestKind::kTcpRr && s.test != TestKind::kUdpRr)
    add(fmt::format(
        "--burst {} (netperf test -b): requests in flight apply to TCP_RR and UDP_RR only, not {}",
        s.burst, t.name));
  if (s.rate_tps != 0) {
    if (!(s.rate_tps > 0) || !std::isfinite(s.rate_tps) || s.rate_tps > kMaxRateTps)
      add(fmt::format("--rate {}: transactions a second must be more than 0 and at most {:.0f}",
                      s.rate_tps, kMaxRateTps));
    else if (t.workload == Workload::kStream)
      add(
          fmt::format("--rate: open-loop load applies to TCP_RR, UDP_RR, TCP_CRR and TCP_CC, not "
                      "{}; -b paces UDP_STREAM",
                      t.name));
    else if (s.burst)
      add("--rate with --burst: an open-loop schedule decides how many requests are in flight; "
          "drop --burst (--max-outstanding caps them)");
    if (s.rate_tps > 0 && s.rate_tps * s.duration_s < 1 && s.count == 0)
      add(fmt::format("--rate {} for {} s schedules no request: raise --rate or -l", s.rate_tps,
                      s.duration_s));
  } else if (s.arrival != Arrival::kFixed || s.max_outstanding != TestSpec{}.max_outstanding) {
    add("--arrival and --max-outstanding shape an open-loop schedule: give --rate too");
  }
  if (s.probe_rate_tps != 0) {
    if (!(s.probe_rate_tps > 0) || !std::isfinite(s.probe_rate_tps) ||
        s.probe_rate_tps > kMaxProbeRateTps)
      add(fmt::format("--probe {}: probe requests a second must be more than 0 and at most {:.0f}",
                      s.probe_rate_tps, kMaxProbeRateTps));
    else if (!stream)
      add(
          fmt::format("--probe: a latency probe runs beside a stream test (TCP_STREAM, "
                      "TCP_MAERTS, UDP_STREAM), not {}; --rate loads a {} open loop itself",
                      t.name, t.name));
    if (s.probe_test != TestKind::kTcpRr && s.probe_test != TestKind::kUdpRr)
      add(fmt::format("--probe-test {}: the probe is TCP_RR or UDP_RR", info(s.probe_test).name));
    if (!(s.probe_baseline_s > 0) || !std::isfinite(s.probe_baseline_s) ||
        s.probe_baseline_s > 3600)
      add(
          fmt::format("--baseline {}: the idle probe's length must be more than 0 and at most "
                      "3600 seconds",
                      s.probe_baseline_s));
    else if (s.probe_rate_tps > 0 && s.probe_rate_tps * s.probe_baseline_s < 1)
      add(fmt::format("--probe {} for --baseline {} s sends no idle request: raise either",
                      s.probe_rate_tps, s.probe_baseline_s));
  } else if (s.probe_baseline_s != TestSpec{}.probe_baseline_s ||
             s.probe_test != TestSpec{}.probe_test) {
    add("--baseline and --probe-test shape a latency probe: give --probe RATE too");
  }
  if (s.bidir && s.test != TestKind::kTcpStream && s.test != TestKind::kTcpMaerts)
    add(fmt::format("--bidir: both directions at once is for TCP_STREAM and TCP_MAERTS, not {}",
                    t.name));
  else if (s.bidir && (s.local.data_port || s.remote.data_port))
    add("--bidir runs a second test beside the first, and the two cannot share fixed data "
        "ports: drop the data port, or run two clients with a port each");
  if (s.max_outstanding < 1 || s.max_outstanding > kMaxOutstanding)
    add(fmt::format("--max-outstanding {}: requests in flight per stream must be from 1 to {}",
                    s.max_outstanding, kMaxOutstanding));
  if (!s.fill_file.empty() && !carries_data(s.test))
    add(fmt::format("-F {}: a fill file fills send buffers, and {} sends no data", s.fill_file,
                    t.name));
  if (s.rate_bps && !(udp && stream))
    add(fmt::format("-b: a target bitrate applies to UDP_STREAM only, not {}", t.name));
  if (s.batch < 1 || s.batch > kMaxBatch)
    add(fmt::format("--batch {}: datagrams per system call must be from 1 to {}", s.batch,
                    kMaxBatch));
  else if (s.batch > 1 && s.test != TestKind::kUdpStream)
    add(fmt::format("--batch {}: batching applies to UDP_STREAM only, not {}", s.batch, t.name));
  if (s.busy_poll && t.workload != Workload::kRr)
    add(fmt::format("--busy-poll: busy polling applies to TCP_RR, TCP_CRR and UDP_RR, not {}",
                    t.name));
  if (s.call_latency && t.workload != Workload::kStream)
    add(
        fmt::format("--call-latency: timing each send and receive call applies to TCP_STREAM, "
                    "TCP_MAERTS and UDP_STREAM; {} measures each transaction's latency already",
                    t.name));
  if (s.rst_close && s.test != TestKind::kTcpCrr)
    add(fmt::format("--rst-close: closing with an RST applies to TCP_CRR only, not {}", t.name));
  if (s.sendfile && s.test != TestKind::kTcpStream && s.test != TestKind::kTcpMaerts)
    add(
        fmt::format("--sendfile: sending from a file applies to TCP_STREAM and TCP_MAERTS only, "
                    "not {}",
                    t.name));
  if (s.gro && s.test != TestKind::kUdpStream)
    add(fmt::format("--gro: UDP receive offload applies to UDP_STREAM only, not {}", t.name));
  if (s.gso && s.test != TestKind::kUdpStream)
    add(fmt::format("--gso: UDP segmentation offload applies to UDP_STREAM only, not {}", t.name));
  else if (s.gso && s.batch > max_gso_batch(s))
    add(
        fmt::format("--gso --batch {}: one GSO buffer holds at most {} datagrams of {} bytes; "
                    "use --batch {} or less",
                    s.batch, max_gso_batch(s), s.effective_send_size(), max_gso_batch(s)));

  if (stream) {
    const uint32_t limit =
        udp ? (s.ip_family == IpFamily::kV6 ? kMaxUdpPayloadV6 : kMaxUdpPayloadV4) : kMaxMessage;
    uint32_t m = s.effective_send_size();
    if (udp && m > limit)
      add(
          fmt::format("-m {}: message too long: a UDP datagram carries at most {} bytes over "
                      "IPv{}",
                      m, limit, s.ip_family == IpFamily::kV6 ? 6 : 4));
    else if (m < 1 || m > limit)
      add(fmt::format("-m {}: the send size must be from 1 to {} bytes", m, limit));
    uint32_t r = s.effective_recv_size();
    if (r < 1 || r > kMaxMessage)
      add(fmt::format("-M {}: the receive size must be from 1 to {} bytes", r, kMaxMessage));
  } else {
    const uint32_t limit = udp ? kMaxUdpPayloadV4 : kMaxMessage;
    auto bad = [&](uint32_t v) { return v < 1 || v > limit; };
    if (s.request_size == s.response_size && bad(s.request_size)) {
      // One value for both (-r SIZE): one problem, one line.
      add(fmt::format("-r {}: the request and response sizes must be from 1 to {} bytes",
                      s.request_size, limit));
    } else {
      if (bad(s.request_size))
        add(fmt::format("-r {}: the request size must be from 1 to {} bytes", s.request_size,
                        limit));
      if (bad(s.response_size))
        add(fmt::format("-r ,{}: the response size must be from 1 to {} bytes", s.response_size,
                        limit));
    }
  }
  return problems;
}

}  // namespace flowperf::spec
