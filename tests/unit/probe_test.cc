// Latency under load (--probe) and both directions at once (--bidir, and
// -t RRUL with both): what a stream test may ask for, and how the probe's
// two runs (idle, loaded) and the other direction are shown in JSON and
// text, on hand-made results (no sockets; tests/e2e/probe_e2e_test.cc runs
// them).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <sstream>
#include <string>

#include "report/json_report.h"
#include "report/text_report.h"
#include "spec/spec_json.h"
#include "spec/test_spec.h"

namespace flowperf {
namespace {

using spec::TestKind;
using ::testing::HasSubstr;
using ::testing::Not;

std::string problems(const spec::TestSpec& s) {
  std::string all;
  for (const auto& p : spec::validate(s, spec::End::kLocal)) all += p + "\n";
  return all;
}

spec::TestSpec stream_with_probe() {
  spec::TestSpec s;
  s.test = TestKind::kTcpStream;
  s.probe_rate_tps = 100;
  return s;
}

TEST(ProbeSpec, EveryStreamTestTakesAProbe) {
  for (TestKind k : {TestKind::kTcpStream, TestKind::kTcpMaerts, TestKind::kUdpStream}) {
    auto s = stream_with_probe();
    s.test = k;
    EXPECT_EQ(problems(s), "") << spec::info(k).name;
    s.probe_test = TestKind::kUdpRr;
    EXPECT_EQ(problems(s), "") << spec::info(k).name;
  }
}

TEST(ProbeSpec, EveryMisuseIsNamed) {
  auto s = stream_with_probe();
  s.test = TestKind::kTcpRr;
  EXPECT_THAT(problems(s), HasSubstr("a latency probe runs beside a stream test"));
  EXPECT_THAT(problems(s), HasSubstr("--rate loads a TCP_RR open loop itself"));

  s = stream_with_probe();
  s.probe_rate_tps = -5;
  EXPECT_THAT(problems(s), HasSubstr("--probe -5: probe requests a second must be more than 0"));
  s.probe_rate_tps = spec::kMaxProbeRateTps * 2;
  EXPECT_THAT(problems(s), HasSubstr("at most 100000"));

  s = stream_with_probe();
  s.probe_test = TestKind::kTcpCrr;
  EXPECT_THAT(problems(s), HasSubstr("--probe-test TCP_CRR: the probe is TCP_RR or UDP_RR"));

  s = stream_with_probe();
  s.probe_baseline_s = 0;
  EXPECT_THAT(problems(s), HasSubstr("--baseline 0: the idle probe's length must be more than 0"));
  s.probe_baseline_s = 0.5;
  s.probe_rate_tps = 1;
  EXPECT_THAT(problems(s), HasSubstr("sends no idle request"));

  spec::TestSpec plain;
  plain.probe_baseline_s = 5;
  EXPECT_THAT(problems(plain), HasSubstr("give --probe RATE too"));
  plain = {};
  plain.probe_test = TestKind::kUdpRr;
  EXPECT_THAT(problems(plain), HasSubstr("give --probe RATE too"));
  EXPECT_EQ(problems(spec::TestSpec{}), "");
}

TEST(ProbeSpec, TheProbeTravelsInTheSpecJson) {
  auto s = stream_with_probe();
  s.probe_baseline_s = 1.5;
  s.probe_test = TestKind::kUdpRr;
  const spec::TestSpec back = spec::spec_from_json(spec::to_json(s));
  EXPECT_EQ(back.probe_rate_tps, 100);
  EXPECT_EQ(back.probe_baseline_s, 1.5);
  EXPECT_EQ(back.probe_test, TestKind::kUdpRr);
}

TEST(BidirSpec, TcpStreamsOnlyAndNoFixedDataPorts) {
  spec::TestSpec s;
  s.bidir = true;
  for (TestKind k : {TestKind::kTcpStream, TestKind::kTcpMaerts}) {
    s.test = k;
    EXPECT_EQ(problems(s), "") << spec::info(k).name;
  }
  for (TestKind k : {TestKind::kUdpStream, TestKind::kTcpRr, TestKind::kUdpRr}) {
    s.test = k;
    EXPECT_THAT(problems(s),
                HasSubstr(std::string("--bidir: both directions at once is for TCP_STREAM and "
                                      "TCP_MAERTS, not ") +
                          spec::info(k).name));
  }
  s.test = TestKind::kTcpStream;
  s.remote.data_port = 5001;
  EXPECT_THAT(problems(s), HasSubstr("cannot share fixed data ports"));
  s.remote.data_port = 0;
  s.bidir = true;
  EXPECT_TRUE(spec::spec_from_json(spec::to_json(s)).bidir);
}

// A probe run: `answers` transactions, each `us` microseconds, of `sent`.
results::TestResult probe_run(uint64_t sent, uint64_t answers, uint64_t us, double seconds) {
  results::TestResult p;
  p.spec.test = TestKind::kTcpRr;
  p.spec.rate_tps = 100;
  p.spec.duration_s = seconds;
  p.have_remote = true;
  p.local_side.elapsed_s = p.remote_side.elapsed_s = seconds;
  results::FlowResult f;
  f.elapsed_s = seconds;
  f.transactions = answers;
  f.sched_intended = sent;
  f.sched_unsent = 3;
  for (uint64_t i = 0; i < answers; ++i) p.local_side.latency.record(us * 1000);
  p.local_side.flows = {f};
  p.remote_side.flows = {f};
  return p;
}

results::TestResult stream_result(std::shared_ptr<results::ProbeResult> probe) {
  results::TestResult r;
  r.spec = stream_with_probe();
  r.spec.duration_s = 3;
  r.have_remote = true;
  r.local_side.elapsed_s = r.remote_side.elapsed_s = 3;
  results::FlowResult f;
  f.elapsed_s = 3;
  f.bytes_sent = 3'000'000;
  r.local_side.flows = {f};
  f.bytes_recv = 3'000'000;
  r.remote_side.flows = {f};
  r.probe = std::move(probe);
  return r;
}

TEST(ProbeReport, JsonHasBothPhasesInTheShapeOfTotal) {
  auto probe = std::make_shared<results::ProbeResult>();
  probe->idle = probe_run(200, 200, 50, 2);
  probe->loaded = probe_run(300, 297, 40'000, 3);
  const auto r = stream_result(probe);
  const auto j = report::result_json(r);
  ASSERT_TRUE(j.contains("probe")) << j.dump(2);
  const auto& p = j["probe"];
  EXPECT_EQ(p["test"], "TCP_RR");
  EXPECT_EQ(p["rate_per_second"], 100.0);
  EXPECT_EQ(p["baseline_s"], 2.0);
  EXPECT_EQ(p["message_bytes"], 1);
  EXPECT_EQ(p["idle"]["transactions"], 200);
  EXPECT_DOUBLE_EQ(p["idle"]["transactions_per_second"].get<double>(), 100.0);
  EXPECT_DOUBLE_EQ(p["idle"]["latency_us"]["p50"].get<double>(), 50.0);
  EXPECT_EQ(p["idle"]["open_loop"]["sent"], 200);
  EXPECT_EQ(p["idle"]["open_loop"]["unsent"], 3);
  EXPECT_EQ(p["loaded"]["transactions"], 297);
  EXPECT_NEAR(p["loaded"]["latency_us"]["p50"].get<double>(), 40'000.0, 40'000.0 / 100);
  EXPECT_TRUE(p["loaded"]["errors"].empty());
  // The same keys as the stream test's own total would have for an RR test.
  const auto rr = report::result_json(*probe->idle)["total"];
  for (const auto& [key, value] : rr["latency_us"].items())
    EXPECT_TRUE(p["loaded"]["latency_us"].contains(key)) << key;
  // The stream test's own figures are untouched.
  EXPECT_EQ(j["test"], "TCP_STREAM");
  EXPECT_EQ(j["total"]["bytes_received"], 3'000'000);
  // write_result_json() splices arrays around the probe object: the same text.
  std::ostringstream out;
  report::write_result_json(out, r);
  EXPECT_EQ(out.str(), report::pretty_json(j));
  // No probe, no key.
  EXPECT_FALSE(report::result_json(stream_result(nullptr)).contains("probe"));
}

TEST(ProbeReport, APhaseThatDidNotRunIsNull) {
  auto probe = std::make_shared<results::ProbeResult>();
  probe->idle = probe_run(50, 50, 60, 0.5);
  probe->idle->interrupted = true;
  auto r = stream_result(probe);
  r.local_side.flows.clear();
  r.remote_side.flows.clear();
  r.interrupted = true;
  const auto j = report::result_json(r);
  EXPECT_TRUE(j["probe"]["loaded"].is_null());
  EXPECT_EQ(j["probe"]["idle"]["transactions"], 50);
  const std::string text = report::text_result(r, {});
  EXPECT_THAT(text, HasSubstr("loaded  (did not run)"));
  EXPECT_THAT(text, Not(HasSubstr("under load: p50")));
}

TEST(ProbeReport, TextShowsIdleAndLoadedSideBySide) {
  auto probe = std::make_shared<results::ProbeResult>();
  probe->idle = probe_run(200, 200, 50, 2);
  probe->loaded = probe_run(300, 297, 40'000, 3);
  probe->loaded->error = "reset by peer";
  const std::string text = report::text_result(stream_result(probe), {});
  EXPECT_THAT(text, HasSubstr("latency under load: TCP_RR probe, 1 B each way, open loop at "
                              "100/s, 2 s idle first"));
  EXPECT_THAT(text, HasSubstr("Probe   Time(s)       Sent   Answered   Unsent"));
  EXPECT_THAT(text, HasSubstr("   idle      2.00        200        200        3       50.0"));
  EXPECT_THAT(text, HasSubstr(" loaded      3.00        300        297        3"));
  EXPECT_THAT(text, HasSubstr("error: reset by peer"));
  // The median and the tail side by side, idle -> loaded.
  EXPECT_THAT(text, HasSubstr("under load: p50 "));
  EXPECT_THAT(text, HasSubstr("; p99 "));
  EXPECT_EQ(report::text_result(stream_result(nullptr), {}).find("latency under load"),
            std::string::npos);
}

TEST(BidirReport, TheOtherDirectionIsADocumentOfItsOwnAndTheTextSumsBoth) {
  auto r = stream_result(nullptr);
  r.spec.bidir = true;
  auto back = stream_result(nullptr);
  back.spec.test = TestKind::kTcpMaerts;
  back.spec.probe_rate_tps = 0;
  back.local_side.flows[0].bytes_recv = 6'000'000;
  back.remote_side.flows[0].bytes_sent = 6'000'000;
  r.reverse = std::make_shared<const results::TestResult>(back);
  const auto j = report::result_json(r);
  ASSERT_TRUE(j.contains("reverse"));
  EXPECT_EQ(j["reverse"]["test"], "TCP_MAERTS");
  EXPECT_DOUBLE_EQ(j["reverse"]["total"]["bits_per_second"].get<double>(), 16e6);
  EXPECT_DOUBLE_EQ(j["total"]["bits_per_second"].get<double>(), 8e6);
  EXPECT_FALSE(j["reverse"].contains("schema_version"));
  EXPECT_TRUE(j["reverse"]["local"]["flows"].is_array());
  std::ostringstream out;
  report::write_result_json(out, r);
  EXPECT_EQ(out.str(), report::pretty_json(j));

  const std::string text = report::text_result(r, {});
  EXPECT_THAT(text, HasSubstr("the other direction, TCP_MAERTS at the same time:"));
  EXPECT_THAT(text, HasSubstr("both ways: 8.00 Mbit/s + 16.00 Mbit/s = 24.00 Mbit/s"));
  EXPECT_THAT(report::text_header(r), HasSubstr("and TCP_MAERTS the other way at the same time"));
  EXPECT_FALSE(report::result_json(stream_result(nullptr)).contains("reverse"));
}

}  // namespace
}  // namespace flowperf
