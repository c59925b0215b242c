// From netperf's command line to flowperf's TestSpec: which test the
// options name, and netperf's defaults (socket buffers as Linux gives them,
// sizes, ports) turned into the spec's values. The parsing itself is in
// netperf_args.cc.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "cli/netperf_args.h"
#include "core/error.h"

namespace flowperf::cli {

spec::TestKind netperf_test_kind(const NetperfArgs& a) {
  const bool xmit = (a.direction & kNetperfXmit) != 0, recv = (a.direction & kNetperfRecv) != 0;
  switch (a.test) {
    case NetperfTest::kTcpStream:
    case NetperfTest::kTcpSendfile:
      return spec::TestKind::kTcpStream;
    case NetperfTest::kTcpMaerts:
      return spec::TestKind::kTcpMaerts;
    case NetperfTest::kUdpStream:
      return spec::TestKind::kUdpStream;
    case NetperfTest::kTcpRr:
      return spec::TestKind::kTcpRr;
    case NetperfTest::kTcpCrr:
      return spec::TestKind::kTcpCrr;
    case NetperfTest::kUdpRr:
      return spec::TestKind::kUdpRr;
    case NetperfTest::kTcpCc:
      return spec::TestKind::kTcpCc;
    case NetperfTest::kOmni:
      if (a.protocol == spec::Protocol::kTcp) {
        if (xmit && recv)
          return a.connection_test ? spec::TestKind::kTcpCrr : spec::TestKind::kTcpRr;
        if (!a.connection_test && xmit) return spec::TestKind::kTcpStream;
        if (!a.connection_test && recv) return spec::TestKind::kTcpMaerts;
        break;  // a connection test sending one way
      }
      if (a.connection_test)
        throw usage_error("-c: UDP has no connections to time; drop -c, or use -T tcp");
      if (xmit && recv) return spec::TestKind::kUdpRr;
      if (xmit) return spec::TestKind::kUdpStream;
      throw usage_error(
          "-d recv: flowperf cannot run a UDP receive-only (UDP_MAERTS) test yet; run "
          "UDP_STREAM from the other host instead");
  }
  throw usage_error(
      "-c: flowperf times connections with a request and a response (-d rr, as TCP_CRR) or with "
      "no data (-t TCP_CC); a connection test that sends one way only is not built");
}

bool netperf_is_rr(const NetperfArgs& a) {
  return (a.direction & kNetperfXmit) && (a.direction & kNetperfRecv);
}

uint32_t linux_effective_sndbuf(uint64_t requested, const NetperfSystemDefaults& sys) {
  uint64_t capped = std::min<uint64_t>(requested, sys.wmem_max);
  return static_cast<uint32_t>(std::max<uint64_t>(capped * 2, 4608));
}

spec::TestSpec netperf_spec(const NetperfArgs& a, const NetperfSystemDefaults& sys) {
  spec::TestSpec s;
  s.test = netperf_test_kind(a);
  s.sendfile = a.test == NetperfTest::kTcpSendfile;
  const auto& info = spec::info(s.test);
  const bool udp = info.protocol == spec::Protocol::kUdp;
  // netperf (built with histograms, as netperf 2.7.1 is here) times each
  // send and receive call of a stream test: the latency selectors' values.
  s.call_latency = info.workload == spec::Workload::kStream;

  s.ip_family = a.data_family != IpFamily::kAny ? a.data_family : a.family;
  s.duration_s = a.duration_s;
  s.count = a.count;
  s.interval_s = a.interim_s;
  s.nodelay = a.nodelay;

  auto u32 = [](char opt, uint64_t v) {
    if (v > 0xffffffffull)
      throw usage_error(fmt::format("-{} {}: at most 4294967295 bytes", opt, v));
    return static_cast<uint32_t>(v);
  };
  if (a.local_buf.first) s.local_sndbuf = u32('s', *a.local_buf.first);
  if (a.local_buf.second) s.local_rcvbuf = u32('s', *a.local_buf.second);
  if (a.remote_buf.first) s.remote_sndbuf = u32('S', *a.remote_buf.first);
  if (a.remote_buf.second) s.remote_rcvbuf = u32('S', *a.remote_buf.second);

  // netperf sends messages as large as the sending socket's buffer unless
  // told otherwise (-m); a UDP message is capped at the largest datagram.
  auto sndbuf_of = [&](uint32_t requested) {
    if (requested) return linux_effective_sndbuf(requested, sys);
    return udp ? sys.udp_sndbuf : sys.tcp_sndbuf;
  };
  if (info.workload == spec::Workload::kStream) {
    if (s.test == spec::TestKind::kTcpMaerts) {
      // The server sends: -m's second value, else its send buffer.
      uint64_t m = a.send_size.second.value_or(0);
      s.send_size = m ? u32('m', m) : sndbuf_of(s.remote_sndbuf);
      uint64_t r = a.recv_size.second.value_or(0);  // -M ,local
      s.recv_size = r ? u32('M', r) : 0;
    } else {
      uint64_t m = a.send_size.first.value_or(0);
      s.send_size = m ? u32('m', m) : sndbuf_of(s.local_sndbuf);
      if (udp && !m) s.send_size = std::min<uint32_t>(s.send_size, spec::kMaxUdpPayloadV4);
      uint64_t r = a.recv_size.first.value_or(0);  // -M remote
      s.recv_size = r ? u32('M', r) : 0;
    }
  } else {
    if (a.rr_size.first) s.request_size = u32('r', *a.rr_size.first);
    if (a.rr_size.second) s.response_size = u32('r', *a.rr_size.second);
  }

  // The data path of each end: test -K, -P, -L, -H; global -T, -Y, -y. TCP's
  // own options mean nothing to a UDP test, which netperf lets pass.
  auto port = [](const std::optional<std::string>& p) -> uint16_t {
    return p ? static_cast<uint16_t>(std::stoi(*p)) : 0;  // checked by the parser
  };
  s.local.data_port = port(a.data_ports.first);
  s.remote.data_port = port(a.data_ports.second);
  s.fill_file = a.fill_file.first.value_or("");  // -F
  s.local.data_host = a.data_local_host;
  s.remote.data_host = a.data_host;
  s.local.cpu = a.cpu_bind.first.value_or(-1);
  s.remote.cpu = a.cpu_bind.second.value_or(-1);
  if (a.tos.first) s.local.tos = parse_netperf_tos(*a.tos.first);
  if (a.tos.second) s.remote.tos = parse_netperf_tos(*a.tos.second);
  s.local.priority = a.priority.first.value_or(-1);
  s.remote.priority = a.priority.second.value_or(-1);
  if (!udp) {
    s.local.cc = a.cong_control.first.value_or("");
    s.remote.cc = a.cong_control.second.value_or("");
    s.keepalive = a.keepalive;  // -S
    s.cork = a.cork;            // test -C: netperf's end only
  }
  // netperf keeps a first burst (test -b) for request/response tests
  // without a connection per transaction.
  if (info.workload == spec::Workload::kRr && !info.connect_per_transaction)
    s.burst = static_cast<uint32_t>(std::max(a.first_burst, 0));
  return s;
}

}  // namespace flowperf::cli
