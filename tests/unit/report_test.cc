// Renderers against golden text, and the summary arithmetic they share, on
// hand-made results (no sockets).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sstream>
#include <string>

#include "report/json_report.h"
#include "report/summary.h"
#include "report/text_report.h"
#include "unit/fake_results.h"

namespace flowperf::report {
namespace {

const auto base = testing::base_result;
const auto flow = testing::flow_of_2s;

TEST(Summary, TcpStreamCountsTheReceiversBytes) {
  auto r = base(spec::TestKind::kTcpStream);
  auto l = flow(0);
  l.bytes_sent = 2'500'000'000;
  auto s = flow(0);
  s.bytes_recv = 2'500'000'000;
  r.local_side.flows = {l};
  r.remote_side.flows = {s};
  Summary sum = summarize(r);
  EXPECT_TRUE(sum.receiver_counted);
  EXPECT_DOUBLE_EQ(sum.total.throughput_bps, 2'500'000'000.0 * 8 / 2.0);
  EXPECT_EQ(sum.total.bytes_sent, sum.total.bytes_received);
}

TEST(Summary, MissingServerResultsFallBackToTheSenderAndSaySo) {
  auto r = base(spec::TestKind::kTcpStream);
  r.have_remote = false;
  auto l = flow(0);
  l.bytes_sent = 1000;
  r.local_side.flows = {l};
  Summary sum = summarize(r);
  EXPECT_FALSE(sum.receiver_counted);
  EXPECT_EQ(sum.total.bytes_received, 1000u);
}

TEST(Summary, UdpLossIsSentMinusUniqueReceived) {
  auto r = base(spec::TestKind::kUdpStream);
  auto l = flow(0);
  l.datagrams_sent = 1000;
  l.bytes_sent = 1000 * 1472;
  auto s = flow(0);
  s.datagrams_recv = 905;  // 5 of them duplicates
  s.duplicates = 5;
  s.bytes_recv = 905 * 1472;
  r.local_side.flows = {l};
  r.remote_side.flows = {s};
  Summary sum = summarize(r);
  EXPECT_EQ(sum.total.datagrams_received, 900u);
  EXPECT_EQ(sum.total.datagrams_lost, 100u);
  EXPECT_DOUBLE_EQ(sum.total.loss_percent, 10.0);
}

TEST(Summary, RrRateAndBothSidesCounts) {
  auto r = base(spec::TestKind::kTcpRr);
  auto l = flow(0);
  l.transactions = 50'000;
  l.latency = measure::Histogram();
  for (int i = 0; i < 100; ++i) l.latency->record(40'000);  // 40 us
  auto s = flow(0);
  s.transactions = 50'000;
  r.local_side.flows = {l};
  r.remote_side.flows = {s};
  r.local_side.latency = *l.latency;
  Summary sum = summarize(r);
  EXPECT_DOUBLE_EQ(sum.total.transactions_per_s, 25'000.0);
  EXPECT_EQ(sum.total.remote_transactions, 50'000u);
  ASSERT_NE(sum.total.latency, nullptr);
  EXPECT_EQ(sum.total.latency->percentile(50), 40'000u);
}

TEST(TextReport, TcpStreamGolden) {
  auto r = base(spec::TestKind::kTcpStream);
  auto l = flow(0);
  l.bytes_sent = 2'500'000'000;
  auto s = flow(0);
  s.bytes_recv = 2'500'000'000;
  r.local_side.flows = {l};
  r.remote_side.flows = {s};
  EXPECT_EQ(text_result(r, {}),
            "\n"
            "Stream   Time(s)          Sent      Received        Throughput\n"
            "   SUM      2.00      2.33 GiB      2.33 GiB      10.00 Gbit/s\n"
            "  bytes: sender 2500000000, receiver 2500000000\n");
  TextOptions mbytes;
  mbytes.unit = core::RateUnit::MBytes;
  EXPECT_NE(text_result(r, mbytes).find("1192.09 MB/s"), std::string::npos)
      << text_result(r, mbytes);
}

TEST(TextReport, HeaderNamesTheTestAndBothEnds) {
  auto r = base(spec::TestKind::kTcpRr);
  r.spec.request_size = 64;
  r.spec.response_size = 128;
  r.spec.streams = 4;
  EXPECT_EQ(text_header(r),
            "flowperf 0.1.0: TCP_RR — TCP request/response on one connection\n"
            "  local 127.0.0.1:40000 -> remote 127.0.0.1:12865 (flowperf 0.1.0)\n"
            "  4 streams, 2 s, request 64 B, response 128 B\n");
  r.embedded_server = true;
  EXPECT_NE(text_header(r).find("(embedded server, started in this process)"), std::string::npos);
}

TEST(TextReport, RrGoldenWithPerStreamRowsAndLatency) {
  auto r = base(spec::TestKind::kTcpRr);
  r.spec.streams = 2;
  for (uint32_t i = 0; i < 2; ++i) {
    auto l = flow(i);
    l.transactions = 1000;
    l.latency = measure::Histogram();
    for (uint64_t v : {10'000u, 20'000u, 30'000u, 100'000u}) l.latency->record(v);
    r.local_side.latency.merge(*l.latency);
    r.local_side.flows.push_back(l);
    auto s = flow(i);
    s.transactions = 1000;
    r.remote_side.flows.push_back(s);
  }
  // Percentiles are bucket midpoints (within 1%): 100 us reads as 99.8.
  EXPECT_EQ(text_result(r, {}),
            "\n"
            "Stream   Time(s)  Transactions       Trans/s        min     mean      p50      p90"
            "      p99    p99.9   max(us)\n"
            "     0      2.00          1000         500.0       10.0     40.0     20.1     99.8"
            "     99.8     99.8     100.0\n"
            "     1      2.00          1000         500.0       10.0     40.0     20.1     99.8"
            "     99.8     99.8     100.0\n"
            "   SUM      2.00          2000        1000.0       10.0     40.0     20.1     99.8"
            "     99.8     99.8     100.0\n"
            "  transactions: client 2000, server 2000\n");
}

TEST(TextReport, UdpStreamShowsLossAndBothCounts) {
  auto r = base(spec::TestKind::kUdpStream);
  auto l = flow(0);
  l.datagrams_sent = 1000;
  l.bytes_sent = 1'472'000;
  auto s = flow(0);
  s.datagrams_recv = 990;
  s.bytes_recv = 1'457'280;
  r.local_side.flows = {l};
  r.remote_side.flows = {s};
  std::string out = text_result(r, {});
  EXPECT_NE(out.find("      1000           990          10    1.000"), std::string::npos) << out;
  EXPECT_NE(out.find("datagrams: sent 1000 (1472 B each), received 990"), std::string::npos);
}

TEST(TextReport, InterruptedAndErrorsAreSaid) {
  auto r = base(spec::TestKind::kTcpRr);
  r.local_side.flows = {flow(0)};
  r.have_remote = false;
  r.interrupted = true;
  r.error = "the server went away";
  std::string out = text_result(r, {});
  EXPECT_NE(out.find("server (unknown)"), std::string::npos) << out;
  EXPECT_NE(out.find("interrupted"), std::string::npos);
  EXPECT_NE(out.find("error: the server went away"), std::string::npos);
}

TEST(JsonReport, KeysAndValuesFollowTheSummary) {
  auto r = base(spec::TestKind::kTcpRr);
  auto l = flow(0);
  l.transactions = 10;
  l.latency = measure::Histogram();
  l.latency->record(5'000);
  r.local_side.latency = *l.latency;
  r.local_side.flows = {l};
  auto s = flow(0);
  s.transactions = 10;
  r.remote_side.flows = {s};
  r.intervals.push_back({.start_s = 0, .end_s = 1, .flows = {{.transactions = 4}}});
  r.intervals.push_back({.start_s = 1, .end_s = 2, .flows = {{.transactions = 6}}});
  auto j = result_json(r);
  EXPECT_EQ(j["schema_version"], kJsonSchemaVersion);
  EXPECT_EQ(j["test"], "TCP_RR");
  EXPECT_EQ(j["total"]["transactions"], 10);
  EXPECT_EQ(j["total"]["remote_transactions"], 10);
  EXPECT_DOUBLE_EQ(j["total"]["transactions_per_second"].get<double>(), 5.0);
  EXPECT_DOUBLE_EQ(j["total"]["latency_us"]["p50"].get<double>(), 5.0);
  EXPECT_EQ(j["intervals"].size(), 2u);
  EXPECT_EQ(j["intervals"][1]["sum"]["transactions"], 6);
  EXPECT_DOUBLE_EQ(j["intervals"][1]["sum"]["transactions_per_second"].get<double>(), 6.0);
  EXPECT_TRUE(j["remote"].is_object());
  EXPECT_TRUE(j["errors"].empty());
}

std::string written(const results::TestResult& r, const measure::ConfidenceLoop* loop = nullptr) {
  std::ostringstream out;
  write_result_json(out, r, loop);
  return out.str();
}

std::string written_line(const results::TestResult& r) {
  std::ostringstream out;
  write_result_json_line(out, r);
  return out.str();
}

// pretty_json: dump(2)'s layout, but an array of scalars, or of arrays of scalars (a histogram's
// buckets), on one line; the same JSON once parsed.
TEST(JsonReport, PrettyJsonKeepsFlatArraysOnOneLine) {
  const auto j = nlohmann::json::parse(
      R"({"a": {"buckets": [[434, 2], [435, 34]], "p": [1.5, 2]}, "e": [], "o": {},
          "s": "x\ny", "l": [{"k": 1}]})");
  const std::string text = pretty_json(j);
  EXPECT_EQ(nlohmann::json::parse(text), j);
  EXPECT_EQ(text, R"({
  "a": {
    "buckets": [[434, 2], [435, 34]],
    "p": [1.5, 2]
  },
  "e": [],
  "l": [
    {
      "k": 1
    }
  ],
  "o": {},
  "s": "x\ny"
})");
}

// write_result_json() splices the streams and flows into the document one by one; the text must be
// exactly what pretty_json of the whole tree gives.
TEST(JsonReport, WrittenDocumentIsTheDumpOfTheTree) {
  auto r = base(spec::TestKind::kTcpRr);
  for (uint32_t i = 0; i < 5; ++i) {
    auto l = flow(i);
    l.transactions = 10 + i;
    l.latency = measure::Histogram();
    l.latency->record(5'000 + 1000 * i);
    l.latency->record(90'000);
    r.local_side.latency.merge(*l.latency);
    if (i == 3) {
      l.error = "reset\nby \"peer\"\x01";
      l.tcp = net::TcpInfo{};
      l.tcp->congestion_control = "cubic";
    }
    r.local_side.flows.push_back(l);
    auto s = flow(i);
    s.transactions = 10 + i;
    r.remote_side.flows.push_back(s);
  }
  r.intervals.push_back({.start_s = 0, .end_s = 1, .flows = {{.transactions = 4}, {}}});
  r.error = "something\nfailed";
  EXPECT_EQ(written(r), pretty_json(result_json(r)));
  EXPECT_EQ(written_line(r), result_json(r).dump());  // --json-stream's one line
  EXPECT_EQ(written_line(r).find('\n'), std::string::npos);
  r.have_remote = false;  // "remote": null
  EXPECT_EQ(written(r), pretty_json(result_json(r)));
  EXPECT_EQ(written_line(r), result_json(r).dump());
  r.local_side.flows.clear();  // empty arrays
  EXPECT_EQ(written(r), pretty_json(result_json(r)));
  EXPECT_EQ(written_line(r), result_json(r).dump());
  auto stream = base(spec::TestKind::kUdpStream);
  stream.local_side.flows = {flow(0), flow(1)};
  stream.remote_side.flows = {flow(0)};
  EXPECT_EQ(written(stream), pretty_json(result_json(stream)));
  EXPECT_EQ(written_line(stream), result_json(stream).dump());
}

TEST(JsonReport, NonFiniteNumbersBecomeNull) {
  auto r = base(spec::TestKind::kTcpStream);
  r.local_side.elapsed_s = std::numeric_limits<double>::quiet_NaN();
  auto l = flow(0);
  l.elapsed_s = std::numeric_limits<double>::infinity();
  l.bytes_sent = 10;
  r.local_side.flows = {l};
  r.have_remote = false;
  auto j = result_json(r);
  EXPECT_TRUE(j["total"]["elapsed_s"].is_null());
  EXPECT_TRUE(j["streams"][0]["elapsed_s"].is_null());
  // dump() must not throw and must parse back.
  nlohmann::json back;
  EXPECT_NO_THROW(back = nlohmann::json::parse(j.dump()));
  EXPECT_TRUE(back.is_object());
  EXPECT_TRUE(j["remote"].is_null());
}

// ---- Repeated tests (--repeat / --confidence) ----------------------------

// A TCP_STREAM run delivering `bytes` in 2 s.
results::TestResult stream_run(uint64_t bytes) {
  auto r = base(spec::TestKind::kTcpStream);
  auto l = flow(0);
  l.bytes_sent = bytes;
  auto s = flow(0);
  s.bytes_recv = bytes;
  r.local_side.flows = {l};
  r.remote_side.flows = {s};
  return r;
}

// A TCP_RR run of `n` transactions in 2 s, half at `fast` us, half at `slow`.
results::TestResult rr_run(uint64_t n, uint64_t fast_us, uint64_t slow_us) {
  auto r = base(spec::TestKind::kTcpRr);
  auto l = flow(0);
  l.transactions = n;
  r.local_side.flows = {l};
  r.local_side.latency.record_n(fast_us * 1000, n / 2);
  r.local_side.latency.record_n(slow_us * 1000, n - n / 2);
  return r;
}

TEST(Repeat, StreamTestsAreJudgedOnThroughput) {
  const auto m = repeat_metrics(spec::TestKind::kUdpStream);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].name, "bits_per_second");
  EXPECT_EQ(repeat_sample(stream_run(250'000'000)), std::vector<double>{1e9});
}

TEST(Repeat, RrTestsAreJudgedOnRateAndLatency) {
  const auto m = repeat_metrics(spec::TestKind::kTcpCrr);
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[1].name, "latency_p50_us");
  EXPECT_EQ(m[2].name, "latency_p99_us");
  // Percentiles are bucket midpoints: within 1% of the samples.
  const auto v = repeat_sample(rr_run(100, 20, 90));
  ASSERT_EQ(v.size(), 3u);
  EXPECT_DOUBLE_EQ(v[0], 50);
  EXPECT_NEAR(v[1], 20, 0.2);
  EXPECT_NEAR(v[2], 90, 0.9);
  // No transaction: no latency, 0 rather than an invented figure.
  EXPECT_EQ(repeat_sample(rr_run(0, 20, 90)), (std::vector<double>{0, 0, 0}));
}

measure::ConfidenceLoop fed(spec::TestKind kind, measure::ConfidenceGoal goal,
                            const std::vector<results::TestResult>& runs) {
  measure::ConfidenceLoop loop(goal, repeat_metrics(kind));
  for (const auto& r : runs)
    if (!loop.add(repeat_sample(r))) break;
  return loop;
}

TEST(Repeat, TextShowsEachFiguresInterval) {
  // 1.00, 1.02 and 0.98 Gbit/s: mean 1 Gbit/s, s 0.02, 95% half-width
  // 4.303 x 0.02 / sqrt(3) = 49.68 Mbit/s, i.e. ±4.97%: wider than ±2.5%.
  auto loop = fed(spec::TestKind::kTcpStream, {95, 5, 3, 3},
                  {stream_run(250'000'000), stream_run(255'000'000), stream_run(245'000'000)});
  TextOptions o;
  o.unit = core::RateUnit::Auto;
  EXPECT_EQ(text_confidence(loop, o),
            "\nconfidence: 95% intervals over 3 runs (at most 3); goal ±2.50% of the mean: NOT "
            "achieved\n"
            "  throughput               1.00 Gbit/s  ±       49.68 Mbit/s  ±4.97%  NOT achieved\n");
  EXPECT_EQ(text_run_heading(2, 10), "\nrun 2 (of at most 10):\n");
}

TEST(Repeat, TextForRrAndForASingleRun) {
  auto loop = fed(spec::TestKind::kTcpRr, {99, 10, 1, 1}, {rr_run(100, 20, 20)});
  EXPECT_EQ(text_confidence(loop, TextOptions{}),
            "\nconfidence: 99% intervals over 1 run (at most 1); goal ±5.00% of the mean: NOT "
            "achieved\n"
            "  transaction rate        50.0 trans/s  (one run: no interval)\n"
            "  latency p50                  20.0 us  (one run: no interval)\n"
            "  latency p99                  20.0 us  (one run: no interval)\n");
}

TEST(Repeat, JsonConfidenceObject) {
  auto loop = fed(spec::TestKind::kTcpRr, {95, 20, 3, 10},
                  {rr_run(100, 20, 90), rr_run(102, 20, 90), rr_run(98, 20, 90)});
  ASSERT_TRUE(loop.done());  // latency steady, rate within ±10%: three runs do
  auto j = result_json(rr_run(98, 20, 90), loop);
  EXPECT_EQ(written(rr_run(98, 20, 90), &loop), pretty_json(j));
  const auto& c = j["confidence"];
  EXPECT_EQ(c["level_percent"], 95);
  EXPECT_DOUBLE_EQ(c["width_percent"].get<double>(), 20);
  EXPECT_EQ(c["min_iterations"], 3);
  EXPECT_EQ(c["max_iterations"], 10);
  EXPECT_EQ(c["iterations"], 3);
  EXPECT_TRUE(c["achieved"].get<bool>());
  const auto& rate = c["metrics"]["transactions_per_second"];
  EXPECT_DOUBLE_EQ(rate["mean"].get<double>(), 50);
  EXPECT_DOUBLE_EQ(rate["stddev"].get<double>(), 1);
  EXPECT_NEAR(rate["half_width"].get<double>(), 4.30265272975 / std::sqrt(3.0), 1e-9);
  EXPECT_NEAR(rate["width_percent"].get<double>(), 200 * 4.30265272975 / std::sqrt(3.0) / 50, 1e-9);
  EXPECT_EQ(rate["values"], nlohmann::json({50.0, 51.0, 49.0}));
  EXPECT_TRUE(rate["achieved"].get<bool>());
  EXPECT_TRUE(rate["governs"].get<bool>());
  EXPECT_EQ(c["metrics"]["latency_p99_us"]["width_percent"], 0.0);
  // The rest of the document is the run given (the last).
  EXPECT_EQ(j["total"]["transactions"], 98);
  EXPECT_FALSE(result_json(rr_run(98, 20, 90)).contains("confidence"));
  // One run: the infinite width is null, never a bare number.
  auto once = fed(spec::TestKind::kTcpRr, {95, 5, 1, 1}, {rr_run(100, 20, 90)});
  auto single = confidence_json(once);
  EXPECT_TRUE(single["metrics"]["latency_p50_us"]["half_width"].is_null());
  EXPECT_FALSE(single["achieved"].get<bool>());
  nlohmann::json back;
  EXPECT_NO_THROW(back = nlohmann::json::parse(single.dump()));
  EXPECT_TRUE(back["metrics"].is_object());
}

}  // namespace
}  // namespace flowperf::report
