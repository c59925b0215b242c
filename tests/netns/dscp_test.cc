// The DSCP that netperf's -Y asks for, seen on the wire: flowperf's
// netserver in namespace A, a netperf (flowperf's, then netperf 2.7's) in
// namespace B, and nftables in each namespace counting the data packets
// that arrive from the other, all of them and those with the expected DSCP.
// -Y 0x20,0x48 is DSCP cs1 (8) from netperf's end and af21 (18) from
// netserver's: every data packet each way must carry its end's.
//
// Needs root; without it, or where namespaces cannot be made, each test
// skips and says why. Traffic only goes to 10.77.0.0/24 on the veth.
#include <gtest/gtest.h>
#include <unistd.h>

#include <memory>
#include <regex>
#include <string>
#include <thread>

#include "netns/netns.h"
#include "support/paths.h"

namespace flowperf::testing::netns {
namespace {

const std::string kDir = ::flowperf::testing::bin_dir();
const std::string kPort = "12865";
constexpr const char* kTable = "flowperf_dscp";

std::string peer_netperf() {
  const char* d = std::getenv("NETPERF_PEER_DIR");
  return std::string(d && *d ? d : "/tmp/peers/bin") + "/netperf";
}

class Dscp : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "network namespaces need root (run ctest as root)";
    if (tool("nft").empty()) GTEST_SKIP() << "nft is not installed (Debian package nftables)";
    net_ = std::make_unique<NetnsPair>();
    if (!net_->skip_reason.empty()) GTEST_SKIP() << net_->skip_reason;
    ASSERT_EQ(net_->error, "") << "setting up the namespaces failed";
    server_ = std::make_unique<Process>(
        net_->in(net_->a, {kDir + "/netserver", "-D", "-p", kPort, "-L", "10.77.0.1"}));
    bool up = false;
    for (int i = 0; i < 100 && !up; ++i) {
      Cmd c = net_->exec(net_->a, {tool("ss"), "-Hltn", "sport", "=", ":" + kPort});
      up = c.ok() && !c.out.empty();
      if (!up) std::this_thread::sleep_for(50ms);
    }
    ASSERT_TRUE(up) << "flowperf's netserver did not start in " << net_->a;
    count_in(net_->a, "10.77.0.2", "cs1");
    count_in(net_->b, "10.77.0.1", "af21");
  }

  // Two counters on ns's input: the data packets from `from` (the control
  // connection's left out), and those of them with DSCP `dscp`.
  void count_in(const std::string& ns, const std::string& from, const std::string& dscp) {
    const std::string t = std::string("inet ") + kTable;
    const std::string rule = "add rule " + t + " in ip saddr " + from + " ";
    // The control connection's packets leave the chain first. (Two port
    // matches in one rule would not do: nft merges `th sport != P th dport
    // != P` into one 32-bit comparison, true unless both ports are P.)
    const std::string rules =
        "add table " + t + "; add chain " + t +
        " in { type filter hook input priority 0; policy accept; }; " + rule + "th sport " + kPort +
        " accept; " + rule + "th dport " + kPort + " accept; " + rule +
        "meta l4proto { tcp, udp } counter comment \"all\"; " + rule +
        "meta l4proto { tcp, udp } ip dscp " + dscp + " counter comment \"marked\"";
    Cmd c = net_->exec(ns, {tool("nft"), rules});
    ASSERT_TRUE(c.ok()) << rules << ": " << c.what();
  }

  // {all, marked} packets counted in ns so far; the counters are then reset.
  std::pair<uint64_t, uint64_t> take(const std::string& ns) {
    Cmd c = net_->exec(ns, {tool("nft"), "-j", "list", "table", "inet", kTable});
    auto j = nlohmann::json::parse(c.out, nullptr, false);
    uint64_t all = 0, marked = 0;
    if (j.is_object() && j.contains("nftables"))
      for (const auto& item : j["nftables"]) {
        if (!item.contains("rule")) continue;
        const std::string comment = item["rule"].value("comment", "");
        for (const auto& e : item["rule"]["expr"])
          if (e.contains("counter"))
            (comment == "marked" ? marked : all) += e["counter"].value("packets", uint64_t{0});
      }
    net_->exec(ns, {tool("nft"), "reset", "counters", "table", "inet", kTable});
    return {all, marked};
  }

  void run_and_count(const std::string& netperf, const char* test) {
    SCOPED_TRACE(netperf + " " + test);
    take(net_->a);
    take(net_->b);
    Cmd c = run(net_->in(net_->b, {netperf, "-H", "10.77.0.1", "-p", kPort, "-t", test, "-l", "1",
                                   "-P", "0", "-Y", "0x20,0x48"}),
                30s);
    ASSERT_TRUE(c.ok()) << c.what();
    const auto [to_server, to_server_marked] = take(net_->a);
    const auto [to_client, to_client_marked] = take(net_->b);
    std::printf("[ dscp ] %s %s: netperf->netserver %llu of %llu cs1, back %llu of %llu af21\n",
                netperf.c_str(), test, static_cast<unsigned long long>(to_server_marked),
                static_cast<unsigned long long>(to_server),
                static_cast<unsigned long long>(to_client_marked),
                static_cast<unsigned long long>(to_client));
    EXPECT_GT(to_server, 100u);
    EXPECT_GT(to_client, 100u);
    EXPECT_EQ(to_server_marked, to_server);
    EXPECT_EQ(to_client_marked, to_client);
  }

  std::unique_ptr<NetnsPair> net_;
  std::unique_ptr<Process> server_;
};

TEST_F(Dscp, FlowperfNetperfMarksBothDirections) {
  for (const char* test : {"TCP_STREAM", "TCP_RR", "UDP_RR"})
    run_and_count(kDir + "/netperf", test);
}

// netperf 2.7 asks flowperf's netserver for af21 over netperf's own wire.
TEST_F(Dscp, RealNetperfGetsItsDscpFromFlowperfNetserver) {
  if (::access(peer_netperf().c_str(), X_OK) != 0) {
    if (std::getenv("CI")) FAIL() << "no real netperf at " << peer_netperf();
    GTEST_SKIP() << "no real netperf at " << peer_netperf()
                 << " (build it with ../shared/peers/build-peers.sh)";
  }
  for (const char* test : {"TCP_STREAM", "UDP_RR"}) run_and_count(peer_netperf(), test);
}

}  // namespace
}  // namespace flowperf::testing::netns
