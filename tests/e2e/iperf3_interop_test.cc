// iperf3's wire between flowperf and the real iperf3 3.12, both ways, and
// flowperf against itself: every case runs a 1-second test with -J on the
// client and checks what both ends agreed on (bytes, streams, directions,
// the options that reach the other end) from the client's JSON, whose
// "receiver" half comes from the server's results message.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "e2e/iperf3_peers.h"

namespace flowperf::testing {
namespace {

struct Case {
  const char* name;
  std::vector<std::string> args;
  bool udp = false;
  int streams = 1;  // per direction
  enum Dir { kForward, kReverse, kBidir } dir = kForward;
  bool counted = false;  // -n / -k: bytes set by the count, not the time
};

const std::vector<Case>& cases() {
  static const std::vector<Case> c = {
      {"tcp", {"-t", "1"}},
      {"reverse", {"-t", "1", "-R"}, false, 1, Case::kReverse},
      {"bidir", {"-t", "1", "--bidir"}, false, 1, Case::kBidir},
      {"parallel3", {"-t", "1", "-P", "3"}, false, 3},
      {"reverse_parallel2", {"-t", "1", "-R", "-P", "2"}, false, 2, Case::kReverse},
      {"bidir_parallel2", {"-t", "1", "--bidir", "-P", "2"}, false, 2, Case::kBidir},
      {"udp", {"-t", "1", "-u", "-b", "10M"}, true},
      {"udp_reverse", {"-t", "1", "-u", "-b", "10M", "-R"}, true, 1, Case::kReverse},
      {"udp_bidir", {"-t", "1", "-u", "-b", "10M", "--bidir"}, true, 1, Case::kBidir},
      {"udp_parallel3", {"-t", "1", "-u", "-b", "5M", "-P", "3"}, true, 3},
      {"udp_64bit", {"-t", "1", "-u", "-b", "10M", "--udp-counters-64bit"}, true},
      {"udp_small_unlimited", {"-t", "1", "-u", "-b", "0", "-l", "64"}, true},
      {"bytes", {"-n", "20M"}, false, 1, Case::kForward, true},
      {"reverse_bytes", {"-n", "20M", "-R"}, false, 1, Case::kReverse, true},
      {"blocks", {"-k", "100"}, false, 1, Case::kForward, true},
      {"omit", {"-t", "1", "-O", "1"}},
      {"window", {"-t", "1", "-w", "1M"}},
      {"congestion", {"-t", "1", "-C", "reno"}},
      {"zerocopy", {"-t", "1", "-Z"}},
      {"mss_nodelay", {"-t", "1", "-M", "1000", "-N"}},
      {"tos", {"-t", "1", "-S", "0x10"}},
      {"server_output", {"-t", "1", "--get-server-output"}},
      {"repeating_payload", {"-t", "1", "--repeating-payload"}},
  };
  return c;
}

using Param = std::tuple<Side, Side, size_t>;  // client, server, case

class Iperf3Interop : public ::testing::TestWithParam<Param> {};

TEST_P(Iperf3Interop, BothEndsAgree) {
  REQUIRE_IPERF3();
  const auto [client, server, index] = GetParam();
  const Case& c = cases()[index];
  Iperf3Server srv(server);
  ASSERT_TRUE(srv.ready) << name(server) << " server did not start";
  std::vector<std::string> args = c.args;
  args.push_back("-J");
  const Outcome o = run_client(client, srv.port, args);
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  const auto j = parse_json(o.out);
  ASSERT_FALSE(j.is_discarded()) << o.out;
  ASSERT_FALSE(j.contains("error")) << j["error"];
  const auto& end = j["end"];

  // One entry per stream in each direction, and bytes on every one.
  const size_t total_streams = static_cast<size_t>(c.streams) * (c.dir == Case::kBidir ? 2 : 1);
  ASSERT_EQ(end["streams"].size(), total_streams) << end.dump();
  const auto& sent = c.udp ? end["sum_sent"] : end["sum_sent"];
  const auto& received = end["sum_received"];
  const double sent_bytes = sent["bytes"].get<double>();
  const double recv_bytes = received["bytes"].get<double>();
  EXPECT_GT(sent_bytes, 0) << end.dump();
  EXPECT_GT(recv_bytes, 0) << end.dump();
  if (!c.udp) {
    // TCP loses nothing: the receiver has what the sender sent, but for
    // what was in flight when the test ended.
    EXPECT_LE(recv_bytes, sent_bytes * 1.05 + 1e6) << end.dump();
    EXPECT_GE(recv_bytes, sent_bytes * 0.8) << end.dump();
  } else {
    for (const auto& s : end["streams"]) {
      const auto& u = s["udp"];
      EXPECT_GT(u["packets"].get<double>(), 0) << s.dump();
    }
  }
  if (c.counted && c.args[0] == "-n") {
    EXPECT_GE(std::max(sent_bytes, recv_bytes), 20.0 * 1024 * 1024) << end.dump();
  }
  if (c.counted && c.args[0] == "-k") {
    EXPECT_GE(sent_bytes, 100.0 * 131072) << end.dump();
  }
  // The test as the client ran it.
  const auto& ts = j["start"]["test_start"];
  EXPECT_EQ(ts["protocol"], c.udp ? "UDP" : "TCP");
  EXPECT_EQ(ts["num_streams"].get<int>(), c.streams);
  EXPECT_EQ(ts["reverse"].get<int>(), c.dir == Case::kReverse ? 1 : 0);
  // Options that must reach the other end, read back from its results.
  if (std::string(c.name) == "congestion") {
    EXPECT_EQ(end["sender_tcp_congestion"], "reno");
    EXPECT_EQ(end["receiver_tcp_congestion"], "reno");
  }
  if (std::string(c.name) == "window") {
    EXPECT_EQ(j["start"]["sock_bufsize"], 1048576);
  }
  if (std::string(c.name) == "server_output") {
    const bool text = j.contains("end") && o.out.find("server_output_text") != std::string::npos;
    EXPECT_TRUE(text) << o.out;
    EXPECT_NE(o.out.find("Accepted connection from"), std::string::npos) << o.out;
  }
  if (std::string(c.name) == "omit") {
    // The omitted second is reported as such and left out of the totals.
    bool any_omitted = false;
    for (const auto& iv : j["intervals"]) any_omitted |= iv["sum"]["omitted"].get<bool>();
    EXPECT_TRUE(any_omitted);
    // -O 1 -t 1 runs 2 s and counts the second after the omitted one: about 1.0 s, and 2.0 s if
    // the omitted second were counted. 1.5 splits them: a late tick at 1 s or a slow drain on a
    // loaded machine moves the figure by far less than the 0.5 s to either side.
    EXPECT_LT(end["sum_sent"]["seconds"].get<double>(), 1.5);
  }
}

std::string case_name(const ::testing::TestParamInfo<Param>& info) {
  const auto [client, server, index] = info.param;
  return std::string(name(client)) + "_to_" + name(server) + "_" + cases()[index].name;
}

std::vector<Param> matrix() {
  std::vector<Param> out;
  for (size_t i = 0; i < cases().size(); ++i) {
    out.emplace_back(Side::kFlowperf, Side::kReal, i);
    out.emplace_back(Side::kReal, Side::kFlowperf, i);
    out.emplace_back(Side::kFlowperf, Side::kFlowperf, i);
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Matrix, Iperf3Interop, ::testing::ValuesIn(matrix()), case_name);

}  // namespace
}  // namespace flowperf::testing
