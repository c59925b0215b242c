// Drop-in to the exit code: for each kind of failure (a bad option, a
// missing value, an unknown test, no server, an unknown host, a busy port,
// a test the far end or the kernel refuses), each personality exits as the
// tool it follows. Every case runs the real tool and ours with the same
// arguments, side by side, and compares; the code the real tool gave when
// the table was written is checked too, so a changed peer is noticed.
// docs/personalities.md has the table.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "e2e/netperf_peers.h"

namespace flowperf::testing {
namespace {

using namespace std::chrono_literals;

// Stand for a port where nothing listens and a real netserver's port.
const std::string kDead = "{dead}";
const std::string kLive = "{live}";

struct Case {
  std::string name;
  std::string tool;  // netperf, netserver, qperf or iperf3
  std::vector<std::string> args;
  int expected;  // the real tool's exit code, measured
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.tool << "_" << c.name; }

std::vector<Case> cases() {
  const std::string h = "127.0.0.1";
  return {
      // netperf 2.7.1: exit(-1) when it cannot resolve the host or reach
      // netserver, 1 for everything else.
      {"no_server", "netperf", {"-H", h, "-p", kDead, "-l", "1"}, 255},
      {"unknown_host", "netperf", {"-H", "no-such-host.invalid", "-l", "1"}, 255},
      {"bad_option", "netperf", {"-Q"}, 1},
      {"missing_value", "netperf", {"-H", h, "-p", kDead, "-l"}, 1},
      {"unknown_test", "netperf", {"-H", h, "-p", kLive, "-t", "FOO"}, 1},
      {"udp_message_too_long",
       "netperf",
       {"-H", h, "-p", kLive, "-t", "UDP_STREAM", "-l", "1", "--", "-m", "70000"},
       1},
      {"udp_request_too_long",
       "netperf",
       {"-H", h, "-p", kLive, "-t", "UDP_RR", "-l", "1", "--", "-r", "70000"},
       1},
      // netserver: 1 for a bad option and for a port in use.
      {"bad_option", "netserver", {"-Q"}, 1},
      {"busy_port", "netserver", {"-D", "-p", kLive, "-L", h}, 1},
      // qperf 0.4.11: 1 for every failure.
      {"unknown_test", "qperf", {h, "-lp", kDead, "foo"}, 1},
      {"no_server", "qperf", {h, "-lp", kDead, "tcp_bw"}, 1},
      {"bad_option", "qperf", {"--bogus"}, 1},
      {"no_test", "qperf", {h}, 1},
      {"bad_value", "qperf", {"-t", "abc", h, "-lp", kDead, "tcp_bw"}, 1},
      {"unknown_help_topic", "qperf", {"--help", "nonsense"}, 1},
      {"busy_port", "qperf", {"-lp", kLive}, 1},
      // iperf3 (3.12 and 3.21 alike): 1 for every failure.
      {"no_server", "iperf3", {"-c", h, "-p", kDead, "-t", "1"}, 1},
      {"bad_option", "iperf3", {"--bogus"}, 1},
      {"no_role", "iperf3", {}, 1},
      {"bad_time", "iperf3", {"-c", h, "-p", kDead, "-t", "abc"}, 1},
      {"client_and_server", "iperf3", {"-s", "-c", h}, 1},
      {"missing_value", "iperf3", {"-c"}, 1},
      {"busy_port", "iperf3", {"-s", "-p", kLive, "-1"}, 1},
  };
}

std::vector<std::string> real_tools(const std::string& tool) {
  if (tool == "netperf") return {real_netperf()};
  if (tool == "netserver") return {real_netserver()};
  if (tool == "qperf") return {real_qperf()};
  return {real_iperf3(), real_iperf3_321()};
}

class ExitCodes : public ::testing::TestWithParam<Case> {};

TEST_P(ExitCodes, AsTheRealTool) {
  const Case& c = GetParam();
  const std::vector<std::string> theirs = real_tools(c.tool);
  for (const auto& t : theirs) REQUIRE_TOOL(t, "scripts/setup.sh and build-peers.sh install it");
  REQUIRE_PEER();  // the live netserver
  Netserver live;
  ASSERT_NE(live.port(), 0) << "netserver did not start";
  const std::string dead = std::to_string(free_port());
  auto argv_for = [&](std::vector<std::string> argv) {
    for (const auto& a : c.args)
      argv.push_back(a == kDead ? dead : a == kLive ? std::to_string(live.port()) : a);
    return argv;
  };
  auto run = [](const std::vector<std::string>& argv) { return Process(argv).wait(30s); };
  const Outcome ours = run(argv_for({kBin, c.tool}));
  ASSERT_FALSE(ours.timed_out) << ours.out << ours.err;
  for (const auto& t : theirs) {
    SCOPED_TRACE(t);
    const Outcome real = run(argv_for({t}));
    ASSERT_FALSE(real.timed_out) << real.out << real.err;
    EXPECT_EQ(real.exit_code, c.expected) << "the real tool's exit code changed:\n"
                                          << real.out << real.err;
    EXPECT_EQ(ours.exit_code, real.exit_code) << "ours:\n"
                                              << ours.out << ours.err << "\ntheirs:\n"
                                              << real.out << real.err;
  }
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return info.param.tool + "_" + info.param.name;
}

INSTANTIATE_TEST_SUITE_P(EveryFailure, ExitCodes, ::testing::ValuesIn(cases()), case_name);

}  // namespace
}  // namespace flowperf::testing
