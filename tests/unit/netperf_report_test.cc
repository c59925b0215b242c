// Unit tests for report/netperf_report and report/omni_selectors: golden
// text for each classic netperf table from synthetic TestResults (headers,
// -P 0, -v 0, -v 2, -c/-C with and without measured CPU, -f, -B), the
// banner, interim results in every output style, and the OMNI selectors
// (names, parsing, defaults, the CPU selectors, the -O column layout, CSV
// and keyval).
#include "report/netperf_report.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <limits>
#include <string>

#include "report/omni_selectors.h"

namespace flowperf::report {
namespace {

using session::TestResult;
using spec::TestKind;

engine::FlowResult flow() {
  engine::FlowResult f;
  f.elapsed_s = 10;
  return f;
}

// A finished test: 10 s, the socket sizes netperf shows on Linux by default.
TestResult result(TestKind kind) {
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
  engine::FlowResult l = flow(), m = flow();
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

NetperfReportOptions options(const char* title) {
  NetperfReportOptions o;
  o.title = title;
  o.dest_host = "127.0.0.1";
  o.uuid = "0f0e0d0c-0b0a-4908-8706-050403020100";
  o.command_line = "netperf -H 127.0.0.1";
  return o;
}

// ---- Banner ----------------------------------------------------------------

TEST(NetperfBanner, AsNetperf271PrintsIt) {
  EXPECT_EQ(netperf_banner(options("MIGRATED TCP STREAM TEST")),
            "MIGRATED TCP STREAM TEST from 0.0.0.0 (0.0.0.0) port 0 AF_INET to 127.0.0.1 () "
            "port 0 AF_INET\n");
  NetperfReportOptions o = options("MIGRATED TCP REQUEST/RESPONSE TEST");
  EXPECT_EQ(netperf_banner(o),
            "MIGRATED TCP REQUEST/RESPONSE TEST from 0.0.0.0 (0.0.0.0) port 0 AF_INET to "
            "127.0.0.1 () port 0 AF_INET : first burst 0\n");
  o.nodelay = true;
  EXPECT_EQ(netperf_banner(o),
            "MIGRATED TCP REQUEST/RESPONSE TEST from 0.0.0.0 (0.0.0.0) port 0 AF_INET to "
            "127.0.0.1 () port 0 AF_INET : nodelay : first burst 0\n");
  o.headers = false;
  EXPECT_EQ(netperf_banner(o), "");
}

TEST(NetperfBanner, ShortAddressesShowInParentheses) {
  NetperfReportOptions o = options("OMNI Send TEST");
  o.source_host = "::0";
  o.source_v6 = o.dest_v6 = true;
  o.dest_host = "::1";
  EXPECT_EQ(netperf_banner(o),
            "OMNI Send TEST from ::0 (::) port 0 AF_INET6 to ::1 (::1) port 0 AF_INET6\n");
  o.dest_host = "localhost";
  o.dest_address = "::1";
  EXPECT_EQ(netperf_banner(o),
            "OMNI Send TEST from ::0 (::) port 0 AF_INET6 to localhost (::1) port 0 AF_INET6\n");
  o.dest_address = "fe80::1234:5678";
  EXPECT_EQ(netperf_banner(o),
            "OMNI Send TEST from ::0 (::) port 0 AF_INET6 to localhost () port 0 AF_INET6\n");
}

// ---- TCP_STREAM / TCP_MAERTS -------------------------------------------------

const char* kStreamHeader =
    "Recv   Send    Send                          \n"
    "Socket Socket  Message  Elapsed              \n"
    "Size   Size    Size     Time     Throughput  \n"
    "bytes  bytes   bytes    secs.    10^6bits/sec  \n"
    "\n";

TEST(NetperfTables, TcpStream) {
  NetperfReportOptions o = options("MIGRATED TCP STREAM TEST");
  EXPECT_EQ(netperf_result(result(TestKind::kTcpStream), o),
            std::string(kStreamHeader) + "131072  16384  16384    10.00    1000.00   \n");
  o.headers = false;
  o.brand = "tag";
  EXPECT_EQ(netperf_result(result(TestKind::kTcpStream), o),
            "131072  16384  16384    10.00    1000.00   tag\n");
  o.verbosity = 0;
  EXPECT_EQ(netperf_result(result(TestKind::kTcpStream), o), "1000.00 tag\n");
  o.headers = true;
  EXPECT_EQ(netperf_result(result(TestKind::kTcpStream), o), "1000.00 \n");
}

TEST(NetperfTables, TcpStreamUnits) {
  NetperfReportOptions o = options("MIGRATED TCP STREAM TEST");
  o.unit = 'G';
  std::string out = netperf_result(result(TestKind::kTcpStream), o);
  EXPECT_NE(out.find("bytes  bytes   bytes    secs.    GBytes/sec  \n"), std::string::npos);
  EXPECT_NE(out.find("131072  16384  16384    10.00       0.12   \n"), std::string::npos) << out;
  o.unit = 'k';
  out = netperf_result(result(TestKind::kTcpStream), o);
  EXPECT_NE(out.find("10^3bits/sec"), std::string::npos);
  EXPECT_NE(out.find("1000000.00"), std::string::npos);
  o.unit = 'x';  // not a transaction test: netperf falls back to m
  out = netperf_result(result(TestKind::kTcpStream), o);
  EXPECT_NE(out.find("10^6bits/sec"), std::string::npos);
}

TEST(NetperfTables, TcpStreamWithCpuColumns) {
  NetperfReportOptions o = options("MIGRATED TCP STREAM TEST");
  o.local_cpu = o.remote_cpu = true;
  EXPECT_EQ(netperf_result(result(TestKind::kTcpStream), o),
            "Recv   Send    Send                          Utilization       Service Demand\n"
            "Socket Socket  Message  Elapsed              Send     Recv     Send    Recv\n"
            "Size   Size    Size     Time     Throughput  local    remote   local   remote\n"
            "bytes  bytes   bytes    secs.    10^6bits/s  % U      % U      us/KB   us/KB\n"
            "\n"
            "131072  16384  16384    10.00      1000.00   -1.00    -1.00    -1.000  -1.000 \n");
  o.verbosity = 0;
  EXPECT_EQ(netperf_result(result(TestKind::kTcpStream), o), "-1.000 U \n");
}

TEST(NetperfTables, TcpStreamVerbose) {
  NetperfReportOptions o = options("MIGRATED TCP STREAM TEST");
  o.verbosity = 2;
  std::string out = netperf_result(result(TestKind::kTcpStream), o);
  EXPECT_EQ(out.substr(std::string(kStreamHeader).size() + 44),
            "\n"
            "Alignment      Offset         Bytes    Bytes       Sends   Bytes    Recvs\n"
            "Local  Remote  Local  Remote  Xfered   Per                 Per\n"
            "Send   Recv    Send   Recv             Send (avg)          Recv (avg)\n"
            "    8       8      0       0 1250000000  16383.99     76294   25000.00  50000\n"
            "\n"
            "Maximum\n"
            "Segment\n"
            "Size (bytes)\n"
            "    -1\n");
}

TEST(NetperfTables, TcpMaerts) {
  NetperfReportOptions o = options("MIGRATED TCP MAERTS TEST");
  // netperf's MAERTS row: our receive buffer, the server's send buffer, its message.
  EXPECT_EQ(netperf_result(result(TestKind::kTcpMaerts), o),
            std::string(kStreamHeader) + "131072  16384  16384    10.00    2000.00   \n");
  o.local_cpu = true;
  std::string out = netperf_result(result(TestKind::kTcpMaerts), o);
  EXPECT_NE(
      out.find("Socket Socket  Message  Elapsed              Recv     Send     Recv    Send\n"),
      std::string::npos);
}

TEST(NetperfTables, MissingSocketSizesPrintMinusOne) {
  TestResult r = result(TestKind::kTcpStream);
  r.local_side.sndbuf = 0;
  r.remote_side.rcvbuf = 0;
  EXPECT_NE(netperf_result(r, options("T")).find("    -1     -1  16384    10.00"),
            std::string::npos);
}

// ---- UDP_STREAM ---------------------------------------------------------------

TEST(NetperfTables, UdpStreamSenderThenReceiver) {
  NetperfReportOptions o = options("MIGRATED UDP STREAM TEST");
  EXPECT_EQ(netperf_result(result(TestKind::kUdpStream), o),
            "Socket  Message  Elapsed      Messages                \n"
            "Size    Size     Time         Okay Errors   Throughput\n"
            "bytes   bytes    secs            #      #   10^6bits/sec\n"
            "\n"
            "212992   65507   10.00       20000      0    1048.11\n"
            "212992           10.00       15000            786.08\n"
            "\n");
  o.headers = false;
  EXPECT_EQ(netperf_result(result(TestKind::kUdpStream), o),
            "212992   65507   10.00       20000      0    1048.11\n"
            "212992           10.00       15000            786.08\n"
            "\n");
  o.verbosity = 0;
  EXPECT_EQ(netperf_result(result(TestKind::kUdpStream), o), "1048.11\n");
}

TEST(NetperfTables, UdpStreamWithCpuColumns) {
  NetperfReportOptions o = options("MIGRATED UDP STREAM TEST");
  o.remote_cpu = true;
  EXPECT_EQ(netperf_result(result(TestKind::kUdpStream), o),
            "Socket  Message  Elapsed      Messages                   CPU      Service\n"
            "Size    Size     Time         Okay Errors   Throughput   Util     Demand\n"
            "bytes   bytes    secs            #      #   10^6bits/sec % UU     us/KB\n"
            "\n"
            "212992   65507   10.00       20000      0     1048.1     -1.00    -1.000\n"
            "212992           10.00       15000             786.1     -1.00    -1.000\n"
            "\n");
}

// ---- TCP_RR / TCP_CRR / UDP_RR --------------------------------------------------

const char* kRrHeader =
    "Local /Remote\n"
    "Socket Size   Request  Resp.   Elapsed  Trans.\n"
    "Send   Recv   Size     Size    Time     Rate         \n"
    "bytes  Bytes  bytes    bytes   secs.    per sec   \n"
    "\n";

TEST(NetperfTables, TcpRrTwoLines) {
  NetperfReportOptions o = options("MIGRATED TCP REQUEST/RESPONSE TEST");
  TestResult r = result(TestKind::kTcpRr);
  r.spec.request_size = r.spec.response_size = 32;
  EXPECT_EQ(netperf_result(r, o), std::string(kRrHeader) +
                                      "16384  131072 32       32      10.00    10172.50   \n"
                                      "16384  131072\n");
  o.headers = false;
  o.brand = "b";
  EXPECT_EQ(netperf_result(r, o),
            "16384  131072 32       32      10.00    10172.50   b\n16384  131072\n");
  o.verbosity = 0;
  EXPECT_EQ(netperf_result(r, o), "10172.50 b\n");
}

TEST(NetperfTables, TcpRrInBits) {
  NetperfReportOptions o = options("MIGRATED TCP REQUEST/RESPONSE TEST");
  o.unit = 'm';
  TestResult r = result(TestKind::kTcpRr);
  // Both directions' bytes at the server: 2 x 101725 bytes over 10 s.
  EXPECT_EQ(netperf_result(r, o),
            "Local /Remote\n"
            "Socket Size   Request  Resp.   Elapsed  \n"
            "Send   Recv   Size     Size    Time     Throughput \n"
            "bytes  Bytes  bytes    bytes   secs.    10^6bits/sec   \n"
            "\n"
            "16384  131072 1        1       10.00       0.16   \n"
            "16384  131072\n");
}

TEST(NetperfTables, TcpRrWithCpuColumns) {
  NetperfReportOptions o = options("MIGRATED TCP REQUEST/RESPONSE TEST");
  o.local_cpu = o.remote_cpu = true;
  EXPECT_EQ(netperf_result(result(TestKind::kTcpRr), o),
            "Local /Remote\n"
            "Socket Size   Request Resp.  Elapsed Trans.   CPU    CPU    S.dem   S.dem\n"
            "Send   Recv   Size    Size   Time    Rate     local  remote local   remote\n"
            "bytes  bytes  bytes   bytes  secs.   per sec  % U    % U    us/Tr   us/Tr\n"
            "\n"
            "16384  131072 1       1      10.00   10172.50  -1.00  -1.00  -1.000  -1.000 \n"
            "16384  131072\n");
}

TEST(NetperfTables, TcpRrVerboseAddsLatencyAndHistogram) {
  NetperfReportOptions o = options("MIGRATED TCP REQUEST/RESPONSE TEST");
  o.verbosity = 2;
  std::string out = netperf_result(result(TestKind::kTcpRr), o);
  EXPECT_NE(out.find("Alignment      Offset         RoundTrip  Trans    Throughput\n"
                     "Local  Remote  Local  Remote  Latency    Rate     10^6bits/s\n"
                     "Send   Recv    Send   Recv    usec/Tran  per sec  Outbound   Inbound\n"
                     "    8      0       0      0   98.304   10172.500 0.081     0.081 \n"),
            std::string::npos)
      << out;
  EXPECT_NE(
      out.find("\nHistogram of request/response times\n"
               "UNIT_USEC     :    0:    0:    0:    0:    0:    0:    0:    0:    0:    0\n"
               "TEN_USEC      :    0:    0:    0:    0:    0:  500:    0:    0:    0:    0\n"
               "HUNDRED_USEC  :    0:  500:    0:    0:    0:    0:    0:    0:    0:    0\n"),
      std::string::npos)
      << out;
  EXPECT_NE(out.find(">100_SECS: 0\nHIST_TOTAL:      1000\n"), std::string::npos);
}

TEST(NetperfTables, TcpCrrHasNoBrandAndKeepsItsSpaces) {
  NetperfReportOptions o = options("MIGRATED TCP Connect/Request/Response TEST");
  o.headers = false;
  o.brand = "b";
  EXPECT_EQ(netperf_result(result(TestKind::kTcpCrr), o),
            "16384  131072 1        1       10.00    10172.50   \n16384  131072\n");
  o.verbosity = 0;
  EXPECT_EQ(netperf_result(result(TestKind::kTcpCrr), o), "10172.50\n");
  o.verbosity = 1;
  o.headers = true;
  o.local_cpu = true;
  std::string out = netperf_result(result(TestKind::kTcpCrr), o);
  EXPECT_NE(out.find("bytes  bytes  bytes   bytes  secs.   per sec  %      %      us/Tr   us/Tr\n"),
            std::string::npos);
  EXPECT_NE(
      out.find("16384  131072 1       1      10.00   10172.50   -1.00  -1.00  -1.000  -1.000\n"),
      std::string::npos)
      << out;
}

TEST(NetperfTables, UdpRr) {
  NetperfReportOptions o = options("MIGRATED UDP REQUEST/RESPONSE TEST");
  EXPECT_EQ(netperf_result(result(TestKind::kUdpRr), o),
            std::string(kRrHeader) +
                "212992 212992 1        1       10.00    10172.50   \n212992 212992\n");
  o.verbosity = 2;
  EXPECT_NE(
      netperf_result(result(TestKind::kUdpRr), o).find("\nHistogram of request/reponse times.\n"),
      std::string::npos);
}

// ---- CPU columns with measured values -------------------------------------------

measure::CpuUsage usage(double util, double user, double system, double irq, double softirq,
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
TestResult measured(TestKind kind) {
  TestResult r = result(kind);
  r.local_side.cpu = usage(25.5, 10.25, 12.0, 0.25, 3.0, 0.5, 4, 3, 97.125);
  r.remote_side.cpu = usage(50, 20, 25, 1, 2, 0, 8, 1, 88.5);
  return r;
}

TEST(NetperfCpu, TcpStreamBothEnds) {
  NetperfReportOptions o = options("MIGRATED TCP STREAM TEST");
  o.local_cpu = o.remote_cpu = true;
  EXPECT_EQ(netperf_result(measured(TestKind::kTcpStream), o),
            "Recv   Send    Send                          Utilization       Service Demand\n"
            "Socket Socket  Message  Elapsed              Send     Recv     Send    Recv\n"
            "Size   Size    Size     Time     Throughput  local    remote   local   remote\n"
            "bytes  bytes   bytes    secs.    10^6bits/s  % S      % S      us/KB   us/KB\n"
            "\n"
            "131072  16384  16384    10.00      1000.00   25.50    50.00    8.356   32.768 \n");
  o.headers = false;
  o.brand = "tag";
  EXPECT_EQ(netperf_result(measured(TestKind::kTcpStream), o),
            "131072  16384  16384    10.00      1000.00   25.50    50.00    8.356   32.768 tag\n");
  // -v 0: the local service demand and method with -c, the remote ones with -C alone.
  o.verbosity = 0;
  EXPECT_EQ(netperf_result(measured(TestKind::kTcpStream), o), " 8.356 S tag\n");
  o.local_cpu = false;
  EXPECT_EQ(netperf_result(measured(TestKind::kTcpStream), o), "32.768 S tag\n");
}

TEST(NetperfCpu, OnlyTheEndsAskedFor) {
  NetperfReportOptions o = options("MIGRATED TCP STREAM TEST");
  o.local_cpu = true;  // -c: the remote end stays unmeasured, as in netperf
  std::string out = netperf_result(measured(TestKind::kTcpStream), o);
  EXPECT_NE(
      out.find("bytes  bytes   bytes    secs.    10^6bits/s  % S      % U      us/KB   us/KB\n"),
      std::string::npos)
      << out;
  EXPECT_NE(out.find("    10.00      1000.00   25.50    -1.00    8.356   -1.000 \n"),
            std::string::npos)
      << out;
  o.local_cpu = false;
  o.remote_cpu = true;  // -C
  out = netperf_result(measured(TestKind::kTcpStream), o);
  EXPECT_NE(out.find("% U      % S      us/KB   us/KB\n"), std::string::npos) << out;
  EXPECT_NE(out.find("    10.00      1000.00   -1.00    50.00    -1.000  32.768 \n"),
            std::string::npos)
      << out;
}

TEST(NetperfCpu, AnEndNotMeasuredShowsNetperfsMissingValues) {
  // Asked for with -c -C, but neither end measured (a netserver that did not
  // measure; no server results at all): netperf's -1.00, -1.000 and 'U'.
  NetperfReportOptions o = options("MIGRATED TCP STREAM TEST");
  o.local_cpu = o.remote_cpu = true;
  TestResult r = measured(TestKind::kTcpStream);
  r.remote_side.cpu.reset();
  EXPECT_NE(netperf_result(r, o).find("% S      % U      us/KB   us/KB\n\n"
                                      "131072  16384  16384    10.00      1000.00   25.50    "
                                      "-1.00    8.356   -1.000 \n"),
            std::string::npos);
  r = measured(TestKind::kTcpStream);
  r.have_remote = false;  // the server's figures never arrived
  r.local_side.cpu.reset();
  EXPECT_NE(netperf_result(r, o).find("% U      % U      us/KB   us/KB\n\n"), std::string::npos);
  EXPECT_NE(netperf_result(r, o).find("-1.00    -1.00    -1.000  -1.000 \n"), std::string::npos);
  o.verbosity = 0;
  EXPECT_EQ(netperf_result(r, o), "-1.000 U \n");
}

TEST(NetperfCpu, TcpMaertsCountsTheBytesReceivedHere) {
  NetperfReportOptions o = options("MIGRATED TCP MAERTS TEST");
  o.local_cpu = o.remote_cpu = true;
  // 2.5e9 bytes received in 10 s: half the service demand of the stream above.
  EXPECT_EQ(netperf_result(measured(TestKind::kTcpMaerts), o),
            "Recv   Send    Send                          Utilization       Service Demand\n"
            "Socket Socket  Message  Elapsed              Recv     Send     Recv    Send\n"
            "Size   Size    Size     Time     Throughput  local    remote   local   remote\n"
            "bytes  bytes   bytes    secs.    10^6bits/s  % S      % S      us/KB   us/KB\n"
            "\n"
            "131072  16384  16384    10.00      2000.00   25.50    50.00    4.178   16.384 \n");
}

TEST(NetperfCpu, TcpStreamVerboseAddsNoCpuLines) {
  NetperfReportOptions o = options("MIGRATED TCP STREAM TEST");
  o.local_cpu = o.remote_cpu = true;
  o.verbosity = 2;
  const std::string out = netperf_result(measured(TestKind::kTcpStream), o);
  o.verbosity = 1;
  const std::string table = netperf_result(measured(TestKind::kTcpStream), o);
  ASSERT_EQ(out.substr(0, table.size()), table);
  EXPECT_EQ(out.substr(table.size(), 12), "\nAlignment  ");
}

TEST(NetperfCpu, UdpStreamSenderAndReceiverRows) {
  NetperfReportOptions o = options("MIGRATED UDP STREAM TEST");
  o.local_cpu = o.remote_cpu = true;
  // Both service demands per KB *sent* (netperf's local count): 1,310,140,000
  // bytes in 10 s.
  EXPECT_EQ(netperf_result(measured(TestKind::kUdpStream), o),
            "Socket  Message  Elapsed      Messages                   CPU      Service\n"
            "Size    Size     Time         Okay Errors   Throughput   Util     Demand\n"
            "bytes   bytes    secs            #      #   10^6bits/sec % SS     us/KB\n"
            "\n"
            "212992   65507   10.00       20000      0     1048.1     25.50    7.972 \n"
            "212992           10.00       15000             786.1     50.00    31.264\n"
            "\n");
  o.verbosity = 0;
  EXPECT_EQ(netperf_result(measured(TestKind::kUdpStream), o), "  7.97 S\n");
  // With -C alone netperf prints the remote figure beside the local method.
  o.local_cpu = false;
  EXPECT_EQ(netperf_result(measured(TestKind::kUdpStream), o), " 31.26 U\n");
  o.verbosity = 1;
  EXPECT_NE(netperf_result(measured(TestKind::kUdpStream), o).find("10^6bits/sec % US     us/KB\n"),
            std::string::npos);
}

TEST(NetperfCpu, TcpRrPerTransaction) {
  NetperfReportOptions o = options("MIGRATED TCP REQUEST/RESPONSE TEST");
  o.local_cpu = o.remote_cpu = true;
  // 10172.5 transactions a second: 25.5 x 4 x 10^4 / 10172.5 = 100.270 us/Tr.
  EXPECT_EQ(netperf_result(measured(TestKind::kTcpRr), o),
            "Local /Remote\n"
            "Socket Size   Request Resp.  Elapsed Trans.   CPU    CPU    S.dem   S.dem\n"
            "Send   Recv   Size    Size   Time    Rate     local  remote local   remote\n"
            "bytes  bytes  bytes   bytes  secs.   per sec  % S    % S    us/Tr   us/Tr\n"
            "\n"
            "16384  131072 1       1      10.00   10172.50  25.50  50.00  100.270  393.217 \n"
            "16384  131072\n");
  o.verbosity = 0;
  EXPECT_EQ(netperf_result(measured(TestKind::kTcpRr), o), "100.270 S \n");
  // -v 2's latency block and histogram carry no CPU figures.
  o.verbosity = 2;
  std::string out = netperf_result(measured(TestKind::kTcpRr), o);
  EXPECT_NE(
      out.find("16384  131072\nAlignment      Offset         RoundTrip  Trans    Throughput\n"),
      std::string::npos)
      << out;
}

TEST(NetperfCpu, TcpRrInBitsIsPerKilobyte) {
  NetperfReportOptions o = options("MIGRATED TCP REQUEST/RESPONSE TEST");
  o.local_cpu = true;
  o.unit = 'm';
  // Per KB of both directions' local bytes: 203450 bytes in 10 s.
  EXPECT_EQ(netperf_result(measured(TestKind::kTcpRr), o),
            "Local /Remote\n"
            "Socket Size   Request Resp.  Elapsed Tput     CPU    CPU    S.dem   S.dem\n"
            "Send   Recv   Size    Size   Time    10^6bits local  remote local   remote\n"
            "bytes  bytes  bytes   bytes  secs.   per sec  % S    % U    us/KB   us/KB\n"
            "\n"
            "16384  131072 1       1      10.00   0.16    25.50  -1.00  51338.412  -1.000 \n"
            "16384  131072\n");
}

TEST(NetperfCpu, TcpCrrAndUdpRr) {
  NetperfReportOptions o = options("MIGRATED TCP Connect/Request/Response TEST");
  o.local_cpu = o.remote_cpu = true;
  EXPECT_EQ(netperf_result(measured(TestKind::kTcpCrr), o),
            "Local /Remote\n"
            "Socket Size   Request Resp.  Elapsed Trans.   CPU    CPU    S.dem   S.dem\n"
            "Send   Recv   Size    Size   Time    Rate     local  remote local   remote\n"
            "bytes  bytes  bytes   bytes  secs.   per sec  %      %      us/Tr   us/Tr\n"
            "\n"
            "16384  131072 1       1      10.00   10172.50   25.50  50.00  100.270  393.217\n"
            "16384  131072\n");
  o.verbosity = 0;
  EXPECT_EQ(netperf_result(measured(TestKind::kTcpCrr), o), "100.270\n");
  o = options("MIGRATED UDP REQUEST/RESPONSE TEST");
  o.remote_cpu = true;
  EXPECT_EQ(netperf_result(measured(TestKind::kUdpRr), o),
            "Local /Remote\n"
            "Socket Size   Request Resp.  Elapsed Trans.   CPU    CPU    S.dem   S.dem\n"
            "Send   Recv   Size    Size   Time    Rate     local  remote local   remote\n"
            "bytes  bytes  bytes   bytes  secs.   per sec  % U    % S    us/Tr   us/Tr\n"
            "\n"
            "212992 212992 1       1      10.00   10172.50   -1.00  50.00  -1.000  393.217 \n"
            "212992 212992\n");
}

TEST(NetperfCpu, NoWorkIsInfiniteAsInNetperf) {
  NetperfReportOptions o = options("MIGRATED TCP REQUEST/RESPONSE TEST");
  o.local_cpu = true;
  TestResult r = measured(TestKind::kTcpRr);
  r.local_side.flows[0].transactions = 0;
  EXPECT_EQ(netperf_values(r, o).local_cpu.sd, std::numeric_limits<double>::infinity());
}

// ---- Interim results -------------------------------------------------------------

TEST(NetperfInterim, EveryStyle) {
  spec::TestSpec s;
  s.test = TestKind::kTcpStream;
  session::IntervalSample iv;
  iv.start_s = 1;
  iv.end_s = 1.5;
  iv.flows = {{62'500'000, 0, 0}};  // 1000 Mbit/s for half a second
  const auto at =
      std::chrono::system_clock::time_point(std::chrono::milliseconds(1'796'234'339'005));
  NetperfReportOptions o = options("T");
  EXPECT_EQ(netperf_interim(s, iv, o, 0, at),
            "Interim result: 1000.00 10^6bits/s over 0.500 seconds ending at 1796234339.005\n");
  o.omni = OmniStyle::kHuman;
  EXPECT_EQ(netperf_interim(s, iv, o, 0, at),
            "Interim result: 1000.00 10^6bits/s over 0.500 seconds ending at 1796234339.005\n");
  o.omni = OmniStyle::kCsv;
  EXPECT_EQ(netperf_interim(s, iv, o, 0, at), "1000.00,10^6bits/s,0.500,1796234339.005\n");
  o.omni = OmniStyle::kKeyval;
  EXPECT_EQ(netperf_interim(s, iv, o, 3, at),
            "NETPERF_INTERIM_RESULT[3]=1000.00\n"
            "NETPERF_UNITS[3]=10^6bits/s\n"
            "NETPERF_INTERVAL[3]=0.500\n"
            "NETPERF_ENDING[3]=1796234339.005\n");
}

TEST(NetperfInterim, TransactionsAndReceivedBytes) {
  spec::TestSpec s;
  s.test = TestKind::kTcpRr;
  session::IntervalSample iv;
  iv.end_s = 2;
  iv.flows = {{100, 100, 20'000}};
  const auto at = std::chrono::system_clock::time_point(std::chrono::seconds(100));
  EXPECT_EQ(netperf_interim(s, iv, options("T"), 0, at),
            "Interim result: 10000.00 Trans/s over 2.000 seconds ending at 100.000\n");
  s.test = TestKind::kTcpMaerts;
  iv.flows = {{0, 250'000'000, 0}};
  EXPECT_EQ(netperf_interim(s, iv, options("T"), 0, at),
            "Interim result: 1000.00 10^6bits/s over 2.000 seconds ending at 100.000\n");
}

TEST(NetperfUnits, NamesAndRates) {
  EXPECT_EQ(netperf_unit_name('m'), "10^6bits");
  EXPECT_EQ(netperf_unit_name('g'), "10^9bits");
  EXPECT_EQ(netperf_unit_name('K'), "KBytes");
  EXPECT_EQ(netperf_unit_name('x'), "Trans");
  EXPECT_EQ(netperf_effective_unit(0, TestKind::kTcpRr), 'x');
  EXPECT_EQ(netperf_effective_unit(0, TestKind::kUdpStream), 'm');
  EXPECT_EQ(netperf_effective_unit('x', TestKind::kTcpStream), 'm');
  EXPECT_EQ(netperf_effective_unit('K', TestKind::kTcpRr), 'K');
  EXPECT_DOUBLE_EQ(netperf_rate(1e6, 1, 'm'), 8);
  EXPECT_DOUBLE_EQ(netperf_rate(1 << 20, 2, 'M'), 0.5);
  EXPECT_DOUBLE_EQ(netperf_rate(100, 4, 'x'), 25);
  EXPECT_DOUBLE_EQ(netperf_rate(100, 0, 'x'), 0);
}

// ---- OMNI selectors ---------------------------------------------------------------

TEST(OmniSelectors, NetperfsListInItsOrder) {
  const auto& all = omni_selectors();
  ASSERT_EQ(all.size(), 175u);
  EXPECT_STREQ(all.front().name, "OUTPUT_NONE");
  EXPECT_STREQ(all[1].name, "SOCKET_TYPE");
  EXPECT_STREQ(all.back().name, "OUTPUT_END");
  EXPECT_STREQ(all[all.size() - 2].name, "COMMAND_LINE");
  for (const char* name : {"THROUGHPUT",
                           "THROUGHPUT_UNITS",
                           "ELAPSED_TIME",
                           "MIN_LATENCY",
                           "MAX_LATENCY",
                           "MEAN_LATENCY",
                           "STDDEV_LATENCY",
                           "P50_LATENCY",
                           "P90_LATENCY",
                           "P99_LATENCY",
                           "REQUEST_SIZE",
                           "RESPONSE_SIZE",
                           "TRANSACTION_RATE",
                           "RT_LATENCY",
                           "LOCAL_BYTES_SENT",
                           "LOCAL_BYTES_RECVD",
                           "REMOTE_BYTES_SENT",
                           "REMOTE_BYTES_RECVD",
                           "LOCAL_SEND_CALLS",
                           "REMOTE_SEND_CALLS",
                           "LSS_SIZE",
                           "LSS_SIZE_REQ",
                           "LSS_SIZE_END",
                           "TRANSPORT_MSS",
                           "LOCAL_TRANSPORT_RETRANS",
                           "REMOTE_TRANSPORT_RETRANS",
                           "LOCAL_CONG_CONTROL",
                           "REMOTE_CONG_CONTROL",
                           "PROTOCOL",
                           "DIRECTION",
                           "SOURCE_ADDR",
                           "SOURCE_PORT",
                           "DEST_ADDR",
                           "DEST_PORT",
                           "COMMAND_LINE",
                           "UUID",
                           "RESULT_BRAND",
                           "LOCAL_FILL_FILE"})
    EXPECT_TRUE(find_omni_selector(name)) << name;
  EXPECT_EQ(find_omni_selector("throughput"), find_omni_selector("THROUGHPUT"));
  EXPECT_FALSE(find_omni_selector("THRUPUT"));
  std::string list = omni_selector_list(false);
  EXPECT_EQ(list.substr(0, 33), "OUTPUT_NONE\nSOCKET_TYPE\nPROTOCOL\n");
  EXPECT_EQ(std::count(list.begin(), list.end(), '\n'), 175);
  std::string csv = omni_selector_list(true);
  EXPECT_EQ(csv.substr(0, 33), "OUTPUT_NONE,SOCKET_TYPE,PROTOCOL,");
  EXPECT_EQ(csv.back(), '\n');
}

TEST(OmniSelectors, ParseLists) {
  std::string why;
  auto sel = parse_omni_selection("THROUGHPUT, THROUGHPUT_UNITS, MIN_LATENCY,MAX_LATENCY", &why);
  ASSERT_TRUE(sel) << why;
  ASSERT_EQ(sel->size(), 1u);
  EXPECT_EQ((*sel)[0].size(), 4u);
  EXPECT_EQ((*sel)[0][0], *find_omni_selector("THROUGHPUT"));
  sel = parse_omni_selection("mean_latency", &why);  // a single name
  ASSERT_TRUE(sel);
  EXPECT_EQ((*sel)[0][0], *find_omni_selector("MEAN_LATENCY"));
  sel = parse_omni_selection("THROUGHPUT;ELAPSED_TIME PROTOCOL;UUID;COMMAND_LINE;DIRECTION", &why);
  ASSERT_TRUE(sel);
  ASSERT_EQ(sel->size(), 4u);  // netperf prints at most four lines
  EXPECT_EQ((*sel)[1].size(), 2u);
  sel = parse_omni_selection("THROUGHPUT,OUTPUT_END,PROTOCOL", &why);
  ASSERT_TRUE(sel);
  EXPECT_EQ((*sel)[0].size(), 1u);  // OUTPUT_END ends the line
  EXPECT_FALSE(parse_omni_selection("THROUGHPUT,THRUPUT", &why));
  EXPECT_EQ(why, "'THRUPUT' is not a netperf output selector (`-O ?` lists them)");
  EXPECT_FALSE(parse_omni_selection("/no/such/file", &why));
  EXPECT_NE(why.find("neither a netperf output selector nor a readable file"), std::string::npos);
  sel = parse_omni_selection("all", &why);
  ASSERT_TRUE(sel);
  ASSERT_EQ(sel->size(), 4u);
  EXPECT_EQ((*sel)[0].front(), *find_omni_selector("SOCKET_TYPE"));
  EXPECT_EQ((*sel)[0].back(), *find_omni_selector("RESPONSE_SIZE"));
  EXPECT_EQ((*sel)[3].back(), *find_omni_selector("COMMAND_LINE"));
}

TEST(OmniSelectors, ParseAFile) {
  char path[] = "/tmp/omni_selection_XXXXXX";
  int fd = ::mkstemp(path);
  ASSERT_GE(fd, 0);
  ::close(fd);
  {
    std::ofstream f(path);
    f << "THROUGHPUT, Throughput Units\n"  // names or their header text
      << "mean_latency\n";
  }
  std::string why;
  auto sel = parse_omni_selection(path, &why);
  ASSERT_TRUE(sel) << why;
  ASSERT_EQ(sel->size(), 2u);
  EXPECT_EQ((*sel)[0], (std::vector<size_t>{*find_omni_selector("THROUGHPUT"),
                                            *find_omni_selector("THROUGHPUT_UNITS")}));
  EXPECT_EQ((*sel)[1], std::vector<size_t>{*find_omni_selector("MEAN_LATENCY")});
  {
    std::ofstream f(path);
    f << "THROUGHPUT,BOGUS\n";
  }
  EXPECT_FALSE(parse_omni_selection(path, &why));
  EXPECT_EQ(why, "'BOGUS' is not a netperf output selector (`-O ?` lists them)");
  std::remove(path);
}

TEST(OmniSelectors, Defaults) {
  auto names = [](const OmniSelection& s) {
    std::string out;
    for (size_t i : s.at(0)) out += std::string(omni_selectors()[i].name) + ",";
    return out;
  };
  EXPECT_EQ(names(default_omni_selection(OmniShape::kSend, false)),
            "LSS_SIZE_END,RSR_SIZE_END,LOCAL_SEND_SIZE,ELAPSED_TIME,THROUGHPUT,THROUGHPUT_UNITS,");
  EXPECT_EQ(names(default_omni_selection(OmniShape::kReceive, false)),
            "RSS_SIZE_END,LSR_SIZE_END,REMOTE_SEND_SIZE,ELAPSED_TIME,THROUGHPUT,THROUGHPUT_UNITS,");
  EXPECT_EQ(names(default_omni_selection(OmniShape::kRequestResponse, false)),
            "LSS_SIZE_END,LSR_SIZE_END,RSR_SIZE_END,RSS_SIZE_END,REQUEST_SIZE,RESPONSE_SIZE,"
            "ELAPSED_TIME,THROUGHPUT,THROUGHPUT_UNITS,");
  EXPECT_EQ(default_omni_selection(OmniShape::kSend, true)[0].size(), 6u + 17u);
}

OmniValues seed_values() {
  // The numbers of seed 000's omni example.
  OmniValues v;
  v.direction = "Send|Recv";
  v.throughput = 10130.16;
  v.units = "Trans";
  v.min_latency = 78;
  v.max_latency = 10821;
  v.mean_latency = 98.63;
  v.request_size = v.response_size = 64;
  v.stddev_latency = 86.38;
  return v;
}

const char* kSeedList =
    "THROUGHPUT, THROUGHPUT_UNITS, MIN_LATENCY,MAX_LATENCY, MEAN_LATENCY, REQUEST_SIZE, "
    "RESPONSE_SIZE,STDDEV_LATENCY";

TEST(OmniRender, HumanColumnsAsInSeed000) {
  auto sel = parse_omni_selection(kSeedList, nullptr);
  ASSERT_TRUE(sel);
  EXPECT_EQ(render_omni(OmniStyle::kHuman, *sel, seed_values(), true),
            "Throughput Throughput Minimum      Maximum      Mean         Request Response Stddev  "
            "     \n"
            "           Units      Latency      Latency      Latency      Size    Size     Latency "
            "     \n"
            "                      Microseconds Microseconds Microseconds Bytes   Bytes    "
            "Microseconds \n"
            "                                                                                      "
            "     \n"
            "10130.16   Trans/s    78           10821        98.63        64      64       86.38   "
            "     \n");
  EXPECT_EQ(render_omni(OmniStyle::kHuman, *sel, seed_values(), false),
            "10130.16   Trans/s    78           10821        98.63        64      64       86.38   "
            "     \n");
}

TEST(OmniRender, KeyvalAsInSeed000) {
  auto sel = parse_omni_selection(kSeedList, nullptr);
  ASSERT_TRUE(sel);
  EXPECT_EQ(render_omni(OmniStyle::kKeyval, *sel, seed_values(), true),
            "THROUGHPUT=10130.16\nTHROUGHPUT_UNITS=Trans/s\nMIN_LATENCY=78\nMAX_LATENCY=10821\n"
            "MEAN_LATENCY=98.63\nREQUEST_SIZE=64\nRESPONSE_SIZE=64\nSTDDEV_LATENCY=86.38\n");
}

TEST(OmniRender, Csv) {
  auto sel = parse_omni_selection("THROUGHPUT,THROUGHPUT_UNITS,LSS_SIZE_END", nullptr);
  ASSERT_TRUE(sel);
  OmniValues v = seed_values();
  EXPECT_EQ(render_omni(OmniStyle::kCsv, *sel, v, true),
            "Throughput,Throughput Units,Local Send Socket Size Final\n10130.16,Trans/s,-1\n");
  EXPECT_EQ(render_omni(OmniStyle::kCsv, *sel, v, false), "10130.16,Trans/s,-1\n");
  // No -B: RESULT_BRAND has no value; netperf leaves the field empty.
  sel = parse_omni_selection("RESULT_BRAND,PROTOCOL", nullptr);
  EXPECT_EQ(render_omni(OmniStyle::kCsv, *sel, v, true), "Result Tag,Protocol\n, TCP\n");
  EXPECT_EQ(render_omni(OmniStyle::kKeyval, *sel, v, true), "PROTOCOL=TCP\n");
  v.brand = "b1";
  EXPECT_EQ(render_omni(OmniStyle::kCsv, *sel, v, false), "\"b1\",TCP\n");
}

TEST(OmniRender, BlocksAreSeparatedByABlankLine) {
  auto sel = parse_omni_selection("PROTOCOL;DIRECTION", nullptr);
  ASSERT_TRUE(sel);
  EXPECT_EQ(render_omni(OmniStyle::kHuman, *sel, seed_values(), true),
            "Protocol \n         \n         \n         \nTCP      \n"
            "\n"
            "Direction  \n           \n           \n           \nSend|Recv  \n");
}

TEST(OmniValuesText, WhatNetperfPrintsWithoutAValue) {
  OmniValues v;
  auto value = [&](const char* name) { return *omni_value(*find_omni_selector(name), v); };
  EXPECT_EQ(value("MIN_LATENCY"), "-1");
  EXPECT_EQ(value("MEAN_LATENCY"), "-1.00");
  EXPECT_EQ(value("LOCAL_CPU_UTIL"), "-1.00");
  EXPECT_EQ(value("LOCAL_CPU_METHOD"), "U");
  EXPECT_EQ(value("LOCAL_SD"), "-1.000");
  EXPECT_EQ(value("CONFIDENCE_INTERVAL"), "-1.000000");
  EXPECT_EQ(value("TRANSACTION_RATE"), "1.000");
  EXPECT_EQ(value("RT_LATENCY"), "-1.000");
  EXPECT_EQ(value("TRANSPORT_MSS"), "-1");
  EXPECT_EQ(value("LOCAL_SOCKET_TOS"), "0xffffffff");
  EXPECT_EQ(value("LOCAL_INTERFACE_VENDOR"), "0xfffffffe");
  EXPECT_EQ(value("REMOTE_SYSNAME"), "Deprecated");
  EXPECT_EQ(value("LOCAL_CONG_CONTROL"), "");
  EXPECT_EQ(value("OUTPUT_NONE"), " ");
  EXPECT_FALSE(omni_value(*find_omni_selector("RESULT_BRAND"), v));
  EXPECT_FALSE(omni_value(*find_omni_selector("OUTPUT_END"), v));
  v.command_line = "netperf -t omni";
  EXPECT_EQ(value("COMMAND_LINE"), "\"netperf -t omni\"");
  v.local_bytes_sent = 1000;
  v.local_send_calls = 3;
  EXPECT_EQ(value("LOCAL_BYTES_PER_SEND"), "333.33");
  EXPECT_EQ(value("LOCAL_BYTES_XFERD"), "1000");
  EXPECT_EQ(value("THROUGHPUT_UNITS"), "10^6bits/s");
}

TEST(OmniValuesText, CpuSelectorsWithoutMeasurement) {
  // netperf without -c/-C (and for an end not measured): the local peak is
  // -1, the remote one 0 from netserver's zeroed reply.
  OmniValues v;
  auto value = [&](const char* name) { return *omni_value(*find_omni_selector(name), v); };
  for (const char* name : {"LOCAL_CPU_UTIL", "REMOTE_CPU_UTIL", "LOCAL_CPU_PEAK_UTIL"})
    EXPECT_EQ(value(name), "-1.00") << name;
  for (const char* name :
       {"LOCAL_CPU_PERCENT_USER", "LOCAL_CPU_PERCENT_SYSTEM", "LOCAL_CPU_PERCENT_IOWAIT",
        "LOCAL_CPU_PERCENT_IRQ", "LOCAL_CPU_PERCENT_SWINTR", "REMOTE_CPU_PERCENT_USER",
        "REMOTE_CPU_PERCENT_SYSTEM", "REMOTE_CPU_PERCENT_IOWAIT", "REMOTE_CPU_PERCENT_IRQ",
        "REMOTE_CPU_PERCENT_SWINTR", "REMOTE_CPU_PEAK_UTIL"})
    EXPECT_EQ(value(name), "0.00") << name;
  EXPECT_EQ(value("LOCAL_CPU_METHOD"), "U");
  EXPECT_EQ(value("REMOTE_CPU_METHOD"), "U");
  EXPECT_EQ(value("LOCAL_SD"), "-1.000");
  EXPECT_EQ(value("REMOTE_SD"), "-1.000");
  EXPECT_EQ(value("LOCAL_CPU_COUNT"), "0");
  EXPECT_EQ(value("REMOTE_CPU_COUNT"), "0");
  EXPECT_EQ(value("LOCAL_CPU_PEAK_ID"), "-1");
  EXPECT_EQ(value("REMOTE_CPU_PEAK_ID"), "0");
  EXPECT_EQ(value("LOCAL_CPU_MODEL"), "Deprecated");
  EXPECT_EQ(value("REMOTE_CPU_MODEL"), "Deprecated");
}

// ---- netperf's variables from a result ----------------------------------------------

TEST(NetperfValues, FromAStreamResult) {
  NetperfReportOptions o = options("OMNI Send TEST");
  o.lss_req = 32768;
  OmniValues v = netperf_values(result(TestKind::kTcpStream), o);
  EXPECT_EQ(v.socket_type, "Stream");
  EXPECT_EQ(v.protocol, "TCP");
  EXPECT_EQ(v.direction, "Send");
  EXPECT_DOUBLE_EQ(v.throughput, 1000);
  EXPECT_EQ(v.units, "10^6bits");
  EXPECT_EQ(v.lss_req, 32768);
  EXPECT_EQ(v.lss, 16384);
  EXPECT_EQ(v.lss_end, 16384);  // asked for: fixed for the whole test
  EXPECT_EQ(v.rsr_end, -1);     // autotuned: its final size was not read
  EXPECT_EQ(v.local_send_size, 16384);
  EXPECT_EQ(v.remote_recv_size, 131072);
  EXPECT_EQ(v.request_size, -1);
  EXPECT_EQ(v.local_bytes_sent, 1'250'000'000u);
  EXPECT_EQ(v.remote_bytes_recvd, 1'250'000'000u);
  EXPECT_DOUBLE_EQ(v.local_send_tput, 1000);
  EXPECT_FALSE(v.mean_latency);
  EXPECT_EQ(v.dest_addr, "127.0.0.1");
  EXPECT_EQ(v.uuid, "0f0e0d0c-0b0a-4908-8706-050403020100");
}

TEST(NetperfValues, FromAnRrResult) {
  NetperfReportOptions o = options("OMNI Send|Recv TEST");
  OmniValues v = netperf_values(result(TestKind::kUdpRr), o);
  EXPECT_EQ(v.socket_type, "Datagram");
  EXPECT_EQ(v.protocol, "UDP");
  EXPECT_EQ(v.direction, "Send|Recv");
  EXPECT_EQ(v.units, "Trans");
  EXPECT_DOUBLE_EQ(v.throughput, 10172.5);
  EXPECT_DOUBLE_EQ(v.transaction_rate, 10172.5);
  EXPECT_NEAR(v.rt_latency, 98.304, 0.001);
  EXPECT_EQ(v.sd_units, "usec/Tran");
  EXPECT_EQ(v.min_latency, 55);
  EXPECT_EQ(v.max_latency, 150);
  EXPECT_DOUBLE_EQ(*v.mean_latency, 102.5);
  EXPECT_NEAR(*v.stddev_latency, 47.5, 0.5);
  EXPECT_NEAR(*v.p50_latency, 55, 1);
  EXPECT_NEAR(*v.p99_latency, 150, 2);
  EXPECT_EQ(v.request_size, 1);
  EXPECT_EQ(v.local_cong_control, "TCP Only");
  o.direction = "Send|Recv";
  EXPECT_EQ(netperf_values(result(TestKind::kTcpCrr), o).direction, "Send|Recv");  // as asked
  o.direction.clear();
  EXPECT_EQ(netperf_values(result(TestKind::kTcpCrr), o).direction, "Connect|Send|Recv");
}

const char* kCpuSelectors =
    "LOCAL_CPU_UTIL,LOCAL_CPU_PERCENT_USER,LOCAL_CPU_PERCENT_SYSTEM,LOCAL_CPU_PERCENT_IOWAIT,"
    "LOCAL_CPU_PERCENT_IRQ,LOCAL_CPU_PERCENT_SWINTR,LOCAL_CPU_METHOD,LOCAL_SD,REMOTE_CPU_UTIL,"
    "REMOTE_CPU_PERCENT_USER,REMOTE_CPU_PERCENT_SYSTEM,REMOTE_CPU_PERCENT_IOWAIT,"
    "REMOTE_CPU_PERCENT_IRQ,REMOTE_CPU_PERCENT_SWINTR,REMOTE_CPU_METHOD,REMOTE_SD,SD_UNITS,"
    "LOCAL_CPU_COUNT,LOCAL_CPU_PEAK_UTIL,LOCAL_CPU_PEAK_ID,LOCAL_CPU_MODEL,REMOTE_CPU_COUNT,"
    "REMOTE_CPU_PEAK_UTIL,REMOTE_CPU_PEAK_ID,REMOTE_CPU_MODEL";

TEST(NetperfResult, CpuSelectorsWithBothEnds) {
  NetperfReportOptions o = options("OMNI Send TEST");
  o.local_cpu = o.remote_cpu = true;
  o.omni = OmniStyle::kKeyval;
  o.selection = *parse_omni_selection(kCpuSelectors, nullptr);
  EXPECT_EQ(netperf_result(measured(TestKind::kTcpStream), o),
            "LOCAL_CPU_UTIL=25.50\n"
            "LOCAL_CPU_PERCENT_USER=10.25\n"
            "LOCAL_CPU_PERCENT_SYSTEM=12.00\n"
            "LOCAL_CPU_PERCENT_IOWAIT=0.50\n"
            "LOCAL_CPU_PERCENT_IRQ=0.25\n"
            "LOCAL_CPU_PERCENT_SWINTR=3.00\n"
            "LOCAL_CPU_METHOD=S\n"
            "LOCAL_SD=8.356\n"
            "REMOTE_CPU_UTIL=50.00\n"
            "REMOTE_CPU_PERCENT_USER=20.00\n"
            "REMOTE_CPU_PERCENT_SYSTEM=25.00\n"
            "REMOTE_CPU_PERCENT_IOWAIT=0.00\n"
            "REMOTE_CPU_PERCENT_IRQ=1.00\n"
            "REMOTE_CPU_PERCENT_SWINTR=2.00\n"
            "REMOTE_CPU_METHOD=S\n"
            "REMOTE_SD=32.768\n"
            "SD_UNITS=usec/KB\n"
            "LOCAL_CPU_COUNT=4\n"
            "LOCAL_CPU_PEAK_UTIL=97.12\n"
            "LOCAL_CPU_PEAK_ID=3\n"
            "LOCAL_CPU_MODEL=Deprecated\n"
            "REMOTE_CPU_COUNT=8\n"
            "REMOTE_CPU_PEAK_UTIL=88.50\n"
            "REMOTE_CPU_PEAK_ID=1\n"
            "REMOTE_CPU_MODEL=Deprecated\n");
}

TEST(NetperfResult, CpuSelectorsOnlyForTheEndsAskedFor) {
  NetperfReportOptions o = options("OMNI Send|Recv TEST");
  o.omni = OmniStyle::kCsv;
  o.selection = *parse_omni_selection(
      "LOCAL_CPU_UTIL,LOCAL_CPU_METHOD,LOCAL_SD,LOCAL_CPU_COUNT,LOCAL_CPU_PEAK_ID,REMOTE_CPU_UTIL,"
      "REMOTE_CPU_METHOD,REMOTE_SD,REMOTE_CPU_COUNT,REMOTE_CPU_PEAK_ID,SD_UNITS",
      nullptr);
  o.headers = false;
  // Measured, but neither -c nor -C: netperf fills nothing.
  EXPECT_EQ(netperf_result(measured(TestKind::kTcpRr), o),
            "-1.00,U,-1.000,0,-1,-1.00,U,-1.000,0,0,usec/Tran\n");
  o.remote_cpu = true;
  EXPECT_EQ(netperf_result(measured(TestKind::kTcpRr), o),
            "-1.00,U,-1.000,0,-1,50.00,S,393.217,8,1,usec/Tran\n");
  o.local_cpu = true;
  EXPECT_EQ(netperf_result(measured(TestKind::kTcpRr), o),
            "25.50,S,100.270,4,3,50.00,S,393.217,8,1,usec/Tran\n");
}

TEST(NetperfResult, OmniDefaultColumnsWithCpu) {
  NetperfReportOptions o = options("OMNI Send TEST");
  o.omni = OmniStyle::kCsv;
  o.local_cpu = o.remote_cpu = true;
  EXPECT_EQ(netperf_result(measured(TestKind::kTcpStream), o),
            "Local Send Socket Size Final,Remote Recv Socket Size Final,Local Send Size,Elapsed "
            "Time (sec),Throughput,Throughput Units,Local CPU Util %,Local CPU User %,Local CPU "
            "System %,Local CPU I/O %,Local CPU IRQ %,Local CPU swintr %,Local CPU Util "
            "Method,Remote CPU Util %,Remote CPU User %,Remote CPU System %,Remote CPU I/O "
            "%,Remote CPU IRQ %,Remote CPU swintr %,Remote CPU Util Method,Local Service "
            "Demand,Remote Service Demand,Service Demand Units\n"
            "-1,-1,16384,10.00,1000.00,10^6bits/s,25.50,10.25,12.00,0.50,0.25,3.00,S,50.00,20.00,"
            "25.00,0.00,1.00,2.00,S,8.356,32.768,usec/KB\n");
}

TEST(NetperfResult, OmniDefaultColumns) {
  NetperfReportOptions o = options("OMNI Send TEST");
  o.omni = OmniStyle::kHuman;
  EXPECT_EQ(netperf_result(result(TestKind::kTcpStream), o),
            "Local       Remote      Local  Elapsed Throughput Throughput  \n"
            "Send Socket Recv Socket Send   Time               Units       \n"
            "Size        Size        Size   (sec)                          \n"
            "Final       Final                                             \n"
            "-1          -1          16384  10.00   1000.00    10^6bits/s  \n");
  o.omni = OmniStyle::kKeyval;
  o.selection = *parse_omni_selection("THROUGHPUT,UUID", nullptr);
  EXPECT_EQ(netperf_result(result(TestKind::kTcpStream), o),
            "THROUGHPUT=1000.00\nUUID=0f0e0d0c-0b0a-4908-8706-050403020100\n");
}

}  // namespace
}  // namespace flowperf::report
