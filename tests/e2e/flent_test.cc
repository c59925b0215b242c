// flent (the Debian package) runs its netperf-based tests against flowperf's
// netperf and netserver personalities as it does against netperf 2.7: exit 0,
// every series with data, and the per-flow metadata flent reads from
// netperf's -k selectors and DUMP_TCP_INFO lines filled. flent's aggregators
// used to fail on the 0.00 interim results flowperf printed for a starved
// flow; the demo test below starves one on purpose and reads the interim
// lines back.
//
// Label "flent", RUN_SERIAL: each run loads both cores with up to 11 flows.
// With CI set, a missing flent fails instead of skipping.
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "e2e/netperf_peers.h"
#include "support/paths.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace flowperf::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kDir = ::flowperf::testing::bin_dir();
const std::string kFlent = "/usr/bin/flent";
// Short runs with short delays keep the six runs under 90 s in all.
constexpr int kLength = 4, kDelay = 1;

#define REQUIRE_FLENT() \
  REQUIRE_TOOL(kFlent, "apt-get install flent fping, as scripts/setup.sh does")

// flowperf's netserver on a free port of 127.0.0.1.
struct FlowperfNetserver : Netserver {
  FlowperfNetserver() : Netserver(personality("netserver")) {}
};

struct FlentRun {
  Outcome outcome;
  json data;  // the .flent.gz data file, or null
};

// `flent <test>` with `bin_dir` first in PATH (its netperf is the one run),
// against the netserver on `port`; reads back the data file it wrote.
FlentRun run_flent(const std::string& test, const std::string& bin_dir, uint16_t port,
                   const std::vector<std::string>& extra = {}) {
  TempDir dir;
  const char* path = std::getenv("PATH");
  std::vector<std::string> argv{"/usr/bin/env",
                                "PATH=" + bin_dir + ":" + (path ? path : "/usr/bin:/bin"),
                                kFlent,
                                test,
                                "-H",
                                "127.0.0.1",
                                "-l",
                                std::to_string(kLength),
                                "-d",
                                std::to_string(kDelay),
                                "--netperf-control-port",
                                std::to_string(port),
                                "-D",
                                dir.path().string()};
  argv.insert(argv.end(), extra.begin(), extra.end());
  Process p(argv);
  FlentRun r;
  r.outcome = p.wait(90s);
  for (const auto& e : fs::directory_iterator(dir.path())) {
    if (e.path().string().ends_with(".flent.gz")) {
      Process gz({"/bin/gzip", "-dc", e.path().string()});
      Outcome o = gz.wait(10s);
      r.data = json::parse(o.out, nullptr, false);
    }
  }
  return r;
}

// A directory holding only netperf and netserver, both flowperf's (the
// build directory has the other personalities too, which flent must not
// find before the real tools).
class FlowperfTools {
 public:
  FlowperfTools() {
    for (const char* name : {"netperf", "netserver"})
      fs::create_symlink(fs::path(kDir) / name, dir_.path() / name);
  }
  std::string path() const { return dir_.path().string(); }

 private:
  TempDir dir_;
};

// "..####." for a series: a point with data as '#', an empty one as '.'.
std::string pattern(const json& series) {
  std::string p;
  for (const auto& v : series) p += v.is_null() ? '.' : '#';
  return p;
}

size_t nulls(const json& series) {
  size_t n = 0;
  for (const auto& v : series) n += v.is_null();
  return n;
}

bool from_netperf(const json& data, const std::string& series) {
  const json& m = data["metadata"]["SERIES_META"][series];
  return m.value("RUNNER", "") == "NetperfDemoRunner";
}

// What every run must show whichever netperf made it: exit 0, no Python
// trace, flent's own complaint about missing netperf metadata absent, every
// series with data, and each netperf flow's metadata filled.
void check_run(const std::string& test, const FlentRun& r) {
  SCOPED_TRACE(test);
  EXPECT_EQ(r.outcome.exit_code, 0) << r.outcome.err;
  EXPECT_FALSE(r.outcome.timed_out);
  EXPECT_EQ(r.outcome.err.find("Traceback"), std::string::npos) << r.outcome.err;
  EXPECT_EQ(r.outcome.err.find("Missing required netperf metadata"), std::string::npos)
      << r.outcome.err;
  ASSERT_TRUE(r.data.is_object()) << "no readable data file\n" << r.outcome.err;
  const json& results = r.data["results"];
  ASSERT_TRUE(results.is_object());
  ASSERT_FALSE(results.empty());
  for (const auto& [name, series] : results.items()) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(series.is_array());
    EXPECT_GT(series.size(), 0u);
    // Data in at least half of the test's own length (the rest of the
    // points are the delays before and after, null with netperf 2.7 too).
    // flent samples every 0.2 s, so the 4 s give 20 points: 10 leave 2 s for netperf start-ups
    // and flows that begin or end late on a loaded machine. A series without data has none.
    EXPECT_GE(series.size() - nulls(series), static_cast<size_t>(kLength / 0.2 / 2));
    if (!from_netperf(r.data, name)) continue;
    const json& m = r.data["metadata"]["SERIES_META"][name];
    EXPECT_TRUE(m.contains("UPSTREAM_TOS") && m["UPSTREAM_TOS"].is_number()) << m.dump();
    EXPECT_TRUE(m.contains("DOWNSTREAM_TOS") && m["DOWNSTREAM_TOS"].is_number()) << m.dump();
    // Any flow that ran its 4 s has a mean and an elapsed time above 0, however slowly it ran:
    // a 0 is a field left unfilled, not a slow machine.
    EXPECT_GT(m.value("MEAN_VALUE", 0.0), 0) << m.dump();
    EXPECT_GT(m.value("ELAPSED_TIME", 0.0), 0) << m.dump();
    if (name.starts_with("Ping")) continue;  // UDP_RR: no TCP metadata
    EXPECT_TRUE(m.contains("CONG_CONTROL") && m["CONG_CONTROL"].is_string() &&
                !m["CONG_CONTROL"].get<std::string>().empty())
        << m.dump();
    EXPECT_GT(m.value("TCP_MSS", 0), 0) << m.dump();
    EXPECT_TRUE(m.contains("TCP_RETRANSMIT") && !m["TCP_RETRANSMIT"].is_null()) << m.dump();
    EXPECT_GT(m.value("BYTES_SENT", int64_t{-1}), 0) << m.dump();
    EXPECT_GT(m.value("BYTES_RECVD", int64_t{-1}), 0) << m.dump();
    EXPECT_GT(m.value("SEND_SIZE", -1), 0) << m.dump();
    EXPECT_GT(m.value("RECV_SIZE", -1), 0) << m.dump();
    // The DUMP_TCP_INFO lines of the local end.
    for (const char* k : {"TCPI_RTO", "TCPI_RTT", "TCPI_PMTU", "TCPI_TOTAL_RETRANS"})
      EXPECT_TRUE(m.contains(k) && m[k].is_number()) << k << " in " << m.dump();
    EXPECT_GT(m.value("TCPI_PMTU", 0), 0) << m.dump();
  }
}

class Flent : public ::testing::Test {
 protected:
  void SetUp() override {
    REQUIRE_FLENT();
    ASSERT_NE(server_.port(), 0) << "flowperf's netserver did not start";
  }
  FlowperfTools tools_;
  FlowperfNetserver server_;
};

TEST_F(Flent, NetperfTestsRunAgainstFlowperf) {
  check_run("rrul", run_flent("rrul", tools_.path(), server_.port()));
  check_run("tcp_bidirectional", run_flent("tcp_bidirectional", tools_.path(), server_.port()));
  // tcp_nup needs its number of flows.
  check_run("tcp_nup", run_flent("tcp_nup", tools_.path(), server_.port(),
                                 {"--test-parameter", "upload_streams=4"}));
}

TEST_F(Flent, CubicRenoGetsTheCongestionControlAndMarkingAskedFor) {
  const FlentRun r = run_flent("cubic_reno", tools_.path(), server_.port());
  check_run("cubic_reno", r);
  ASSERT_TRUE(r.data.is_object());
  // Each flow asks for cubic or reno (-K) and CS0 or CS1 (-Y); its series'
  // metadata says what the sockets had, as netperf 2.7 reports it.
  int tcp_flows = 0;
  for (const auto& [name, m] : r.data["metadata"]["SERIES_META"].items()) {
    if (!name.starts_with("TCP") || !m.contains("CONG_CONTROL")) continue;
    SCOPED_TRACE(name);
    ++tcp_flows;
    const std::string cc = name.find("Cubic") != std::string::npos ? "cubic" : "reno";
    EXPECT_EQ(m.value("CONG_CONTROL", ""), cc);
    const int tos = name.ends_with("CS1") ? 0x20 : 0;
    EXPECT_EQ(m.value("UPSTREAM_TOS", -1), tos);
    EXPECT_EQ(m.value("DOWNSTREAM_TOS", -1), tos);
  }
  EXPECT_EQ(tcp_flows, 8) << r.data["metadata"]["SERIES_META"].dump();
}

// rrul_be against both netperfs: flowperf's gives each series as many
// points with data as netperf 2.7's does, beyond a little timing jitter.
// (Points, not gaps: the run's time axis can come out a second longer on a
// loaded machine, which pads every series with empty points at its ends.)
TEST_F(Flent, RrulBeHasAsManyPointsAsWithNetperf27) {
  REQUIRE_PEER();
  const FlentRun ours = run_flent("rrul_be", tools_.path(), server_.port());
  check_run("rrul_be (flowperf)", ours);
  Netserver real;
  ASSERT_NE(real.port(), 0);
  const FlentRun theirs = run_flent("rrul_be", peer_dir(), real.port());
  check_run("rrul_be (netperf 2.7)", theirs);
  ASSERT_TRUE(ours.data.is_object() && theirs.data.is_object());
  for (const auto& [name, series] : theirs.data["results"].items()) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(ours.data["results"].contains(name));
    const json& mine = ours.data["results"][name];
    // 3 points are 0.6 s of flent's 0.2 s steps: room for a flow of ours to start or end a few
    // steps from netperf 2.7's on a loaded machine; a series that lost its data lacks about 20.
    EXPECT_GE(mine.size() - nulls(mine) + 3, series.size() - nulls(series))
        << "flowperf    " << pattern(mine) << "\nnetperf 2.7 " << pattern(series);
  }
}

// A flow starved on purpose: the server stopped (SIGSTOP) for 0.8 s while
// netperf -D 0.1 sends through small socket buffers. netperf 2.7 prints no
// interval until work was done again, then one covering the whole stall;
// so must flowperf: no 0.00 line, and the intervals add up to the test.
TEST(FlentDemo, StarvedFlowPrintsNoZeroInterval) {
  FlowperfNetserver server;
  ASSERT_NE(server.port(), 0);
  Process np({kDir + "/netperf",
              "-P",
              "0",
              "-v",
              "0",
              "-D",
              "-0.10",
              "-H",
              "127.0.0.1",
              "-p",
              std::to_string(server.port()),
              "-t",
              "TCP_STREAM",
              "-l",
              "3",
              "-f",
              "m",
              "--",
              "-s",
              "32K",
              "-S",
              "32K",
              "-k",
              "THROUGHPUT,ELAPSED_TIME"});
  std::this_thread::sleep_for(1s);
  ::kill(server.pid(), SIGSTOP);
  std::this_thread::sleep_for(800ms);
  ::kill(server.pid(), SIGCONT);
  const Outcome o = np.wait(20s);
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;

  const std::regex interval(R"(^NETPERF_INTERIM_RESULT\[(\d+)\]=([0-9.]+)$)");
  const std::regex length(R"(^NETPERF_INTERVAL\[(\d+)\]=([0-9.]+)$)");
  const std::regex ending(R"(^NETPERF_ENDING\[(\d+)\]=(\d+)\.(\d{3})$)");
  std::istringstream in(o.out);
  std::vector<double> rates, lengths, endings;
  double elapsed = 0;
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_match(line, m, interval)) rates.push_back(std::stod(m[2]));
    if (std::regex_match(line, m, length)) lengths.push_back(std::stod(m[2]));
    if (std::regex_match(line, m, ending))
      endings.push_back(std::stod(m[2].str() + "." + m[3].str()));
    if (line.starts_with("ELAPSED_TIME=")) elapsed = std::stod(line.substr(13));
  }
  // 3 s at -D 0.1 with the 0.8 s stall as one interval: about 23 expected; 5 only says the
  // interim lines were printed at all.
  ASSERT_GE(rates.size(), 5u) << o.out;
  ASSERT_EQ(rates.size(), lengths.size()) << o.out;
  ASSERT_EQ(rates.size(), endings.size()) << o.out;
  double sum = 0, longest = 0;
  for (size_t i = 0; i < rates.size(); ++i) {
    EXPECT_GT(rates[i], 0) << "interval " << i << " printed 0.00\n" << o.out;
    // All but the last, netperf's short rest at the end, last -D at least
    // (less the half sampling step netperf_cli allows for late samples).
    if (i + 1 < rates.size()) {
      EXPECT_GE(lengths[i], 0.1 - 0.0125 - 0.001) << "interval " << i << " shorter than -D\n"
                                                  << o.out;
    }
    if (i > 0) {
      // Each interval ends where the next begins: the wall clock times
      // printed step by the lengths printed (to the millisecond each).
      // The ending is read as the line is printed, after the sample read its counters and /proc,
      // so it carries that delay too: 50 ms (half of -D) is room for it on a loaded machine.
      EXPECT_NEAR(endings[i] - endings[i - 1], lengths[i], 0.05) << o.out;
    }
    sum += lengths[i];
    longest = std::max(longest, lengths[i]);
  }
  // The lengths add up to the end of the last sample that carried work, ELAPSED_TIME to the
  // flow's end: they differ by that tail and the rounding of ~23 lengths to 1 ms (12 ms at most),
  // so 0.15 s leaves the tail several 25 ms samples on a loaded machine.
  EXPECT_NEAR(sum, elapsed, 0.15) << o.out;
  // The interval that held the stall began at most one -D before it: 0.8 - 0.1 = 0.7 s at least,
  // and a late SIGCONT or a slow resumption on a loaded machine only lengthens it.
  EXPECT_GE(longest, 0.5) << "the 0.8 s stall shows as one long interval\n" << o.out;
}

}  // namespace
}  // namespace flowperf::testing
