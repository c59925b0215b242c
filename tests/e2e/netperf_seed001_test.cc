// Seed 001's TCP_RR run: `./netserver` (which detaches), then fifty
// `netperf -H <server> -l 300 -t TCP_RR -- -r 38,38 &` at once. Here on
// loopback with -l 2, half of the clients flowperf's netperf and half
// netperf 2.7's, all against flowperf's detached netserver: every client
// must finish and report a rate, every request and response must be the
// 38 bytes asked for, and the server must go back to sleep afterwards.
// How fast is bench/seed001.py's business, not this test's.
#include <gtest/gtest.h>
#include <signal.h>

#include <memory>
#include <sstream>
#include <vector>

#include "e2e/daemons.h"
#include "e2e/netperf_peers.h"
#include "support/paths.h"

namespace flowperf::testing {
namespace {

const std::string kDir = ::flowperf::testing::bin_dir();
constexpr int kClients = 50;

// One client's result line with -P 0: local send and receive socket sizes,
// request and response sizes, elapsed seconds, transactions per second.
struct RrLine {
  long sndbuf = 0, rcvbuf = 0, request = 0, response = 0;
  double elapsed = 0, rate = 0;
};

std::optional<RrLine> parse_rr(const std::string& out) {
  std::istringstream in(out);
  RrLine r;
  if (!(in >> r.sndbuf >> r.rcvbuf >> r.request >> r.response >> r.elapsed >> r.rate))
    return std::nullopt;
  return r;
}

TEST(NetperfSeed001, FiftyClientsAgainstADetachedNetserver) {
  REQUIRE_PEER();
  const std::string netserver = kDir + "/netserver";
  const std::string port = std::to_string(free_port());
  Outcome started = Process({netserver, "-p", port, "-L", "127.0.0.1"}).wait(10s);
  ASSERT_EQ(started.exit_code, 0) << started.err;
  pid_t daemon = -1;
  for (int i = 0; i < 50 && daemon < 0; ++i) {
    daemon = find_process({netserver, "-p", port});
    if (daemon < 0) std::this_thread::sleep_for(100ms);
  }
  ASSERT_GT(daemon, 0) << "the detached netserver is not running";
  struct Stop {
    pid_t pid;
    ~Stop() { ::kill(pid, SIGTERM); }
  } stop{daemon};

  std::vector<std::unique_ptr<Process>> clients;
  for (int i = 0; i < kClients; ++i) {
    const std::string netperf = i % 2 ? real_netperf() : kDir + "/netperf";
    clients.push_back(std::make_unique<Process>(
        std::vector<std::string>{netperf, "-H", "127.0.0.1", "-p", port, "-l", "2", "-t", "TCP_RR",
                                 "-P", "0", "--", "-r", "38,38"}));
  }
  double total = 0;
  for (int i = 0; i < kClients; ++i) {
    SCOPED_TRACE("client " + std::to_string(i) + (i % 2 ? " (netperf 2.7)" : " (flowperf)"));
    Outcome o = clients[i]->wait(60s);
    ASSERT_FALSE(o.timed_out);
    EXPECT_EQ(o.exit_code, 0) << o.err;
    auto r = parse_rr(o.out);
    ASSERT_TRUE(r) << o.out << o.err;
    EXPECT_EQ(r->request, 38);
    EXPECT_EQ(r->response, 38);
    // Each client's own 2 s timer, which fifty clients on two CPUs can only lengthen; 1.5
    // catches a time taken from something other than the test.
    EXPECT_GT(r->elapsed, 1.5);
    EXPECT_GT(r->rate, 0);
    total += r->rate;
  }
  std::printf("[ seed 001 ] %d clients: %.0f transactions/s in all\n", kClients, total);

  // All done: the server sleeps (a few clock ticks a second at most, of ~100).
  // Its accept loop wakes once a second to reap the finished sessions' threads: 10 ticks (100 ms)
  // is room for that and for threads still ending after the 300 ms; a busy loop shows ~100.
  std::this_thread::sleep_for(300ms);
  const long before = cpu_ticks(daemon);
  std::this_thread::sleep_for(1s);
  EXPECT_LE(cpu_ticks(daemon) - before, 10) << "the idle netserver kept a CPU busy";
}

}  // namespace
}  // namespace flowperf::testing
