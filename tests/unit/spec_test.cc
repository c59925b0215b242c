// Unit tests for spec/test_spec and spec/spec_json: test-name lookup, every validate() rule and
// the wording of its messages, the protocol defaults, default_threads, and the JSON round trip
// (plus rejection of malformed JSON).
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "member_count.h"
#include "spec/spec_json.h"
#include "spec/test_spec.h"

namespace flowperf::spec {
namespace {

using nlohmann::json;

constexpr TestKind kAllKinds[] = {TestKind::kTcpStream, TestKind::kTcpMaerts, TestKind::kUdpStream,
                                  TestKind::kTcpRr,     TestKind::kTcpCrr,    TestKind::kUdpRr,
                                  TestKind::kTcpCc};

TestSpec SpecFor(TestKind kind) {
  TestSpec s;
  s.test = kind;
  return s;
}

std::string Join(const std::vector<std::string>& problems) {
  std::string out;
  for (const auto& p : problems) out += "  [" + p + "]\n";
  return out;
}

// Number of problems that start with `option` followed by a space or a colon (so "-m" does not
// match "-M" and "-r" does not match "-r ,").
size_t CountFor(const std::vector<std::string>& problems, std::string_view option) {
  return static_cast<size_t>(std::count_if(problems.begin(), problems.end(), [&](const auto& p) {
    return p.size() > option.size() && p.compare(0, option.size(), option) == 0 &&
           (p[option.size()] == ' ' || p[option.size()] == ':');
  }));
}

// The single problem reported for `spec`; fails the test unless there is exactly one.
std::string OnlyProblem(const TestSpec& spec) {
  auto problems = validate(spec);
  EXPECT_EQ(problems.size(), 1u) << Join(problems);
  return problems.empty() ? std::string() : problems.front();
}

// ---------------------------------------------------------------------------------------------
// Test table and name lookup

TEST(TestTable, HasSevenDistinctTestsAndInfoFindsEach) {
  const auto& tests = all_tests();
  ASSERT_EQ(tests.size(), 7u);
  std::set<std::string> names;
  for (const auto& t : tests) names.insert(t.name);
  EXPECT_EQ(names.size(), 7u);
  for (TestKind k : kAllKinds) EXPECT_EQ(info(k).kind, k);
}

TEST(TestTable, TcpCcIsAConnectionTestWithoutData) {
  EXPECT_EQ(parse_test_name("tcp_cc"), TestKind::kTcpCc);
  EXPECT_EQ(info(TestKind::kTcpCc).protocol, Protocol::kTcp);
  EXPECT_EQ(info(TestKind::kTcpCc).workload, Workload::kRr);
  EXPECT_TRUE(info(TestKind::kTcpCc).connect_per_transaction);
  EXPECT_FALSE(carries_data(TestKind::kTcpCc));
  EXPECT_TRUE(carries_data(TestKind::kTcpCrr));
}

TEST(TestTable, ProtocolFamilyAndDirection) {
  EXPECT_EQ(info(TestKind::kTcpStream).protocol, Protocol::kTcp);
  EXPECT_EQ(info(TestKind::kTcpStream).workload, Workload::kStream);
  EXPECT_TRUE(info(TestKind::kTcpStream).client_sends);
  EXPECT_FALSE(info(TestKind::kTcpMaerts).client_sends);
  EXPECT_EQ(info(TestKind::kUdpStream).protocol, Protocol::kUdp);
  EXPECT_EQ(info(TestKind::kUdpStream).workload, Workload::kStream);
  EXPECT_EQ(info(TestKind::kTcpRr).workload, Workload::kRr);
  EXPECT_FALSE(info(TestKind::kTcpRr).connect_per_transaction);
  EXPECT_TRUE(info(TestKind::kTcpCrr).connect_per_transaction);
  EXPECT_EQ(info(TestKind::kUdpRr).protocol, Protocol::kUdp);
  EXPECT_EQ(info(TestKind::kUdpRr).workload, Workload::kRr);
}

TEST(ParseTestName, EveryCanonicalName) {
  EXPECT_EQ(parse_test_name("TCP_STREAM"), TestKind::kTcpStream);
  EXPECT_EQ(parse_test_name("TCP_MAERTS"), TestKind::kTcpMaerts);
  EXPECT_EQ(parse_test_name("UDP_STREAM"), TestKind::kUdpStream);
  EXPECT_EQ(parse_test_name("TCP_RR"), TestKind::kTcpRr);
  EXPECT_EQ(parse_test_name("TCP_CRR"), TestKind::kTcpCrr);
  EXPECT_EQ(parse_test_name("UDP_RR"), TestKind::kUdpRr);
}

TEST(ParseTestName, AnyCase) {
  for (TestKind k : kAllKinds) {
    std::string upper = info(k).name;
    std::string lower = upper;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    std::string mixed = upper;
    for (size_t i = 0; i < mixed.size(); i += 2)
      mixed[i] = static_cast<char>(std::tolower(static_cast<unsigned char>(mixed[i])));
    SCOPED_TRACE(upper);
    EXPECT_EQ(parse_test_name(lower), k);
    EXPECT_EQ(parse_test_name(mixed), k);
  }
  EXPECT_EQ(parse_test_name("Tcp_Crr"), TestKind::kTcpCrr);
  EXPECT_EQ(parse_test_name("udp_rR"), TestKind::kUdpRr);
}

TEST(ParseTestName, UnknownNames) {
  for (const char* bad : {"", "TCP", "RR", "TCP_STREAMS", "TCP_STREAM ", " TCP_RR", "TCP-RR",
                          "UDP_MAERTS", "SCTP_STREAM", "TCP_RRR", "tcp_cr"}) {
    EXPECT_FALSE(parse_test_name(bad).has_value()) << "'" << bad << "'";
  }
  // An embedded NUL must not be treated as the end of the name.
  EXPECT_FALSE(parse_test_name(std::string_view("TCP_RR\0x", 8)).has_value());
}

// ---------------------------------------------------------------------------------------------
// Defaults

TEST(Defaults, EffectiveSendAndReceiveSizes) {
  for (TestKind k :
       {TestKind::kTcpStream, TestKind::kTcpMaerts, TestKind::kTcpRr, TestKind::kTcpCrr}) {
    SCOPED_TRACE(info(k).name);
    TestSpec s = SpecFor(k);
    EXPECT_EQ(s.effective_send_size(), 128u * 1024);
    EXPECT_EQ(s.effective_recv_size(), 128u * 1024);
    EXPECT_EQ(s.remote_send_size(), 128u * 1024);
  }
  for (TestKind k : {TestKind::kUdpStream, TestKind::kUdpRr}) {
    SCOPED_TRACE(info(k).name);
    TestSpec s = SpecFor(k);
    EXPECT_EQ(s.effective_send_size(), 1472u);
    EXPECT_EQ(s.effective_recv_size(), 65536u);
    EXPECT_EQ(s.remote_send_size(), 1472u);
  }
}

TEST(Defaults, ExplicitSizesOverrideTheDefaults) {
  TestSpec s = SpecFor(TestKind::kUdpStream);
  s.send_size = 200;
  s.recv_size = 300;
  EXPECT_EQ(s.effective_send_size(), 200u);
  EXPECT_EQ(s.effective_recv_size(), 300u);
  EXPECT_EQ(s.remote_send_size(), 200u);
  s.test = TestKind::kTcpStream;
  EXPECT_EQ(s.effective_send_size(), 200u);
  EXPECT_EQ(s.effective_recv_size(), 300u);
}

TEST(Defaults, FieldDefaults) {
  TestSpec s;
  EXPECT_EQ(s.test, TestKind::kTcpStream);
  EXPECT_EQ(s.ip_family, IpFamily::kAny);
  EXPECT_EQ(s.request_size, 1u);
  EXPECT_EQ(s.response_size, 1u);
  EXPECT_EQ(s.duration_s, 10.0);
  EXPECT_EQ(s.streams, 1u);
  EXPECT_EQ(s.threads, 0u);
  EXPECT_EQ(s.interval_s, 0.0);
  EXPECT_EQ(s.rate_bps, 0u);
}

TEST(DefaultThreads, ExplicitThreadsAreCappedByStreams) {
  TestSpec s;
  s.threads = 4;
  s.streams = 2;
  EXPECT_EQ(default_threads(s), 2u);
  s.streams = 8;
  EXPECT_EQ(default_threads(s), 4u);
  s.threads = 8;
  EXPECT_EQ(default_threads(s), 8u);
}

TEST(DefaultThreads, ZeroMeansMinOfStreamsAndCores) {
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  TestSpec s;
  s.threads = 0;
  s.streams = 1;
  EXPECT_EQ(default_threads(s), 1u);
  s.streams = kMaxStreams;
  EXPECT_EQ(default_threads(s), std::min<unsigned>(kMaxStreams, cores));
  s.streams = 2;
  EXPECT_EQ(default_threads(s), std::min(2u, cores));
  EXPECT_GE(default_threads(s), 1u);
}

// ---------------------------------------------------------------------------------------------
// validate(): the valid cases

TEST(Validate, DefaultSpecOfEveryTestIsValid) {
  for (TestKind k : kAllKinds) {
    SCOPED_TRACE(info(k).name);
    auto problems = validate(SpecFor(k));
    EXPECT_TRUE(problems.empty()) << Join(problems);
  }
}

TEST(Validate, BoundaryValuesThatAreAccepted) {
  TestSpec s;
  s.duration_s = 31'536'000;
  s.streams = kMaxStreams;
  s.threads = 1024;
  s.interval_s = 0.01;
  s.send_size = kMaxMessage;
  s.recv_size = kMaxMessage;
  auto problems = validate(s);
  EXPECT_TRUE(problems.empty()) << Join(problems);

  TestSpec tiny;
  tiny.duration_s = 0.001;
  tiny.send_size = 1;
  tiny.recv_size = 1;
  problems = validate(tiny);
  EXPECT_TRUE(problems.empty()) << Join(problems);
}

// ---------------------------------------------------------------------------------------------
// validate(): one rule at a time

TEST(Validate, DurationMustBePositiveFiniteAndAtMostAYear) {
  for (double bad : {0.0, -0.0, -1.0, -1e-9, std::numeric_limits<double>::quiet_NaN(),
                     std::numeric_limits<double>::infinity(),
                     -std::numeric_limits<double>::infinity(), 31'536'000.5, 1e300}) {
    SCOPED_TRACE(bad);
    TestSpec s;
    s.duration_s = bad;
    std::string p = OnlyProblem(s);
    EXPECT_EQ(p.rfind("-l ", 0), 0u) << p;
    EXPECT_NE(p.find("31536000"), std::string::npos) << p;
  }
}

TEST(Validate, StreamsFromOneToMax) {
  TestSpec s;
  s.streams = 0;
  std::string p = OnlyProblem(s);
  EXPECT_EQ(p.rfind("-P 0", 0), 0u) << p;
  EXPECT_NE(p.find(std::to_string(kMaxStreams)), std::string::npos) << p;

  s.streams = kMaxStreams + 1;
  p = OnlyProblem(s);
  EXPECT_EQ(p.rfind("-P " + std::to_string(kMaxStreams + 1), 0), 0u) << p;

  s.streams = std::numeric_limits<uint32_t>::max();
  EXPECT_EQ(CountFor(validate(s), "-P"), 1u);
}

TEST(Validate, AtMost1024Threads) {
  TestSpec s;
  s.threads = 1025;
  std::string p = OnlyProblem(s);
  EXPECT_EQ(p.rfind("--threads 1025", 0), 0u) << p;
  EXPECT_NE(p.find("1024"), std::string::npos) << p;
}

TEST(Validate, IntervalIsZeroOrAtLeastTenMilliseconds) {
  for (double bad : {0.005, 0.0099, 1e-9, -1.0, -0.01, std::numeric_limits<double>::quiet_NaN(),
                     std::numeric_limits<double>::infinity()}) {
    SCOPED_TRACE(bad);
    TestSpec s;
    s.interval_s = bad;
    std::string p = OnlyProblem(s);
    EXPECT_EQ(p.rfind("-i ", 0), 0u) << p;
    EXPECT_NE(p.find("0.01"), std::string::npos) << p;
  }
  for (double good : {0.0, 0.01, 0.5, 1.0, 3600.0}) {
    SCOPED_TRACE(good);
    TestSpec s;
    s.interval_s = good;
    EXPECT_TRUE(validate(s).empty()) << Join(validate(s));
  }
}

TEST(Validate, BitrateOnlyForUdpStream) {
  for (TestKind k : {TestKind::kTcpStream, TestKind::kTcpMaerts, TestKind::kTcpRr,
                     TestKind::kTcpCrr, TestKind::kUdpRr}) {
    SCOPED_TRACE(info(k).name);
    TestSpec s = SpecFor(k);
    s.rate_bps = 1'000'000;
    std::string p = OnlyProblem(s);
    EXPECT_EQ(p.rfind("-b", 0), 0u) << p;
    EXPECT_NE(p.find(info(k).name), std::string::npos) << p;
  }
  TestSpec udp = SpecFor(TestKind::kUdpStream);
  udp.rate_bps = 1'000'000;
  EXPECT_TRUE(validate(udp).empty()) << Join(validate(udp));
}

TEST(Validate, UdpSendSizeOverIpv4) {
  for (IpFamily fam : {IpFamily::kV4, IpFamily::kAny}) {
    TestSpec s = SpecFor(TestKind::kUdpStream);
    s.ip_family = fam;
    s.send_size = kMaxUdpPayloadV4;
    EXPECT_TRUE(validate(s).empty()) << Join(validate(s));

    s.send_size = kMaxUdpPayloadV4 + 1;
    std::string p = OnlyProblem(s);
    EXPECT_EQ(p.rfind("-m 65508", 0), 0u) << p;
    EXPECT_NE(p.find("message too long"), std::string::npos) << p;
    EXPECT_NE(p.find("65507"), std::string::npos) << p;
    EXPECT_NE(p.find("IPv4"), std::string::npos) << p;
  }
}

TEST(Validate, UdpSendSizeOverIpv6) {
  TestSpec s = SpecFor(TestKind::kUdpStream);
  s.ip_family = IpFamily::kV6;
  s.send_size = kMaxUdpPayloadV4 + 1;  // too big for IPv4, fine for IPv6
  EXPECT_TRUE(validate(s).empty()) << Join(validate(s));
  s.send_size = kMaxUdpPayloadV6;
  EXPECT_TRUE(validate(s).empty()) << Join(validate(s));

  s.send_size = kMaxUdpPayloadV6 + 1;
  std::string p = OnlyProblem(s);
  EXPECT_EQ(p.rfind("-m 65528", 0), 0u) << p;
  EXPECT_NE(p.find("message too long"), std::string::npos) << p;
  EXPECT_NE(p.find("65527"), std::string::npos) << p;
  EXPECT_NE(p.find("IPv6"), std::string::npos) << p;
}

TEST(Validate, UdpSendSizeAgainstTheSendBufferIsLeftToRunTime) {
  // Linux doubles a requested SO_SNDBUF, so only the buffer in effect can
  // say whether a datagram fits; the client checks that when it opens its
  // sockets (tests/e2e). validate() must not refuse what would work.
  TestSpec s = SpecFor(TestKind::kUdpStream);
  s.send_size = 2000;
  s.local_sndbuf = 1000;
  EXPECT_TRUE(validate(s).empty()) << Join(validate(s));
}

TEST(Validate, UdpSendSizeTooLongIsReportedOnce) {
  TestSpec s = SpecFor(TestKind::kUdpStream);
  s.send_size = 70000;
  s.local_sndbuf = 4096;
  auto problems = validate(s);
  EXPECT_EQ(problems.size(), 1u) << Join(problems);
  EXPECT_EQ(CountFor(problems, "-m 70000"), 1u) << Join(problems);
}

TEST(Validate, TcpSendAndReceiveSizeLimits) {
  TestSpec s = SpecFor(TestKind::kTcpStream);
  s.send_size = kMaxMessage + 1;
  std::string p = OnlyProblem(s);
  EXPECT_EQ(p.rfind("-m " + std::to_string(kMaxMessage + 1), 0), 0u) << p;
  EXPECT_NE(p.find(std::to_string(kMaxMessage)), std::string::npos) << p;
  EXPECT_EQ(p.find("message too long"), std::string::npos) << p;

  s.send_size = 0;
  s.recv_size = kMaxMessage + 1;
  p = OnlyProblem(s);
  EXPECT_EQ(p.rfind("-M " + std::to_string(kMaxMessage + 1), 0), 0u) << p;

  TestSpec maerts = SpecFor(TestKind::kTcpMaerts);
  maerts.recv_size = kMaxMessage + 1;
  EXPECT_EQ(CountFor(validate(maerts), "-M"), 1u);
}

TEST(Validate, RequestAndResponseSizes) {
  struct Case {
    TestKind kind;
    uint32_t limit;
  };
  for (Case c : {Case{TestKind::kTcpRr, kMaxMessage}, Case{TestKind::kTcpCrr, kMaxMessage},
                 Case{TestKind::kUdpRr, kMaxUdpPayloadV4}}) {
    SCOPED_TRACE(info(c.kind).name);
    TestSpec s = SpecFor(c.kind);
    s.request_size = c.limit;
    s.response_size = c.limit;
    EXPECT_TRUE(validate(s).empty()) << Join(validate(s));

    s.request_size = 0;
    s.response_size = 1;
    std::string p = OnlyProblem(s);
    EXPECT_EQ(p.rfind("-r 0", 0), 0u) << p;
    EXPECT_NE(p.find("request"), std::string::npos) << p;

    s.request_size = c.limit + 1;
    p = OnlyProblem(s);
    EXPECT_EQ(p.rfind("-r " + std::to_string(c.limit + 1), 0), 0u) << p;
    EXPECT_NE(p.find(std::to_string(c.limit)), std::string::npos) << p;

    s.request_size = 1;
    s.response_size = 0;
    p = OnlyProblem(s);
    EXPECT_EQ(p.rfind("-r ,0", 0), 0u) << p;
    EXPECT_NE(p.find("response"), std::string::npos) << p;

    s.response_size = c.limit + 1;
    p = OnlyProblem(s);
    EXPECT_EQ(p.rfind("-r ," + std::to_string(c.limit + 1), 0), 0u) << p;

    // One wrong value for both (-r 0): one problem, one line.
    s.request_size = 0;
    s.response_size = 0;
    p = OnlyProblem(s);
    EXPECT_EQ(p.rfind("-r 0:", 0), 0u) << p;
    EXPECT_NE(p.find("request and response"), std::string::npos) << p;
    s.request_size = s.response_size = c.limit + 1;
    p = OnlyProblem(s);
    EXPECT_EQ(p.rfind("-r " + std::to_string(c.limit + 1) + ":", 0), 0u) << p;

    // Two different wrong values: two problems.
    s.request_size = 0;
    s.response_size = c.limit + 1;
    EXPECT_EQ(validate(s).size(), 2u) << Join(validate(s));
  }
}

TEST(Validate, StreamTestsIgnoreRequestSizesAndRrTestsIgnoreSendSizes) {
  TestSpec stream = SpecFor(TestKind::kTcpStream);
  stream.request_size = 0;
  stream.response_size = 0;
  EXPECT_TRUE(validate(stream).empty()) << Join(validate(stream));

  TestSpec udp_rr = SpecFor(TestKind::kUdpRr);
  udp_rr.send_size = 100000;  // -m is not used by RR tests
  EXPECT_TRUE(validate(udp_rr).empty()) << Join(validate(udp_rr));
}

TEST(Validate, ReportsEveryProblemAtOnce) {
  TestSpec s = SpecFor(TestKind::kTcpStream);
  s.duration_s = 0;
  s.streams = 0;
  s.threads = 5000;
  s.interval_s = 0.001;
  s.rate_bps = 10;
  s.send_size = kMaxMessage + 1;
  s.recv_size = kMaxMessage + 1;
  auto problems = validate(s);
  EXPECT_EQ(problems.size(), 7u) << Join(problems);
  for (const char* opt : {"-l", "-P", "--threads", "-i", "-b", "-m", "-M"}) {
    EXPECT_EQ(CountFor(problems, opt), 1u) << opt << "\n" << Join(problems);
  }

  TestSpec rr = SpecFor(TestKind::kUdpRr);
  rr.duration_s = std::numeric_limits<double>::quiet_NaN();
  rr.rate_bps = 1;
  rr.request_size = 0;
  rr.response_size = 70000;
  problems = validate(rr);
  EXPECT_EQ(problems.size(), 4u) << Join(problems);
  EXPECT_EQ(CountFor(problems, "-l"), 1u) << Join(problems);
  EXPECT_EQ(CountFor(problems, "-b"), 1u) << Join(problems);
  EXPECT_EQ(CountFor(problems, "-r 0"), 1u) << Join(problems);
  EXPECT_EQ(CountFor(problems, "-r ,70000"), 1u) << Join(problems);
}

// ---------------------------------------------------------------------------------------------
// validate(): the data-path options

TEST(Validate, PerEndOptionsInRange) {
  TestSpec s = SpecFor(TestKind::kTcpRr);
  s.local = {"reno", 0, 0, -1, 0, ""};
  s.remote = {"cubic", 255, 6, 0, 0, ""};
  EXPECT_TRUE(validate(s).empty()) << Join(validate(s));

  s.local.tos = 256;
  EXPECT_EQ(OnlyProblem(s), "--tos 256, (netperf -Y): a TOS byte is from 0 to 255 (0x00 to 0xff)");
  s.local.tos = -1;
  s.remote.tos = -2;
  EXPECT_EQ(OnlyProblem(s).rfind("--tos ,-2 (netperf -Y): a TOS byte is from 0", 0), 0u);
  s.remote.tos = -1;
  s.remote.priority = -5;
  EXPECT_EQ(OnlyProblem(s), "--priority ,-5 (netperf -y): a socket priority is 0 or more");
  s.remote.priority = -1;
  s.local.cc = "no such";
  EXPECT_EQ(OnlyProblem(s).rfind("-K no such,: not a congestion control name", 0), 0u);
  s.local.cc = "";
  s.remote.cc = std::string(16, 'x');
  EXPECT_EQ(OnlyProblem(s).rfind("-K ," + std::string(16, 'x') + ": not a congestion", 0), 0u);
}

// The same value on both ends is one problem, written as the option gives
// it for both ("-K x"), as -r's equal sizes are.
TEST(Validate, OneProblemForTheSameValueOnBothEnds) {
  TestSpec s = SpecFor(TestKind::kTcpRr);
  s.local.cc = s.remote.cc = "bad name!";
  EXPECT_EQ(OnlyProblem(s),
            "-K bad name!: not a congestion control name (letters, digits, _ and -, at most 15)");
  s = SpecFor(TestKind::kUdpRr);
  s.local.cc = s.remote.cc = "reno";
  EXPECT_EQ(OnlyProblem(s), "-K reno: congestion control applies to TCP tests, not UDP_RR");
  s.local.cc = s.remote.cc = "";
  s.local.tos = s.remote.tos = 300;
  EXPECT_EQ(OnlyProblem(s), "--tos 300 (netperf -Y): a TOS byte is from 0 to 255 (0x00 to 0xff)");
  s.local.tos = 1;
  EXPECT_EQ(validate(s).size(), 1u);  // ",300" only
  s.local.tos = 300;
  s.remote.tos = 301;
  EXPECT_EQ(validate(s).size(), 2u) << Join(validate(s));
}

TEST(Validate, CpuBindingIsCheckedWhereItRuns) {
  int usable = -1;
  for (int c = 0; c < kMaxCpu && usable < 0; ++c)
    if (cpu_usable(c)) usable = c;
  ASSERT_GE(usable, 0);
  TestSpec s = SpecFor(TestKind::kTcpStream);
  s.local.cpu = s.remote.cpu = usable;
  EXPECT_TRUE(validate(s).empty()) << Join(validate(s));
  // A CPU this process cannot use: refused for the end it plays, left to
  // the other end's own check otherwise.
  int unusable = kMaxCpu - 1;
  while (unusable >= 0 && cpu_usable(unusable)) --unusable;
  ASSERT_GE(unusable, 0);
  s.local.cpu = unusable;
  EXPECT_EQ(
      OnlyProblem(s).rfind("--cpu-bind " + std::to_string(unusable) + ", (netperf -T): CPU " +
                               std::to_string(unusable) + " is not one this client may run on",
                           0),
      0u);
  EXPECT_TRUE(validate(s, End::kRemote).empty()) << Join(validate(s, End::kRemote));
  s.local.cpu = usable;
  s.remote.cpu = unusable;
  EXPECT_TRUE(validate(s).empty()) << Join(validate(s));
  EXPECT_NE(Join(validate(s, End::kRemote)).find("this server may run on"), std::string::npos)
      << Join(validate(s, End::kRemote));
  // Out of any machine's range, on either end.
  s.remote.cpu = kMaxCpu;
  EXPECT_EQ(OnlyProblem(s), "--cpu-bind ,1024 (netperf -T): a CPU number is from 0 to 1023");
  s.remote.cpu = -2;
  EXPECT_EQ(OnlyProblem(s).rfind("--cpu-bind ,-2", 0), 0u);
}

TEST(Validate, TcpOnlyOptionsOnUdp) {
  for (TestKind k : {TestKind::kUdpStream, TestKind::kUdpRr}) {
    SCOPED_TRACE(info(k).name);
    TestSpec s = SpecFor(k);
    s.keepalive = true;
    EXPECT_EQ(OnlyProblem(s), std::string("--keepalive (netperf -S): SO_KEEPALIVE applies to TCP "
                                          "tests, not ") +
                                  info(k).name);
    s.keepalive = false;
    s.cork = true;
    EXPECT_EQ(OnlyProblem(s),
              std::string("--cork (netperf test -C): TCP_CORK applies to TCP tests, not ") +
                  info(k).name);
    s.cork = false;
    s.remote.cc = "reno";
    EXPECT_EQ(
        OnlyProblem(s),
        std::string("-K ,reno: congestion control applies to TCP tests, not ") + info(k).name);
    // TOS and priority are IP's and the socket's: any test.
    s.remote.cc = "";
    s.local.tos = s.remote.tos = 0x20;
    s.local.priority = s.remote.priority = 2;
    EXPECT_TRUE(validate(s).empty()) << Join(validate(s));
  }
  for (TestKind k : {TestKind::kTcpStream, TestKind::kTcpMaerts, TestKind::kTcpRr,
                     TestKind::kTcpCrr, TestKind::kTcpCc}) {
    TestSpec s = SpecFor(k);
    s.keepalive = s.cork = true;
    s.local.cc = s.remote.cc = "reno";
    EXPECT_TRUE(validate(s).empty()) << info(k).name << Join(validate(s));
  }
}

TEST(Validate, BurstOnlyForTcpRrAndUdpRr) {
  for (TestKind k : kAllKinds) {
    SCOPED_TRACE(info(k).name);
    TestSpec s = SpecFor(k);
    s.burst = 4;
    if (k == TestKind::kTcpRr || k == TestKind::kUdpRr) {
      EXPECT_TRUE(validate(s).empty()) << Join(validate(s));
      s.burst = kMaxBurst + 1;
      EXPECT_EQ(OnlyProblem(s).rfind("--burst 1048577 (netperf test -b): at most 1048576", 0), 0u);
    } else {
      EXPECT_EQ(OnlyProblem(s), std::string("--burst 4 (netperf test -b): requests in flight "
                                            "apply to TCP_RR and UDP_RR only, not ") +
                                    info(k).name);
    }
  }
}

TEST(Validate, FillFileNeedsDataToFill) {
  TestSpec s = SpecFor(TestKind::kTcpCc);
  s.fill_file = "pattern";
  EXPECT_EQ(OnlyProblem(s), "-F pattern: a fill file fills send buffers, and TCP_CC sends no data");
  s.test = TestKind::kTcpCrr;
  EXPECT_TRUE(validate(s).empty()) << Join(validate(s));
}

// ---------------------------------------------------------------------------------------------
// JSON

// A spec whose every field differs from the default.
TestSpec Unusual(TestKind kind) {
  TestSpec s;
  s.test = kind;
  s.ip_family = IpFamily::kV6;
  s.send_size = 1000;
  s.recv_size = 2000;
  s.request_size = 33;
  s.response_size = 4444;
  s.local_sndbuf = 65536;
  s.local_rcvbuf = 131072;
  s.remote_sndbuf = 262144;
  s.remote_rcvbuf = 524288;
  s.nodelay = true;
  s.rate_bps = 123'456'789'012ull;
  s.duration_s = 2.5;
  s.count = (uint64_t{1} << 40) + 7;
  s.streams = 12;
  s.threads = 3;
  s.interval_s = 0.1;
  s.udp_rr_min_timeout_us = 777;
  s.local = {"reno", 0x10, 3, 1, 5001, "127.0.0.2"};
  s.remote = {"cubic", 0x28, 4, 2, 5002, "127.0.0.3"};
  s.keepalive = true;
  s.cork = true;
  s.burst = 9;
  s.rate_tps = 1234.5;
  s.arrival = Arrival::kPoisson;
  s.seed = 77;
  s.max_outstanding = 12;
  s.probe_rate_tps = 20.5;
  s.probe_baseline_s = 1.5;
  s.probe_test = TestKind::kUdpRr;
  s.bidir = true;
  s.fill_file = "/tmp/fill";
  s.batch = 16;
  s.gso = true;
  s.gro = true;
  s.busy_poll = true;
  s.rst_close = true;
  s.sendfile = true;
  s.call_latency = true;
  s.wire.match_sequence = false;
  s.wire.end_on_empty = true;
  s.wire.udp_header = spec::UdpHeader::kIperf3Wide;
  s.wire.udp_burst = 7;
  s.wire.touch_received = true;
  return s;
}

void ExpectSameSpec(const TestSpec& a, const TestSpec& b) {
  EXPECT_EQ(a.test, b.test);
  EXPECT_EQ(a.ip_family, b.ip_family);
  EXPECT_EQ(a.send_size, b.send_size);
  EXPECT_EQ(a.recv_size, b.recv_size);
  EXPECT_EQ(a.request_size, b.request_size);
  EXPECT_EQ(a.response_size, b.response_size);
  EXPECT_EQ(a.local_sndbuf, b.local_sndbuf);
  EXPECT_EQ(a.local_rcvbuf, b.local_rcvbuf);
  EXPECT_EQ(a.remote_sndbuf, b.remote_sndbuf);
  EXPECT_EQ(a.remote_rcvbuf, b.remote_rcvbuf);
  EXPECT_EQ(a.nodelay, b.nodelay);
  EXPECT_EQ(a.rate_bps, b.rate_bps);
  EXPECT_EQ(a.duration_s, b.duration_s);
  EXPECT_EQ(a.count, b.count);
  EXPECT_EQ(a.streams, b.streams);
  EXPECT_EQ(a.threads, b.threads);
  EXPECT_EQ(a.interval_s, b.interval_s);
  EXPECT_EQ(a.udp_rr_min_timeout_us, b.udp_rr_min_timeout_us);
  for (End end : {End::kLocal, End::kRemote}) {
    const SideOptions &x = a.side(end), &y = b.side(end);
    EXPECT_EQ(x.cc, y.cc);
    EXPECT_EQ(x.tos, y.tos);
    EXPECT_EQ(x.priority, y.priority);
    EXPECT_EQ(x.cpu, y.cpu);
    EXPECT_EQ(x.data_port, y.data_port);
    EXPECT_EQ(x.data_host, y.data_host);
  }
  EXPECT_EQ(a.keepalive, b.keepalive);
  EXPECT_EQ(a.cork, b.cork);
  EXPECT_EQ(a.burst, b.burst);
  EXPECT_EQ(a.rate_tps, b.rate_tps);
  EXPECT_EQ(a.arrival, b.arrival);
  EXPECT_EQ(a.seed, b.seed);
  EXPECT_EQ(a.max_outstanding, b.max_outstanding);
  EXPECT_EQ(a.probe_rate_tps, b.probe_rate_tps);
  EXPECT_EQ(a.probe_baseline_s, b.probe_baseline_s);
  EXPECT_EQ(a.probe_test, b.probe_test);
  EXPECT_EQ(a.bidir, b.bidir);
  EXPECT_EQ(a.fill_file, b.fill_file);
  EXPECT_EQ(a.batch, b.batch);
  EXPECT_EQ(a.gso, b.gso);
  EXPECT_EQ(a.gro, b.gro);
  EXPECT_EQ(a.busy_poll, b.busy_poll);
  EXPECT_EQ(a.rst_close, b.rst_close);
  EXPECT_EQ(a.sendfile, b.sendfile);
  EXPECT_EQ(a.call_latency, b.call_latency);
  EXPECT_EQ(a.wire, b.wire);
  EXPECT_TRUE(a == b);  // and whatever the list above missed
}

// Through text, as on the wire.
TestSpec RoundTrip(const TestSpec& s) { return spec_from_json(json::parse(to_json(s).dump())); }

TEST(SpecJson, RoundTripEveryTestKind) {
  for (TestKind k : kAllKinds) {
    SCOPED_TRACE(info(k).name);
    TestSpec s = Unusual(k);
    ExpectSameSpec(RoundTrip(s), s);
  }
}

TEST(SpecJson, RoundTripEveryIpFamily) {
  for (IpFamily fam : {IpFamily::kAny, IpFamily::kV4, IpFamily::kV6}) {
    TestSpec s = Unusual(TestKind::kUdpStream);
    s.ip_family = fam;
    EXPECT_EQ(RoundTrip(s).ip_family, fam);
  }
  TestSpec s;
  s.ip_family = IpFamily::kV4;
  EXPECT_EQ(to_json(s).at("ip_family"), "ipv4");
  s.ip_family = IpFamily::kV6;
  EXPECT_EQ(to_json(s).at("ip_family"), "ipv6");
  s.ip_family = IpFamily::kAny;
  EXPECT_EQ(to_json(s).at("ip_family"), "any");
}

TEST(SpecJson, DefaultSpecRoundTripsWithResolvedSizes) {
  // to_json sends the effective sizes, so the server needs no protocol defaults of its own.
  for (TestKind k : kAllKinds) {
    SCOPED_TRACE(info(k).name);
    TestSpec s = SpecFor(k);
    json j = to_json(s);
    EXPECT_EQ(j.at("test"), info(k).name);
    EXPECT_EQ(j.at("send_size"), s.effective_send_size());
    EXPECT_EQ(j.at("recv_size"), s.effective_recv_size());
    TestSpec back = RoundTrip(s);
    EXPECT_EQ(back.test, k);
    EXPECT_EQ(back.send_size, s.effective_send_size());
    EXPECT_EQ(back.recv_size, s.effective_recv_size());
    EXPECT_EQ(back.effective_send_size(), s.effective_send_size());
    EXPECT_EQ(back.duration_s, s.duration_s);
    EXPECT_EQ(back.streams, s.streams);
    EXPECT_TRUE(validate(back).empty()) << Join(validate(back));
  }
}

TEST(SpecJson, AbsentFieldsKeepDefaultsAndNameIsCaseInsensitive) {
  TestSpec s = spec_from_json(json{{"test", "udp_rr"}, {"streams", 4}});
  EXPECT_EQ(s.test, TestKind::kUdpRr);
  EXPECT_EQ(s.streams, 4u);
  TestSpec d;
  EXPECT_EQ(s.ip_family, d.ip_family);
  EXPECT_EQ(s.send_size, d.send_size);
  EXPECT_EQ(s.request_size, d.request_size);
  EXPECT_EQ(s.response_size, d.response_size);
  EXPECT_EQ(s.duration_s, d.duration_s);
  EXPECT_EQ(s.udp_rr_min_timeout_us, d.udp_rr_min_timeout_us);
}

using test_support::member_count;

// Every key of `a` holds a different value in `b`, nested objects key by key.
void ExpectEveryKeyDiffers(const json& a, const json& b, const std::string& where = "") {
  for (auto it = a.begin(); it != a.end(); ++it) {
    ASSERT_TRUE(b.contains(it.key())) << where << it.key();
    if (it->is_object())
      ExpectEveryKeyDiffers(*it, b.at(it.key()), where + it.key() + ".");
    else
      EXPECT_NE(*it, b.at(it.key())) << where << it.key() << " has its default value";
  }
}

// A field added to TestSpec or SideOptions and forgotten in visit_fields()
// or visit_side() fails here: each member is a key, and the keys are as many
// as the members.
TEST(SpecJson, EveryMemberHasExactlyOneKey) {
  const json j = to_json(Unusual(TestKind::kTcpRr));
  EXPECT_EQ(j.size(), member_count<TestSpec>()) << j.dump(1);
  EXPECT_EQ(j.at("local").size(), member_count<SideOptions>()) << j.dump(1);
  EXPECT_EQ(j.at("remote").size(), member_count<SideOptions>()) << j.dump(1);
  size_t visited = 0, side_visited = 0;
  TestSpec s;
  visit_fields(s, [&](const char*, auto&&...) { ++visited; });
  visit_side(s.local, [&](const char*, auto&&...) { ++side_visited; });
  EXPECT_EQ(visited, member_count<TestSpec>());
  EXPECT_EQ(side_visited, member_count<SideOptions>());
}

// Every field set to something other than its default comes back as it
// went, and encodes to the same JSON again.
TEST(SpecJson, EveryFieldSurvivesTheRoundTrip) {
  for (TestKind k : kAllKinds) {
    SCOPED_TRACE(info(k).name);
    const TestSpec s = Unusual(k);
    TestSpec defaults;
    defaults.test = k == TestKind::kTcpStream ? TestKind::kTcpRr : TestKind::kTcpStream;
    ExpectEveryKeyDiffers(to_json(s), to_json(defaults));  // Unusual() misses nothing
    const TestSpec back = RoundTrip(s);
    ExpectSameSpec(back, s);
    EXPECT_EQ(to_json(back), to_json(s));
    EXPECT_EQ(to_json(RoundTrip(back)), to_json(s));
  }
}

TEST(SpecJson, SideOptionsAreNestedObjects) {
  const json j = to_json(Unusual(TestKind::kTcpRr));
  EXPECT_EQ(j.at("local"), (json{{"cc", "reno"},
                                 {"tos", 0x10},
                                 {"priority", 3},
                                 {"cpu", 1},
                                 {"data_port", 5001},
                                 {"data_host", "127.0.0.2"}}));
  EXPECT_EQ(j.at("remote").at("cc"), "cubic");
  // Absent members of a side keep their defaults, as absent fields do.
  TestSpec s = spec_from_json(json{{"test", "TCP_RR"}, {"remote", {{"tos", 32}}}});
  EXPECT_EQ(s.remote.tos, 32);
  EXPECT_EQ(s.remote.priority, -1);
  EXPECT_EQ(s.remote.cpu, -1);
  EXPECT_TRUE(s.local == SideOptions{});
}

// An older peer sends one congestion control for both ends.
TEST(SpecJson, OlderPeersCongestionControlSetsBothEnds) {
  TestSpec s = spec_from_json(json{{"test", "TCP_RR"}, {"congestion_control", "reno"}});
  EXPECT_EQ(s.local.cc, "reno");
  EXPECT_EQ(s.remote.cc, "reno");
  EXPECT_FALSE(to_json(s).contains("congestion_control"));
  // A newer peer's per-end names win.
  s = spec_from_json(
      json{{"test", "TCP_RR"}, {"congestion_control", "reno"}, {"remote", {{"cc", "cubic"}}}});
  EXPECT_EQ(s.local.cc, "");
  EXPECT_EQ(s.remote.cc, "cubic");
}

// Expects spec_from_json(j) to throw std::invalid_argument whose message contains `mention`.
void ExpectRejected(const json& j, const std::string& mention) {
  SCOPED_TRACE(j.dump());
  try {
    spec_from_json(j);
    ADD_FAILURE() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(mention), std::string::npos) << e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception type: " << e.what();
  }
}

TEST(SpecJson, RejectsUnknownOrMissingTest) {
  ExpectRejected(json{{"test", "TCP_FOO"}}, "TCP_FOO");
  ExpectRejected(json{{"test", ""}}, "unknown test");
  ExpectRejected(json::object(), "unknown test");
  ExpectRejected(json{{"streams", 2}}, "unknown test");
}

TEST(SpecJson, RejectsBadIpFamily) {
  ExpectRejected(json{{"test", "TCP_RR"}, {"ip_family", "ipv5"}}, "ipv5");
  ExpectRejected(json{{"test", "TCP_RR"}, {"ip_family", "IPV4"}}, "IPV4");
  ExpectRejected(json{{"test", "TCP_RR"}, {"ip_family", 4}}, "ip_family");
}

TEST(SpecJson, RejectsWrongFieldTypes) {
  const json base = to_json(Unusual(TestKind::kTcpRr));
  struct Case {
    const char* key;
    json value;
  };
  const std::vector<Case> cases = {
      {"test", 5},
      {"test", json::array({"TCP_RR"})},
      {"send_size", "1000"},
      {"recv_size", json::array()},
      {"request_size", json::object()},
      {"response_size", "1"},
      {"local_sndbuf", "big"},
      {"remote_rcvbuf", nullptr},
      {"nodelay", "yes"},
      {"nodelay", 1},
      {"rate_bps", "1G"},
      {"duration_s", "10"},
      {"duration_s", nullptr},
      {"count", json::array({1})},
      {"streams", "4"},
      {"threads", json::object()},
      {"interval_s", "1"},
      {"udp_rr_min_timeout_us", "50"},
      {"local", 5},
      {"remote", json::array()},
      {"keepalive", 1},
      {"cork", "true"},
      {"burst", -1},
      {"probe_rate_tps", "10"},
      {"probe_test", "PING"},
      {"bidir", "yes"},
      {"fill_file", 7},
      {"batch", "32"},
      {"gso", 0},
      {"sendfile", nullptr},
  };
  for (const auto& c : cases) {
    json j = base;
    j[c.key] = c.value;
    ExpectRejected(j, c.key);
  }
  // Inside a side, the message names the side and the member.
  for (const char* member : {"cc", "tos", "priority", "cpu", "data_port", "data_host"}) {
    json j = base;
    j["remote"][member] = json::array();
    ExpectRejected(j, std::string("remote.") + member);
  }
  json port = base;
  port["local"]["data_port"] = 70000;
  ExpectRejected(port, "local.data_port");
}

TEST(SpecJson, RejectsNonObjects) {
  for (const json& j :
       {json::array({1, 2}), json("TCP_RR"), json(5), json(nullptr), json(true), json::array()}) {
    SCOPED_TRACE(j.dump());
    EXPECT_THROW(spec_from_json(j), std::invalid_argument);
  }
}

}  // namespace
}  // namespace flowperf::spec
