// Unit tests for report/qperf_report: golden text for synthetic results, in
// qperf's exact shape (several taken from the user's own qperf output in the
// seed), number formatting, unit scaling, the verbosity classes, CPU use and
// costs, conf rows and qperf's CPU description.
#include "report/qperf_report.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace flowperf::report {
namespace {

using Kind = QperfParam::Kind;

results::TestResult StreamResult(spec::TestKind kind, uint32_t msg, double seconds, uint64_t sent,
                                 uint64_t received) {
  results::TestResult r;
  r.spec.test = kind;
  r.spec.send_size = r.spec.recv_size = msg;
  r.spec.duration_s = seconds;
  results::FlowResult loc, rem;
  loc.elapsed_s = rem.elapsed_s = seconds;
  if (kind == spec::TestKind::kTcpMaerts) {
    rem.bytes_sent = sent;
    loc.bytes_recv = received;
  } else {
    loc.bytes_sent = sent;
    rem.bytes_recv = received;
  }
  if (kind == spec::TestKind::kUdpStream) {
    loc.datagrams_sent = sent / msg;
    rem.datagrams_recv = received / msg;
  }
  r.local_side.elapsed_s = r.remote_side.elapsed_s = seconds;
  r.local_side.flows = {loc};
  r.remote_side.flows = {rem};
  r.have_remote = true;
  return r;
}

results::TestResult RrResult(spec::TestKind kind, uint32_t msg, double seconds,
                             uint64_t transactions, uint64_t rtt_ns) {
  results::TestResult r;
  r.spec.test = kind;
  r.spec.request_size = r.spec.response_size = msg;
  r.spec.duration_s = seconds;
  results::FlowResult f;
  f.elapsed_s = seconds;
  f.transactions = transactions;
  f.bytes_sent = f.bytes_recv = transactions * msg;
  measure::Histogram h;
  h.record_n(rtt_ns, transactions);
  f.latency = h;
  r.local_side.elapsed_s = seconds;
  r.local_side.flows = {f};
  r.local_side.latency = h;
  results::FlowResult server = f;
  server.latency.reset();
  r.remote_side.elapsed_s = seconds;
  r.remote_side.flows = {server};
  r.have_remote = true;
  return r;
}

QperfParam Param(const std::string& name, Kind kind, double value, bool set) {
  QperfParam p;
  p.name = name;
  p.kind = kind;
  p.loc = p.rem = value;
  p.set = set;
  return p;
}

// The parameters a socket test uses, as the parser hands them over.
std::vector<QperfParam> Used(double msg, bool msg_set, double time, bool time_set) {
  return {
      Param("affinity", Kind::kText, 0, false),      Param("msg_size", Kind::kSize, msg, msg_set),
      Param("no_msgs", Kind::kCount, 0, false),      Param("port", Kind::kCount, 0, false),
      Param("sock_buf_size", Kind::kSize, 0, false), Param("time", Kind::kTime, time, time_set),
      Param("timeout", Kind::kTime, 5, false)};
}

QperfDisplay Verbose(int conf, int stat, int time, int used) {
  QperfDisplay d;
  d.verbose = {conf, stat, time, used};
  return d;
}

std::string Text(const results::TestResult& r, const std::vector<QperfParam>& used,
                 const QperfDisplay& d) {
  return qperf_rows_text(qperf_test_rows(r, used, d));
}

// ---- numbers ---------------------------------------------------------------------

TEST(QperfNumber, ThreeSignificantDigitsAndCommas) {
  EXPECT_EQ(qperf_number(57.23, 3), "57.2");
  EXPECT_EQ(qperf_number(2.0, 3), "2");
  EXPECT_EQ(qperf_number(10, 3), "10");
  EXPECT_EQ(qperf_number(941.4, 3), "941");
  EXPECT_EQ(qperf_number(1.0149, 3), "1.01");
  EXPECT_EQ(qperf_number(18019, 3), "18,019");
  EXPECT_EQ(qperf_number(1234567.8, 3), "1,234,568");
  EXPECT_EQ(qperf_number(999.96, 3), "1,000");
  EXPECT_EQ(qperf_number(100, 3), "100");
  EXPECT_EQ(qperf_number(0, 3), "0");
}

TEST(QperfNumber, PrecisionAndNoCommas) {
  EXPECT_EQ(qperf_number(57.2345, 5), "57.235");
  EXPECT_EQ(qperf_number(57.2345, 1), "57");
  EXPECT_EQ(qperf_number(18019, 3, false), "18019");
  EXPECT_EQ(qperf_number(-1234.5, 4), "-1,235");
}

// ---- alignment --------------------------------------------------------------------

TEST(QperfRows, NamesPaddedNumbersRightAlignedTextLeftAlone) {
  std::vector<QperfRow> rows = {{"latency", "57.2", "us", ""},
                                {"msg_size", "1", "bytes", ""},
                                {"loc_node", "some-host-name", std::nullopt, ""},
                                {"size", "64", "KiB", "65,536"}};
  EXPECT_EQ(qperf_rows_text(rows),
            "    latency   =  57.2 us\n"
            "    msg_size  =     1 bytes\n"
            "    loc_node  =  some-host-name\n"
            "    size      =    64 KiB (65,536)\n");
  EXPECT_EQ(qperf_rows_text({}), "");
}

// ---- golden blocks from the seed --------------------------------------------------

TEST(QperfGolden, SeedTcpLatWithVvu) {
  // qperf 192.168.0.8 -t 10 -vvu tcp_lat: 57.2 us one way is a 114.4 us round trip.
  auto r = RrResult(spec::TestKind::kTcpRr, 1, 10, 87412, 114400);
  EXPECT_EQ(Text(r, Used(1, false, 10, true), Verbose(0, 0, 0, 2)),
            "    latency   =  57.2 us\n"
            "    msg_size  =     1 bytes\n"
            "    time      =    10 sec\n"
            "    timeout   =     5 sec\n");
}

TEST(QperfGolden, SeedLoopRowsWithVu) {
  // qperf 192.168.0.8 -oo msg_size:1:64K:*2 -vu tcp_bw tcp_lat
  auto r = StreamResult(spec::TestKind::kTcpStream, 1, 2, 4'340'000, 4'340'000);
  EXPECT_EQ(Text(r, Used(1, true, 2, false), Verbose(0, 0, 0, 1)),
            "    bw        =  2.17 MB/sec\n"
            "    msg_size  =     1 bytes\n");
  r = StreamResult(spec::TestKind::kTcpStream, 1024, 2, 1'882'000'000, 1'882'000'000);
  EXPECT_EQ(Text(r, Used(1024, true, 2, false), Verbose(0, 0, 0, 1)),
            "    bw        =  941 MB/sec\n"
            "    msg_size  =    1 KiB (1,024)\n");
  r = StreamResult(spec::TestKind::kTcpStream, 8192, 2, 2'020'000'000, 2'020'000'000);
  EXPECT_EQ(Text(r, Used(8192, true, 2, false), Verbose(0, 0, 0, 1)),
            "    bw        =  1.01 GB/sec\n"
            "    msg_size  =     8 KiB (8,192)\n");
  r = RrResult(spec::TestKind::kTcpRr, 65536, 2, 3195, 626000);
  EXPECT_EQ(Text(r, Used(65536, true, 2, false), Verbose(0, 0, 0, 1)),
            "    latency   =  313 us\n"
            "    msg_size  =   64 KiB (65,536)\n");
}

TEST(QperfGolden, SeedConf) {
  QperfHost loc{"performance-north-south-000-0003", "8 Cores: Intel Xeon Gold 6161 @ 2.20GHz",
                "Linux 3.10.0-514.10.2.el7.x86_64", "0.4.9"};
  QperfHost rem{"performance-north-south-000-0001.novalocal",
                "8 Cores: Intel Xeon Gold 6161 @ 2.20GHz", "Linux 3.10.0-514.10.2.el7.x86_64",
                "0.4.9"};
  EXPECT_EQ(qperf_rows_text(qperf_conf_rows(loc, rem)),
            "    loc_node   =  performance-north-south-000-0003\n"
            "    loc_cpu    =  8 Cores: Intel Xeon Gold 6161 @ 2.20GHz\n"
            "    loc_os     =  Linux 3.10.0-514.10.2.el7.x86_64\n"
            "    loc_qperf  =  0.4.9\n"
            "    rem_node   =  performance-north-south-000-0001.novalocal\n"
            "    rem_cpu    =  8 Cores: Intel Xeon Gold 6161 @ 2.20GHz\n"
            "    rem_os     =  Linux 3.10.0-514.10.2.el7.x86_64\n"
            "    rem_qperf  =  0.4.9\n");
}

// ---- default output of each test ------------------------------------------------------

TEST(QperfGolden, DefaultRowsOfEachTest) {
  const auto used = Used(65536, false, 2, false);
  const QperfDisplay plain;
  EXPECT_EQ(Text(StreamResult(spec::TestKind::kTcpStream, 65536, 2, 2e9, 2e9), used, plain),
            "    bw  =  1 GB/sec\n");
  EXPECT_EQ(Text(RrResult(spec::TestKind::kTcpRr, 1, 2, 1000, 8220), used, plain),
            "    latency  =  4.11 us\n");
  EXPECT_EQ(Text(StreamResult(spec::TestKind::kUdpStream, 32768, 2, 2'000'000'000, 1'500'000'000),
                 used, plain),
            "    send_bw  =    1 GB/sec\n"
            "    recv_bw  =  750 MB/sec\n");
  EXPECT_EQ(Text(RrResult(spec::TestKind::kUdpRr, 1, 2, 1000, 6080), used, plain),
            "    latency  =  3.04 us\n");
  // Flipped tcp_bw: the server sends, the client counts.
  EXPECT_EQ(Text(StreamResult(spec::TestKind::kTcpMaerts, 65536, 2, 3.36e9, 3.36e9), used, plain),
            "    bw  =  1.68 GB/sec\n");
}

// ---- verbosity classes --------------------------------------------------------------

TEST(QperfVerbose, StatAddsMessageRate) {
  auto bw = StreamResult(spec::TestKind::kTcpStream, 65536, 1, 65536ull * 28600, 65536ull * 28600);
  EXPECT_EQ(Text(bw, Used(65536, false, 1, true), Verbose(1, 1, 1, 1)),
            "    bw        =  1.87 GB/sec\n"
            "    msg_rate  =  28.6 K/sec\n"
            "    time      =     1 sec\n");
  // Latency: both ends' received messages per second.
  auto lat = RrResult(spec::TestKind::kTcpRr, 1, 1, 97000, 10300);
  EXPECT_EQ(Text(lat, Used(1, false, 1, true), Verbose(0, 1, 0, 0)),
            "    latency   =  5.15 us\n"
            "    msg_rate  =   194 K/sec\n");
  // udp_bw: datagrams received per second.
  auto udp =
      StreamResult(spec::TestKind::kUdpStream, 32768, 1, 32768ull * 214000, 32768ull * 74300);
  EXPECT_EQ(Text(udp, Used(32768, false, 1, false), Verbose(0, 1, 0, 0)),
            "    send_bw   =  7.01 GB/sec\n"
            "    recv_bw   =  2.43 GB/sec\n"
            "    msg_rate  =  74.3 K/sec\n");
}

TEST(QperfVerbose, TimeWithoutCpuFiguresAddsNothing) {
  // -vt shows CPU use and costs; ends whose CPU was not measured have none,
  // and qperf leaves out rows without a value.
  auto bw = StreamResult(spec::TestKind::kTcpStream, 65536, 1, 1e9, 1e9);
  EXPECT_EQ(Text(bw, Used(65536, false, 1, false), Verbose(0, 0, 1, 0)), "    bw  =  1 GB/sec\n");
}

TEST(QperfVerbose, MoreOfEverythingOnABandwidthTest) {
  auto r = StreamResult(spec::TestKind::kTcpStream, 65536, 1, 65536ull * 18019, 65536ull * 18019);
  EXPECT_EQ(Text(r, Used(65536, false, 1, true), Verbose(2, 2, 2, 2)),
            "    bw              =    1.18 GB/sec\n"
            "    msg_rate        =      18 K/sec\n"
            "    msg_size        =      64 KiB (65,536)\n"
            "    time            =       1 sec\n"
            "    timeout         =       5 sec\n"
            "    send_real_time  =       1 sec\n"
            "    send_bytes      =    1.18 GB\n"
            "    send_msgs       =  18,019 \n"
            "    recv_real_time  =       1 sec\n"
            "    recv_bytes      =    1.18 GB\n"
            "    recv_msgs       =  18,019 \n");
}

TEST(QperfVerbose, FlippedSenderIsTheServer) {
  auto r = StreamResult(spec::TestKind::kTcpMaerts, 1000, 2, 5000, 4000);
  r.remote_side.elapsed_s = 2.5;
  EXPECT_EQ(Text(r, {}, Verbose(0, 2, 2, 0)),
            "    bw              =    2 KB/sec\n"
            "    msg_rate        =    2 /sec\n"
            "    send_real_time  =  2.5 sec\n"
            "    send_bytes      =    5 KB\n"
            "    send_msgs       =    5 \n"
            "    recv_real_time  =    2 sec\n"
            "    recv_bytes      =    4 KB\n"
            "    recv_msgs       =    4 \n");
}

TEST(QperfVerbose, MoreStatOnALatencyTestShowsBothEnds) {
  auto r = RrResult(spec::TestKind::kUdpRr, 1, 1, 111473, 8980);
  EXPECT_EQ(Text(r, Used(1, false, 1, false), Verbose(0, 2, 0, 0)),
            "    latency         =     4.49 us\n"
            "    msg_rate        =      223 K/sec\n"
            "    loc_send_bytes  =      111 KB\n"
            "    loc_recv_bytes  =      111 KB\n"
            "    loc_send_msgs   =  111,473 \n"
            "    loc_recv_msgs   =  111,473 \n"
            "    rem_send_bytes  =      111 KB\n"
            "    rem_recv_bytes  =      111 KB\n"
            "    rem_send_msgs   =  111,473 \n"
            "    rem_recv_msgs   =  111,473 \n");
}

TEST(QperfVerbose, UnifyNodesUsesLocAndRemOnABandwidthTest) {
  auto r = StreamResult(spec::TestKind::kTcpStream, 1000, 1, 3000, 3000);
  QperfDisplay d = Verbose(0, 2, 0, 0);
  d.unify_nodes = true;
  EXPECT_EQ(Text(r, {}, d),
            "    bw              =  3 KB/sec\n"
            "    msg_rate        =  3 /sec\n"
            "    loc_send_bytes  =  3 KB\n"
            "    loc_send_msgs   =  3 \n"
            "    rem_recv_bytes  =  3 KB\n"
            "    rem_recv_msgs   =  3 \n");
}

TEST(QperfVerbose, UsedShowsOnlySetValuesAndLocRemWhenTheyDiffer) {
  auto r = StreamResult(spec::TestKind::kTcpStream, 65536, 2, 2e9, 2e9);
  std::vector<QperfParam> used = Used(65536, false, 2, false);
  used[4].rem = 131072;  // sock_buf_size, remote only
  used[4].set = true;
  used[0].loc_text = "1";  // affinity
  used[0].set = true;
  EXPECT_EQ(Text(r, used, Verbose(0, 0, 0, 1)),
            "    bw                 =    1 GB/sec\n"
            "    loc_affinity       =  1\n"
            "    rem_sock_buf_size  =  128 KiB (131,072)\n");
}

TEST(QperfVerbose, MissingServerResultsHideTheServersCounts) {
  auto r = StreamResult(spec::TestKind::kTcpStream, 1000, 1, 5000, 5000);
  r.have_remote = false;
  r.remote_side = {};
  EXPECT_EQ(Text(r, {}, Verbose(0, 2, 2, 0)),
            "    bw              =  5 KB/sec\n"
            "    msg_rate        =  5 /sec\n"
            "    send_real_time  =  1 sec\n"
            "    send_bytes      =  5 KB\n"
            "    send_msgs       =  5 \n");
}

// ---- CPU use and costs ----------------------------------------------------------

measure::CpuUsage Usage(unsigned cpus, double user, double system, double irq, double softirq,
                        double steal, double iowait, double seconds) {
  measure::CpuUsage u;
  u.num_cpus = cpus;
  u.user = user;
  u.system = system;
  u.irq = irq;
  u.softirq = softirq;
  u.iowait = iowait;
  u.util = user + system + irq + softirq + steal;
  u.elapsed_s = seconds;
  return u;
}

// The client: both of its 2 CPUs busy (200 % cpus: 165 user, 14 intr, 21
// kernel with steal), 2 CPU seconds in 1 s. The server: 4 CPUs, 40 % busy
// plus 2.5 % iowait (170 % cpus), 1.7 CPU seconds.
void Measure(results::TestResult& r) {
  r.local_side.cpu = Usage(2, 82.5, 10, 1, 6, 0.5, 0, 1);
  r.remote_side.cpu = Usage(4, 25, 10, 2, 3, 0, 2.5, 1);
}

TEST(QperfCpu, TimeShowsCostsAndCpusUsedOnABandwidthTest) {
  auto r = StreamResult(spec::TestKind::kTcpStream, 65536, 1, 65536ull * 18019, 65536ull * 18019);
  Measure(r);
  // send_cost: 2 CPU seconds over 1.18 GB sent; recv_cost: 1.7 over 1.18 GB received.
  EXPECT_EQ(Text(r, Used(65536, false, 1, false), Verbose(0, 0, 1, 0)),
            "    bw              =  1.18 GB/sec\n"
            "    send_cost       =  1.69 sec/GB\n"
            "    recv_cost       =  1.44 sec/GB\n"
            "    send_cpus_used  =   200 % cpus\n"
            "    recv_cpus_used  =   170 % cpus\n");
  // -v: the message rate and the parameters set come first, as in qperf.
  EXPECT_EQ(Text(r, Used(65536, false, 1, true), Verbose(1, 1, 1, 1)),
            "    bw              =  1.18 GB/sec\n"
            "    msg_rate        =    18 K/sec\n"
            "    time            =     1 sec\n"
            "    send_cost       =  1.69 sec/GB\n"
            "    recv_cost       =  1.44 sec/GB\n"
            "    send_cpus_used  =   200 % cpus\n"
            "    recv_cpus_used  =   170 % cpus\n");
}

TEST(QperfCpu, MoreOfEverythingOnABandwidthTest) {
  auto r = StreamResult(spec::TestKind::kTcpStream, 65536, 1, 65536ull * 18019, 65536ull * 18019);
  Measure(r);
  EXPECT_EQ(Text(r, Used(65536, false, 1, true), Verbose(2, 2, 2, 2)),
            "    bw                =    1.18 GB/sec\n"
            "    msg_rate          =      18 K/sec\n"
            "    msg_size          =      64 KiB (65,536)\n"
            "    time              =       1 sec\n"
            "    timeout           =       5 sec\n"
            "    send_cost         =    1.69 sec/GB\n"
            "    recv_cost         =    1.44 sec/GB\n"
            "    send_cpus_used    =     200 % cpus\n"
            "    send_cpus_user    =     165 % cpus\n"
            "    send_cpus_intr    =      14 % cpus\n"
            "    send_cpus_kernel  =      21 % cpus\n"
            "    send_real_time    =       1 sec\n"
            "    send_cpu_time     =       2 sec\n"
            "    send_bytes        =    1.18 GB\n"
            "    send_msgs         =  18,019 \n"
            "    recv_cpus_used    =     170 % cpus\n"
            "    recv_cpus_user    =     100 % cpus\n"
            "    recv_cpus_intr    =      20 % cpus\n"
            "    recv_cpus_kernel  =      40 % cpus\n"
            "    recv_cpus_iowait  =      10 % cpus\n"
            "    recv_real_time    =       1 sec\n"
            "    recv_cpu_time     =     1.7 sec\n"
            "    recv_bytes        =    1.18 GB\n"
            "    recv_msgs         =  18,019 \n");
}

TEST(QperfCpu, LatencyTestsHaveNoCosts) {
  // Both ends send and receive: qperf shows no cost, and loc_/rem_ CPU rows.
  auto r = RrResult(spec::TestKind::kTcpRr, 1, 1, 97000, 10300);
  Measure(r);
  EXPECT_EQ(Text(r, Used(1, false, 1, true), Verbose(1, 1, 1, 1)),
            "    latency        =  5.15 us\n"
            "    msg_rate       =   194 K/sec\n"
            "    time           =     1 sec\n"
            "    loc_cpus_used  =   200 % cpus\n"
            "    rem_cpus_used  =   170 % cpus\n");
  EXPECT_EQ(Text(r, {}, Verbose(0, 0, 2, 0)),
            "    latency          =  5.15 us\n"
            "    loc_cpus_used    =   200 % cpus\n"
            "    loc_cpus_user    =   165 % cpus\n"
            "    loc_cpus_intr    =    14 % cpus\n"
            "    loc_cpus_kernel  =    21 % cpus\n"
            "    loc_real_time    =     1 sec\n"
            "    loc_cpu_time     =     2 sec\n"
            "    rem_cpus_used    =   170 % cpus\n"
            "    rem_cpus_user    =   100 % cpus\n"
            "    rem_cpus_intr    =    20 % cpus\n"
            "    rem_cpus_kernel  =    40 % cpus\n"
            "    rem_cpus_iowait  =    10 % cpus\n"
            "    rem_real_time    =     1 sec\n"
            "    rem_cpu_time     =   1.7 sec\n");
}

TEST(QperfCpu, FlippedCostsComeFromTheServerSending) {
  auto r = StreamResult(spec::TestKind::kTcpMaerts, 65536, 1, 2'000'000'000, 2'000'000'000);
  Measure(r);
  // The server sent 2 GB on 1.7 CPU seconds; the client received them on 2.
  EXPECT_EQ(Text(r, {}, Verbose(0, 0, 1, 0)),
            "    bw              =    2 GB/sec\n"
            "    send_cost       =  850 ms/GB\n"
            "    recv_cost       =    1 sec/GB\n"
            "    send_cpus_used  =  170 % cpus\n"
            "    recv_cpus_used  =  200 % cpus\n");
}

TEST(QperfCpu, UdpCostsPerByteSentAndPerByteReceived) {
  auto r = StreamResult(spec::TestKind::kUdpStream, 32768, 1, 8'000'000'000, 500'000'000);
  Measure(r);
  EXPECT_EQ(Text(r, {}, Verbose(0, 0, 1, 0)),
            "    send_bw         =    8 GB/sec\n"
            "    recv_bw         =  500 MB/sec\n"
            "    send_cost       =  250 ms/GB\n"
            "    recv_cost       =  3.4 sec/GB\n"
            "    send_cpus_used  =  200 % cpus\n"
            "    recv_cpus_used  =  170 % cpus\n");
  // -uu: base units (ns/GB), no commas.
  QperfDisplay d = Verbose(0, 0, 1, 0);
  d.unify_units = true;
  EXPECT_EQ(Text(r, {}, d),
            "    send_bw         =  8000000000 bytes/sec\n"
            "    recv_bw         =   500000000 bytes/sec\n"
            "    send_cost       =   250000000 ns/GB\n"
            "    recv_cost       =  3400000000 ns/GB\n"
            "    send_cpus_used  =         200 % cpus\n"
            "    recv_cpus_used  =         170 % cpus\n");
}

TEST(QperfCpu, AnEndNotMeasuredHasNoRows) {
  auto r = StreamResult(spec::TestKind::kTcpStream, 65536, 1, 1e9, 1e9);
  Measure(r);
  r.remote_side.cpu.reset();
  EXPECT_EQ(Text(r, {}, Verbose(0, 0, 1, 0)),
            "    bw              =    1 GB/sec\n"
            "    send_cost       =    2 sec/GB\n"
            "    send_cpus_used  =  200 % cpus\n");
  r.have_remote = false;  // no server results at all
  r.remote_side = {};
  EXPECT_EQ(Text(r, {}, Verbose(0, 0, 1, 0)),
            "    bw              =    1 GB/sec\n"
            "    send_cost       =    2 sec/GB\n"
            "    send_cpus_used  =  200 % cpus\n");
}

TEST(QperfCpu, FractionsKeepThreeDigits) {
  auto r = RrResult(spec::TestKind::kUdpRr, 1, 2, 1000, 6080);
  r.local_side.cpu = Usage(8, 1.0, 0.25, 0.05, 0.1, 0, 0, 2);  // 11.2 % of one CPU
  EXPECT_EQ(Text(r, {}, Verbose(0, 0, 2, 0)),
            "    latency          =  3.04 us\n"
            "    loc_cpus_used    =  11.2 % cpus\n"
            "    loc_cpus_user    =     8 % cpus\n"
            "    loc_cpus_intr    =   1.2 % cpus\n"
            "    loc_cpus_kernel  =     2 % cpus\n"
            "    loc_real_time    =     2 sec\n"
            "    loc_cpu_time     =   224 ms\n"
            "    rem_real_time    =     2 sec\n");  // the server's CPU was not measured
}

// ---- units -----------------------------------------------------------------------

TEST(QperfUnits, BandwidthScalesByThousands) {
  const QperfDisplay d;
  auto rows = [&](double bytes_per_s) {
    return qperf_test_rows(
        StreamResult(spec::TestKind::kTcpStream, 1000, 1, static_cast<uint64_t>(bytes_per_s),
                     static_cast<uint64_t>(bytes_per_s)),
        {}, d)[0];
  };
  EXPECT_EQ(rows(999).unit, "bytes/sec");
  EXPECT_EQ(rows(1000).unit, "KB/sec");
  EXPECT_EQ(rows(1000).data, "1");
  EXPECT_EQ(rows(1024).data, "1.02");
  EXPECT_EQ(rows(2.5e6).unit, "MB/sec");
  EXPECT_EQ(rows(2.5e9).unit, "GB/sec");
  EXPECT_EQ(rows(2.5e12).unit, "TB/sec");
  EXPECT_EQ(rows(2.5e15).data, "2,500");
}

TEST(QperfUnits, BitsPerSecond) {
  QperfDisplay d;
  d.bits_per_sec = true;
  auto r = StreamResult(spec::TestKind::kTcpStream, 65536, 1, 1181000000, 1181000000);
  EXPECT_EQ(Text(r, {}, d), "    bw  =  9.45 Gb/sec\n");
}

TEST(QperfUnits, UnifyUnitsKeepsBaseUnitsWithoutCommas) {
  QperfDisplay d = Verbose(0, 0, 0, 2);
  d.unify_units = true;
  auto r = RrResult(spec::TestKind::kTcpRr, 65536, 2, 1000, 8220);
  EXPECT_EQ(Text(r, Used(65536, false, 2, false), d),
            "    latency   =        4110 ns\n"
            "    msg_size  =       65536 bytes\n"
            "    time      =  2000000000 ns\n"
            "    timeout   =  5000000000 ns\n");
}

TEST(QperfUnits, LatencyUnits) {
  const QperfDisplay d;
  auto latency = [&](uint64_t rtt_ns) {
    return qperf_test_rows(RrResult(spec::TestKind::kTcpRr, 1, 1, 10, rtt_ns), {}, d)[0];
  };
  EXPECT_EQ(latency(1000).data + " " + *latency(1000).unit, "500 ns");
  EXPECT_EQ(latency(20000).data + " " + *latency(20000).unit, "10 us");
  EXPECT_EQ(latency(5'000'000).data + " " + *latency(5'000'000).unit, "2.5 ms");
  EXPECT_EQ(latency(20'000'000'000).data + " " + *latency(20'000'000'000).unit, "10 sec");
}

TEST(QperfUnits, SizesBinaryWhenWholeOtherwiseDecimal) {
  const auto d = Verbose(0, 0, 0, 2);
  auto size_row = [&](double bytes) {
    auto rows = qperf_test_rows(StreamResult(spec::TestKind::kTcpStream, 1000, 1, 1000, 1000),
                                {Param("msg_size", Kind::kSize, bytes, true)}, d);
    return rows[1].data + " " + *rows[1].unit +
           (rows[1].alt.empty() ? "" : " (" + rows[1].alt + ")");
  };
  EXPECT_EQ(size_row(512), "512 bytes");
  EXPECT_EQ(size_row(1000), "1 KB");
  EXPECT_EQ(size_row(1024), "1 KiB (1,024)");
  EXPECT_EQ(size_row(1536), "1.54 KB");
  EXPECT_EQ(size_row(65536), "64 KiB (65,536)");
  EXPECT_EQ(size_row(1536.0 * 1024), "1.57 MB");
  EXPECT_EQ(size_row(2.0 * 1024 * 1024), "2 MiB (2,097,152)");
  EXPECT_EQ(size_row(1024.0 * 1024 * 1024), "1 GiB (1,073,741,824)");
}

TEST(QperfUnits, LargeCountsInWords) {
  auto r = RrResult(spec::TestKind::kTcpRr, 1, 1, 1234567, 800);
  const auto rows = qperf_test_rows(r, {}, Verbose(0, 2, 0, 0));
  ASSERT_GE(rows.size(), 5u);
  EXPECT_EQ(rows[4].name, "loc_send_msgs");
  EXPECT_EQ(rows[4].data, "1.23");
  EXPECT_EQ(rows[4].unit, "million");
}

// ---- conf --------------------------------------------------------------------------

TEST(QperfCpu, QperfsDescription) {
  EXPECT_EQ(qperf_cpu_text(8, "Intel(R) Xeon(R) Gold 6161 CPU @ 2.20GHz", 2200.0),
            "8 Cores: Intel Xeon Gold 6161 @ 2.20GHz");
  EXPECT_EQ(qperf_cpu_text(2, "Intel(R) Xeon(R) Processor", 2599.998),
            "2 Cores: Intel Xeon Processor 2.6GHz");
  EXPECT_EQ(qperf_cpu_text(1, "Intel(R) Core(TM) i7-8650U CPU @ 1.90GHz", 2112.0),
            "Intel Core i7-8650U @ 1.90GHz");
  EXPECT_EQ(qperf_cpu_text(64, "AMD EPYC 7763 64-Core Processor", 2450.0),
            "64 Cores: AMD EPYC 7763 64-Core Processor 2.5GHz");
  EXPECT_EQ(qperf_cpu_text(4, "QEMU Virtual CPU version 2.5+", 800.5),
            "4 Cores: QEMU Virtual version 2.5+ 800MHz");
  EXPECT_EQ(qperf_cpu_text(4, "Some  Spaced   Chip", 0), "4 Cores: Some Spaced Chip");
  EXPECT_EQ(qperf_cpu_text(2, "", 0), "2 Cores: ");
}

}  // namespace
}  // namespace flowperf::report
