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

#include "netperf_report_fixtures.h"
#include "report/omni_selectors.h"

namespace flowperf::report {
namespace {

using namespace testing;
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

// One sample printed as a whole interval, as NetperfDemo passes it on when due.
std::string interim(const spec::TestSpec& s, const results::IntervalSample& iv,
                    const NetperfReportOptions& o, int index,
                    std::chrono::system_clock::time_point at) {
  return netperf_interim(s, {iv.end_s - iv.start_s, netperf_interim_work(s, iv, o)}, o, index, at);
}

TEST(NetperfInterim, EveryStyle) {
  spec::TestSpec s;
  s.test = TestKind::kTcpStream;
  results::IntervalSample iv;
  iv.start_s = 1;
  iv.end_s = 1.5;
  iv.flows = {{.bytes_sent = 62'500'000}};  // 1000 Mbit/s for half a second
  const auto at =
      std::chrono::system_clock::time_point(std::chrono::milliseconds(1'796'234'339'005));
  NetperfReportOptions o = options("T");
  EXPECT_EQ(interim(s, iv, o, 0, at),
            "Interim result: 1000.00 10^6bits/s over 0.500 seconds ending at 1796234339.005\n");
  o.omni = OmniStyle::kHuman;
  EXPECT_EQ(interim(s, iv, o, 0, at),
            "Interim result: 1000.00 10^6bits/s over 0.500 seconds ending at 1796234339.005\n");
  o.omni = OmniStyle::kCsv;
  EXPECT_EQ(interim(s, iv, o, 0, at), "1000.00,10^6bits/s,0.500,1796234339.005\n");
  o.omni = OmniStyle::kKeyval;
  EXPECT_EQ(interim(s, iv, o, 3, at),
            "NETPERF_INTERIM_RESULT[3]=1000.00\n"
            "NETPERF_UNITS[3]=10^6bits/s\n"
            "NETPERF_INTERVAL[3]=0.500\n"
            "NETPERF_ENDING[3]=1796234339.005\n");
}

TEST(NetperfInterim, TransactionsAndReceivedBytes) {
  spec::TestSpec s;
  s.test = TestKind::kTcpRr;
  results::IntervalSample iv;
  iv.end_s = 2;
  iv.flows = {{.bytes_sent = 100, .bytes_recv = 100, .transactions = 20'000}};
  const auto at = std::chrono::system_clock::time_point(std::chrono::seconds(100));
  EXPECT_EQ(interim(s, iv, options("T"), 0, at),
            "Interim result: 10000.00 Trans/s over 2.000 seconds ending at 100.000\n");
  s.test = TestKind::kTcpMaerts;
  iv.flows = {{.bytes_recv = 250'000'000}};
  EXPECT_EQ(interim(s, iv, options("T"), 0, at),
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

}  // namespace
}  // namespace flowperf::report
