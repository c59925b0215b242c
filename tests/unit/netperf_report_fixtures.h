// Shared builders for the netperf report tests: synthetic TestResults and
// report options, as netperf_report_test.cc and omni_render_test.cc use them.
#pragma once

#include <string>

#include "report/netperf_report.h"
#include "report/omni_selectors.h"

namespace flowperf::report::testing {

using results::TestResult;
using spec::TestKind;

using results::TestResult;
using spec::TestKind;

inline results::FlowResult flow() {
  results::FlowResult f;
  f.elapsed_s = 10;
  return f;
}

// A finished test: 10 s, the socket sizes netperf shows on Linux by default.
inline TestResult result(TestKind kind) {
  TestResult r;
  r.spec.test = kind;
  r.spec.duration_s = 10;
  r.have_remote = true;
  r.local_side.elapsed_s = 10;
  r.remote_side.elapsed_s = 10;
  const bool udp = spec::info(kind).protocol == spec::Protocol::kUdp;
  r.local_side.sndbuf = udp ? 212992 : 16384;
  r.local_side.rcvbuf = udp ? 212992 : 131072;
  r.remote_side.sndbuf = udp ? 212992 : 16384;
  r.remote_side.rcvbuf = udp ? 212992 : 131072;
  results::FlowResult l = flow(), m = flow();
  switch (kind) {
    case TestKind::kTcpStream:
      r.spec.send_size = 16384;
      l.bytes_sent = m.bytes_recv = 1'250'000'000;  // 1000 Mbit/s over 10 s
      l.send_calls = 76294;
      m.recv_calls = 50000;
      break;
    case TestKind::kTcpMaerts:
      r.spec.send_size = 16384;
      l.bytes_recv = m.bytes_sent = 2'500'000'000;  // 2000 Mbit/s
      l.recv_calls = 100000;
      m.send_calls = 152588;
      break;
    case TestKind::kUdpStream:
      r.spec.send_size = 65507;
      l.datagrams_sent = l.send_calls = 20000;
      l.bytes_sent = 20000ull * 65507;
      m.datagrams_recv = m.recv_calls = 15000;
      m.bytes_recv = 15000ull * 65507;
      break;
    default:
      l.transactions = m.transactions = 101'725;  // 10172.50 per second
      l.bytes_sent = l.bytes_recv = m.bytes_sent = m.bytes_recv = 101'725;
      r.local_side.latency.record_n(55'000, 500);   // 55 us
      r.local_side.latency.record_n(150'000, 500);  // 150 us
      break;
  }
  r.local_side.flows = {l};
  r.remote_side.flows = {m};
  return r;
}

inline NetperfReportOptions options(const char* title) {
  NetperfReportOptions o;
  o.title = title;
  o.dest_host = "127.0.0.1";
  o.uuid = "0f0e0d0c-0b0a-4908-8706-050403020100";
  o.command_line = "netperf -H 127.0.0.1";
  return o;
}

inline measure::CpuUsage usage(double util, double user, double system, double irq, double softirq,
                               double iowait, unsigned cpus, int peak_cpu, double peak_util) {
  measure::CpuUsage u;
  u.util = util;
  u.user = user;
  u.system = system;
  u.irq = irq;
  u.softirq = softirq;
  u.iowait = iowait;
  u.num_cpus = cpus;
  u.peak_cpu = peak_cpu;
  u.peak_util = peak_util;
  u.elapsed_s = 10;
  u.method = "S";
  return u;
}

// Both ends measured: here 4 CPUs, a quarter busy; the server 8 CPUs, half
// busy. netperf's service demand is util x CPUs x 10^4 over the local
// units per second, for both ends: in TCP_STREAM 1.25e9 bytes in 10 s is
// 122070.3125 KB/s, so 25.5 x 4 x 10^4 / 122070.3125 = 8.356 here and
// 50 x 8 x 10^4 / 122070.3125 = 32.768 there.
inline TestResult measured(TestKind kind) {
  TestResult r = result(kind);
  r.local_side.cpu = usage(25.5, 10.25, 12.0, 0.25, 3.0, 0.5, 4, 3, 97.125);
  r.remote_side.cpu = usage(50, 20, 25, 1, 2, 0, 8, 1, 88.5);
  return r;
}

}  // namespace flowperf::report::testing
