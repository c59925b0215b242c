// Latency under load (--probe) against a real `flowperf server` process on
// 127.0.0.1: the probe runs open loop at its rate alone for the baseline and
// then beside the streams, and both runs are in the JSON with their counts;
// the text shows them side by side; UDP_RR probes too; a count-ended stream
// test stops its probe when it ends; Ctrl-C during the baseline still
// reports the idle probe; misuse is refused with exit 2. And --bidir: the
// other direction at the same time, alone and in -t RRUL (four streams
// each way and the probe). (The queue a loaded link builds is measured in
// tests/netns/.)
#include <gtest/gtest.h>
#include <signal.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "e2e/served.h"
#include "support/paths.h"

namespace flowperf::testing {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

const std::string kBin = ::flowperf::testing::flowperf_bin();

class Probe : public ServedSuite {
 protected:
  static Outcome run(std::vector<std::string> args) { return Process(argv(args)).wait(60s); }
  static json parse(const Outcome& o, int exit_code = 0) {
    EXPECT_FALSE(o.timed_out);
    EXPECT_EQ(o.exit_code, exit_code) << o.err;
    json j = json::parse(o.out, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << o.out;
    return j;
  }
};

double d(const json& j) { return j.get<double>(); }
uint64_t u64(const json& j) { return j.get<uint64_t>(); }

// A phase's schedule: about rate × seconds sent, every answer timed.
void ExpectPhase(const json& p, double rate, double seconds, const char* name) {
  SCOPED_TRACE(name);
  ASSERT_TRUE(p.is_object()) << p;
  const double sent = d(p["open_loop"]["sent"]);
  // The schedule counts from the phase's start and sends late requests once the worker runs,
  // so only the ends move the count: the one due at each end (the 2), and for the loaded phase
  // its handshake after the streams started. 5% of 2 s at 200/s is 20 requests, 100 ms of that.
  EXPECT_NEAR(sent, rate * seconds, rate * seconds * 0.05 + 2);
  EXPECT_LE(u64(p["open_loop"]["unsent"]), 1u);  // one due as the run ended
  // Those in flight at the end are answered in the drain, so the two are equal on loopback;
  // 2 is slack for one or two that were not.
  EXPECT_GE(u64(p["transactions"]) + 2, u64(p["open_loop"]["sent"]));
  EXPECT_EQ(u64(p["latency_us"]["count"]), u64(p["transactions"]));
  // A round trip takes some microseconds however idle the machine: 0 is a missing figure.
  EXPECT_GT(d(p["latency_us"]["p50"]), 0);
  EXPECT_TRUE(p["errors"].empty()) << p["errors"];
}

TEST_F(Probe, IdleThenLoadedAtTheProbesRate) {
  const json j =
      parse(run({"-t", "TCP_STREAM", "-l", "2", "--probe", "200", "--baseline", "1", "--json"}));
  EXPECT_EQ(j["test"], "TCP_STREAM");
  // The streams ran: 100 Mbit/s is under 1% of loopback TCP_STREAM here (README: 12-17 Gbit/s).
  EXPECT_GT(d(j["total"]["bits_per_second"]), 1e8);
  EXPECT_EQ(d(j["spec"]["probe_rate_tps"]), 200);
  const json& p = j["probe"];
  EXPECT_EQ(p["test"], "TCP_RR");
  EXPECT_EQ(d(p["rate_per_second"]), 200);
  ExpectPhase(p["idle"], 200, 1, "idle");
  // Beside the streams: from their start to their end, about 2 s.
  ExpectPhase(p["loaded"], 200, 2, "loaded");
  // The probe starts after the streams and ends at its own 2 s or when stopped with them, which
  // its run loop notices within a 10 ms tick: 50 ms is room for that and for its drain.
  EXPECT_LE(d(p["loaded"]["elapsed_s"]), d(j["total"]["elapsed_s"]) + 0.05);
  EXPECT_FALSE(j["interrupted"].get<bool>());
}

TEST_F(Probe, UdpRrProbeBesideAPacedUdpStream) {
  const json j = parse(run({"-t", "UDP_STREAM", "-b", "200M", "-l", "2", "--probe", "100",
                            "--probe-test", "UDP_RR", "--baseline", "1", "--json"}));
  EXPECT_EQ(j["probe"]["test"], "UDP_RR");
  ExpectPhase(j["probe"]["idle"], 100, 1, "idle");
  ExpectPhase(j["probe"]["loaded"], 100, 2, "loaded");
  EXPECT_GT(u64(j["total"]["datagrams_received"]), 0u);
}

TEST_F(Probe, TextShowsBothRunsSideBySide) {
  // -t RRUL, one stream each way: the header names RRUL, not TCP_STREAM.
  const Outcome o =
      run({"-t", "rrul", "-P", "1", "-l", "1", "--probe", "100", "--baseline", "0.5"});
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find(": RRUL — TCP_STREAM both ways with a latency probe\n"), std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("latency under load: TCP_RR probe, 1 B each way, open loop at 100/s"),
            std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("   idle  "), std::string::npos) << o.out;
  EXPECT_NE(o.out.find(" loaded  "), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("under load: p50 "), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("; p99 "), std::string::npos) << o.out;
}

TEST_F(Probe, ACountedStreamTestEndsItsProbe) {
  // 200 MB at loopback speed: well under a second; the probe (3600 s long
  // as far as it knows) is stopped when the streams end.
  const Outcome o = Process(argv({"-t", "TCP_STREAM", "-n", "200M", "--probe", "100", "--baseline",
                                  "0.5", "--json"}))
                        .wait(30s);
  const json j = parse(o);
  const json& loaded = j["probe"]["loaded"];
  ASSERT_TRUE(loaded.is_object());
  // Stopped with the streams, noticed within its 10 ms run-loop tick, after the streams'
  // results came back: milliseconds past their elapsed time, 0.5 s with room. Not stopped, it
  // would run its hour.
  EXPECT_LT(d(loaded["elapsed_s"]), d(j["total"]["elapsed_s"]) + 0.5);
  EXPECT_TRUE(loaded["errors"].empty()) << loaded["errors"];
  EXPECT_FALSE(j["interrupted"].get<bool>());
}

TEST_F(Probe, CtrlCDuringTheBaselineReportsTheIdleProbe) {
  Process client(
      argv({"-t", "TCP_STREAM", "-l", "5", "--probe", "100", "--baseline", "5", "--json"}));
  std::this_thread::sleep_for(1500ms);
  client.signal(SIGINT);
  const json j = parse(client.wait(30s), 130);  // 128 + SIGINT, as for any interrupted test
  EXPECT_TRUE(j["interrupted"].get<bool>());
  const json& idle = j["probe"]["idle"];
  ASSERT_TRUE(idle.is_object()) << j["probe"];
  // 1.5 s less the start-up (a few ms) at 100/s: about 150. 50 allows a second of start-up on a
  // loaded machine; 400 is under the 500 of a baseline that ran its 5 s, ignoring the SIGINT.
  EXPECT_GT(u64(idle["transactions"]), 50u);  // ~1.5 s at 100/s
  EXPECT_LT(u64(idle["transactions"]), 400u);
  EXPECT_TRUE(j["probe"]["loaded"].is_null());
}

TEST_F(Probe, TheEmbeddedServerCarriesBothTests) {
  const Outcome o = Process({kBin, "-t", "TCP_STREAM", "-l", "1", "--probe", "100", "--baseline",
                             "0.5", "--json"})
                        .wait(30s);
  const json j = parse(o);
  ExpectPhase(j["probe"]["idle"], 100, 0.5, "idle");
  ExpectPhase(j["probe"]["loaded"], 100, 1, "loaded");
}

TEST_F(Probe, BidirRunsTheOtherDirectionAtTheSameTime) {
  const json j = parse(run({"-t", "TCP_MAERTS", "--bidir", "-P", "2", "-l", "2", "--json"}));
  EXPECT_EQ(j["test"], "TCP_MAERTS");
  EXPECT_TRUE(j["spec"]["bidir"].get<bool>());
  const json& back = j["reverse"];
  ASSERT_TRUE(back.is_object());
  EXPECT_EQ(back["test"], "TCP_STREAM");
  EXPECT_FALSE(back["spec"]["bidir"].get<bool>());
  // Read back from the sockets: each test's client flows moved data their own way.
  ASSERT_EQ(j["local"]["flows"].size(), 2u);
  ASSERT_EQ(back["local"]["flows"].size(), 2u);
  // 1 MB in 2 s is 4 Mbit/s a flow, well under 1% of a quarter of loopback TCP_STREAM here
  // (README: 12-17 Gbit/s): each flow moved data, however unevenly the four shared the CPUs.
  for (const auto& f : j["local"]["flows"]) EXPECT_GT(u64(f["bytes_recv"]), 1'000'000u);
  for (const auto& f : back["local"]["flows"]) EXPECT_GT(u64(f["bytes_sent"]), 1'000'000u);
  // At the same time: both ran for the test's length. The other direction starts a handshake
  // after the first and ends at its own 2 s or with it: a few ms apart, and 0.2 s is room for
  // a handshake slowed by load.
  EXPECT_NEAR(d(back["total"]["elapsed_s"]), d(j["total"]["elapsed_s"]), 0.2);
  EXPECT_FALSE(j.contains("probe"));
}

TEST_F(Probe, RrulIsFourStreamsEachWayAndAProbe) {
  const json j = parse(run({"-t", "rrul", "-l", "2", "--baseline", "0.5", "--json"}));
  EXPECT_EQ(j["test"], "TCP_STREAM");
  EXPECT_EQ(j["local"]["flows"].size(), 4u);
  ASSERT_TRUE(j["reverse"].is_object());
  EXPECT_EQ(j["reverse"]["test"], "TCP_MAERTS");
  EXPECT_EQ(j["reverse"]["local"]["flows"].size(), 4u);
  EXPECT_EQ(d(j["probe"]["rate_per_second"]), 100);
  ExpectPhase(j["probe"]["idle"], 100, 0.5, "idle");
  ExpectPhase(j["probe"]["loaded"], 100, 2, "loaded");
  // -P and --probe still choose.
  const json k = parse(
      run({"-t", "RRUL", "-P", "1", "--probe", "20", "-l", "1", "--baseline", "0.5", "--json"}));
  EXPECT_EQ(k["local"]["flows"].size(), 1u);
  EXPECT_EQ(k["reverse"]["local"]["flows"].size(), 1u);
  EXPECT_EQ(d(k["probe"]["rate_per_second"]), 20);
}

TEST_F(Probe, MisuseIsRefusedWithItsReason) {
  struct Case {
    std::vector<std::string> args;
    const char* says;
  };
  for (const Case& c : {
           Case{{"-t", "TCP_RR", "--probe", "100"}, "a latency probe runs beside a stream test"},
           Case{{"-t", "TCP_STREAM", "--probe", "often"}, "--probe often: give transactions"},
           Case{{"-t", "TCP_STREAM", "--probe", "1M"}, "at most 100000"},
           Case{{"-t", "TCP_STREAM", "--baseline", "1"}, "give --probe RATE too"},
           Case{{"-t", "TCP_STREAM", "--probe", "10", "--probe-test", "TCP_CRR"},
                "--probe-test TCP_CRR: the probe is TCP_RR or UDP_RR"},
           Case{{"-t", "TCP_STREAM", "--probe", "10", "--probe-test", "PING"},
                "--probe-test PING: the probe is TCP_RR or UDP_RR"},
           Case{{"-t", "UDP_STREAM", "--bidir"}, "--bidir: both directions at once is for"},
           Case{{"-t", "TCP_RR", "--bidir"}, "not TCP_RR"},
           Case{{"-t", "RRULZ"}, "or RRUL (TCP_STREAM --bidir -P 4 --probe 100)"},
       }) {
    const Outcome o = run(c.args);
    EXPECT_EQ(o.exit_code, 2) << o.err;
    EXPECT_NE(o.err.find(c.says), std::string::npos) << o.err;
  }
}

}  // namespace
}  // namespace flowperf::testing
