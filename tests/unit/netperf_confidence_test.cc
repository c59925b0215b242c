// netperf's confidence intervals (-I/-i) in the report: the banner's note,
// the "!!! WARNING" block, the means over the runs, the CONFIDENCE_*
// selectors; and netperf's latency histogram block at -v 2.
#include <gtest/gtest.h>

#include <vector>

#include "netperf_report_fixtures.h"

namespace flowperf::report {
namespace {

using namespace testing;

// -I level,width -i max,min as the front end passes them on.
NetperfReportOptions confident(const char* title, int level, double width, int min, int max) {
  NetperfReportOptions o = options(title);
  o.confidence_level = level;
  o.confidence_width_pct = width;
  o.iteration_min = min;
  o.iteration_max = max;
  return o;
}

// Feeds the runs to the loop as the front end does; returns whether the
// loop wanted another run after the last.
bool feed(measure::ConfidenceLoop& loop, const std::vector<TestResult>& runs,
          const NetperfReportOptions& o) {
  bool more = true;
  for (const auto& r : runs) more = loop.add(netperf_confidence_sample(r, o));
  return more;
}

// Three TCP_STREAM runs of 1000, 500 and 1500 Mbit/s (the server's count),
// here 20, 25 and 30% busy, the server 50% each time.
std::vector<TestResult> uneven_streams() {
  std::vector<TestResult> runs;
  const uint64_t received[] = {1'250'000'000, 625'000'000, 1'875'000'000};
  const double util[] = {20, 25, 30};
  for (int i = 0; i < 3; ++i) {
    TestResult r = measured(TestKind::kTcpStream);
    r.remote_side.flows[0].bytes_recv = received[i];
    r.local_side.cpu->util = util[i];
    runs.push_back(r);
  }
  return runs;
}

TEST(NetperfConfidence, BannerNamesTheHalfWidthAndLevel) {
  NetperfReportOptions o = confident("MIGRATED TCP STREAM TEST", 99, 5, 3, 10);
  EXPECT_EQ(netperf_banner(o),
            "MIGRATED TCP STREAM TEST from 0.0.0.0 (0.0.0.0) port 0 AF_INET to 127.0.0.1 "
            "() port 0 AF_INET : +/-2.500% @ 99% conf. \n");
  o.result_confidence_only = true;
  o.nodelay = true;
  EXPECT_EQ(netperf_banner(o),
            "MIGRATED TCP STREAM TEST from 0.0.0.0 (0.0.0.0) port 0 AF_INET to 127.0.0.1 "
            "() port 0 AF_INET : +/-2.500% @ 99% conf.  on result only : nodelay\n");
  NetperfReportOptions rr = confident("MIGRATED TCP REQUEST/RESPONSE TEST", 95, 0.1, 3, 3);
  EXPECT_NE(netperf_banner(rr).find(" : +/-0.050% @ 95% conf.  : first burst 0\n"),
            std::string::npos)
      << netperf_banner(rr);
  // One run: no note.
  EXPECT_EQ(netperf_banner(options("T")).find("conf."), std::string::npos);
}

TEST(NetperfConfidence, WarningBlockBeforeTheTableWithTheMeans) {
  NetperfReportOptions o = confident("MIGRATED TCP STREAM TEST", 99, 5, 3, 3);
  o.local_cpu = o.remote_cpu = true;
  auto runs = uneven_streams();
  auto loop = netperf_confidence_loop(o);
  EXPECT_FALSE(feed(loop, runs, o));  // -i 3,3: three runs, no more
  EXPECT_FALSE(loop.achieved());
  // Widths: 2 x t(99%, 2) x s / sqrt(3) / mean: 573.011% for the
  // throughput (s 500, mean 1000), 229.204% for the local CPU (s 5, mean
  // 25), nothing for the steady server. The table shows the means: 1000
  // Mbit/s, 25% busy, service demand 8.192 (the mean of 6.554, 8.192 and
  // 9.830).
  EXPECT_EQ(netperf_result(runs, loop, o),
            "!!! WARNING\n"
            "!!! Desired confidence was not achieved within the specified iterations.\n"
            "!!! This implies that there was variability in the test environment that\n"
            "!!! must be investigated before going further.\n"
            "!!! Confidence intervals: Throughput      : 573.011%\n"
            "!!!                       Local CPU util  : 229.204%\n"
            "!!!                       Remote CPU util : 0.000%\n"
            "\n"
            "Recv   Send    Send                          Utilization       Service Demand\n"
            "Socket Socket  Message  Elapsed              Send     Recv     Send    Recv\n"
            "Size   Size    Size     Time     Throughput  local    remote   local   remote\n"
            "bytes  bytes   bytes    secs.    10^6bits/s  % S      % S      us/KB   us/KB\n"
            "\n"
            "131072  16384  16384    10.00      1000.00   25.00    50.00    8.192   32.768 \n");
}

TEST(NetperfConfidence, WarningEvenWithoutHeadersOrAtVerbosityZero) {
  NetperfReportOptions o = confident("MIGRATED TCP STREAM TEST", 95, 5, 3, 3);
  o.headers = false;
  o.verbosity = 0;
  auto runs = uneven_streams();
  auto loop = netperf_confidence_loop(o);
  feed(loop, runs, o);
  // Without -c/-C the CPU figures are netperf's constant -1: width 0.
  EXPECT_EQ(netperf_result(runs, loop, o),
            "!!! WARNING\n"
            "!!! Desired confidence was not achieved within the specified iterations.\n"
            "!!! This implies that there was variability in the test environment that\n"
            "!!! must be investigated before going further.\n"
            "!!! Confidence intervals: Throughput      : 248.414%\n"
            "!!!                       Local CPU util  : 0.000%\n"
            "!!!                       Remote CPU util : 0.000%\n"
            "\n"
            "1000.00 \n");
}

TEST(NetperfConfidence, NoWarningWhenAchievedOrForOneRun) {
  NetperfReportOptions o = confident("MIGRATED TCP STREAM TEST", 99, 5, 3, 10);
  std::vector<TestResult> runs(3, result(TestKind::kTcpStream));
  auto loop = netperf_confidence_loop(o);
  EXPECT_FALSE(feed(loop, runs, o));  // identical runs: done after the minimum
  EXPECT_TRUE(loop.achieved());
  const std::string out = netperf_result(runs, loop, o);
  EXPECT_EQ(out.find("!!!"), std::string::npos) << out;
  EXPECT_EQ(out, netperf_result(runs.front(), o));
  // No -I/-i: one run, netperf's output untouched.
  NetperfReportOptions once = options("MIGRATED TCP STREAM TEST");
  auto single = netperf_confidence_loop(once);
  EXPECT_FALSE(single.add(netperf_confidence_sample(runs.front(), once)));
  EXPECT_EQ(netperf_result({runs.front()}, single, once), netperf_result(runs.front(), once));
}

TEST(NetperfConfidence, CpuDecidesUnlessResultOnly) {
  // Steady throughput, a CPU that swings: -c keeps netperf running to max;
  // with -r the throughput alone decides.
  std::vector<TestResult> runs;
  for (double util : {10.0, 40.0, 10.0, 40.0, 10.0}) {
    TestResult r = measured(TestKind::kTcpStream);
    r.local_side.cpu->util = util;
    runs.push_back(r);
  }
  NetperfReportOptions o = confident("MIGRATED TCP STREAM TEST", 99, 5, 3, 5);
  o.local_cpu = true;
  auto loop = netperf_confidence_loop(o);
  int n = 0;
  while (n < 5 && loop.add(netperf_confidence_sample(runs[n], o))) ++n;
  EXPECT_EQ(loop.iterations(), 5);
  EXPECT_FALSE(loop.achieved());
  o.result_confidence_only = true;
  auto result_only = netperf_confidence_loop(o);
  n = 0;
  while (n < 5 && result_only.add(netperf_confidence_sample(runs[n], o))) ++n;
  EXPECT_EQ(result_only.iterations(), 3);
  EXPECT_TRUE(result_only.achieved());
}

TEST(NetperfConfidence, SelectorsCarryTheConfidence) {
  NetperfReportOptions o = confident("MIGRATED TCP STREAM TEST", 99, 5, 3, 3);
  o.omni = OmniStyle::kKeyval;
  o.local_cpu = o.remote_cpu = true;
  auto sel = parse_omni_selection(
      "CONFIDENCE_LEVEL,CONFIDENCE_INTERVAL,CONFIDENCE_ITERATION,THROUGHPUT_CONFID,"
      "LOCAL_CPU_CONFID,REMOTE_CPU_CONFID,THROUGHPUT,LOCAL_CPU_UTIL",
      nullptr);
  ASSERT_TRUE(sel);
  o.selection = *sel;
  auto runs = uneven_streams();
  auto loop = netperf_confidence_loop(o);
  feed(loop, runs, o);
  // OMNI output has no warning block: the widths are its selectors.
  EXPECT_EQ(netperf_result(runs, loop, o),
            "CONFIDENCE_LEVEL=99\n"
            "CONFIDENCE_INTERVAL=5.000000\n"
            "CONFIDENCE_ITERATION=3\n"
            "THROUGHPUT_CONFID=573.011\n"
            "LOCAL_CPU_CONFID=229.204\n"
            "REMOTE_CPU_CONFID=0.000\n"
            "THROUGHPUT=1000.00\n"
            "LOCAL_CPU_UTIL=25.00\n");
  // Without -I/-i netperf prints its "not asked" values.
  NetperfReportOptions plain = options("MIGRATED TCP STREAM TEST");
  plain.omni = OmniStyle::kKeyval;
  plain.selection = *sel;
  EXPECT_EQ(netperf_result(runs.front(), plain),
            "CONFIDENCE_LEVEL=0\n"
            "CONFIDENCE_INTERVAL=-1.000000\n"
            "CONFIDENCE_ITERATION=1\n"
            "THROUGHPUT_CONFID=-1.000\n"
            "LOCAL_CPU_CONFID=-1.000\n"
            "REMOTE_CPU_CONFID=-1.000\n"
            "THROUGHPUT=1000.00\n"
            "LOCAL_CPU_UTIL=-1.00\n");
}

TEST(NetperfConfidence, RequestResponseRunsShareOneHistogram) {
  NetperfReportOptions o = confident("MIGRATED TCP REQUEST/RESPONSE TEST", 99, 5, 3, 3);
  o.verbosity = 2;
  std::vector<TestResult> runs(3, result(TestKind::kTcpRr));
  auto loop = netperf_confidence_loop(o);
  feed(loop, runs, o);
  const std::string out = netperf_result(runs, loop, o);
  // Each run has 500 transactions at 55 us and 500 at 150 us.
  EXPECT_NE(out.find("TEN_USEC      :    0:    0:    0:    0:    0: 1500:    0:"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("HIST_TOTAL:      3000\n"), std::string::npos) << out;
  EXPECT_EQ(netperf_values(runs, loop, o).mean_latency, 102.5);
}

// ---- The histogram block ----------------------------------------------------

TEST(NetperfHistogram, OneRowPerDecadeOfMicroseconds) {
  measure::Histogram h;
  h.record(500);                      // 0.5 us: UNIT_USEC, 0
  h.record_n(5'000, 3);               // 5 us
  h.record_n(55'000, 10);             // 55 us: TEN_USEC, 5
  h.record(150'000);                  // 150 us: HUNDRED_USEC, 1
  h.record_n(2'500'000, 2);           // 2.5 ms: UNIT_MSEC, 2
  h.record(25'000'000);               // 25 ms
  h.record(250'000'000);              // 250 ms
  h.record(2'500'000'000);            // 2.5 s
  h.record(25'000'000'000);           // 25 s: TEN_SEC, 2
  h.record_n(150'000'000'000ull, 4);  // 150 s: past the last row
  EXPECT_EQ(netperf_histogram(h),
            "UNIT_USEC     :    1:    0:    0:    0:    0:    3:    0:    0:    0:    0\n"
            "TEN_USEC      :    0:    0:    0:    0:    0:   10:    0:    0:    0:    0\n"
            "HUNDRED_USEC  :    0:    1:    0:    0:    0:    0:    0:    0:    0:    0\n"
            "UNIT_MSEC     :    0:    0:    2:    0:    0:    0:    0:    0:    0:    0\n"
            "TEN_MSEC      :    0:    0:    1:    0:    0:    0:    0:    0:    0:    0\n"
            "HUNDRED_MSEC  :    0:    0:    1:    0:    0:    0:    0:    0:    0:    0\n"
            "UNIT_SEC      :    0:    0:    1:    0:    0:    0:    0:    0:    0:    0\n"
            "TEN_SEC       :    0:    0:    1:    0:    0:    0:    0:    0:    0:    0\n"
            ">100_SECS: 4\n"
            "HIST_TOTAL:      25\n");
}

TEST(NetperfHistogram, EdgesOfTheRows) {
  // netperf counts whole microseconds: 9.999 us is in the 9 column of
  // UNIT_USEC, 10 us opens TEN_USEC (whose 0 column stays empty).
  auto alone = [](uint64_t ns) {
    measure::Histogram h;
    h.record(ns);
    return netperf_histogram(h);
  };
  EXPECT_NE(alone(9'999).find(
                "UNIT_USEC     :    0:    0:    0:    0:    0:    0:    0:    0:    0:    1\n"),
            std::string::npos);
  EXPECT_NE(alone(10'000).find("TEN_USEC      :    0:    1:    0:"), std::string::npos);
  EXPECT_NE(alone(99'999'999'999ull)
                .find("TEN_SEC       :    0:    0:    0:    0:    0:    0:    0:    0:    0:    1\n"
                      ">100_SECS: 0\nHIST_TOTAL:      1\n"),
            std::string::npos);
  EXPECT_NE(alone(100'000'000'000ull).find(">100_SECS: 1\n"), std::string::npos);
}

TEST(NetperfHistogram, ABucketAcrossAnEdgeIsShared) {
  // flowperf's bucket [9984, 10111] ns holds 16 ns of 9 us and 112 ns of
  // 10 us: eight samples on each nanosecond split 128 to 896.
  measure::Histogram h;
  for (uint64_t ns = 9'984; ns <= 10'111; ++ns) h.record_n(ns, 8);
  ASSERT_EQ(measure::Histogram::index_of(9'984), measure::Histogram::index_of(10'111));
  const std::string out = netperf_histogram(h);
  EXPECT_NE(out.find("UNIT_USEC     :    0:    0:    0:    0:    0:    0:    0:    0:    0:  128\n"
                     "TEN_USEC      :    0:  896:    0:"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("HIST_TOTAL:      1024\n"), std::string::npos);
}

TEST(NetperfHistogram, Empty) {
  EXPECT_EQ(netperf_histogram(measure::Histogram()),
            "UNIT_USEC     :    0:    0:    0:    0:    0:    0:    0:    0:    0:    0\n"
            "TEN_USEC      :    0:    0:    0:    0:    0:    0:    0:    0:    0:    0\n"
            "HUNDRED_USEC  :    0:    0:    0:    0:    0:    0:    0:    0:    0:    0\n"
            "UNIT_MSEC     :    0:    0:    0:    0:    0:    0:    0:    0:    0:    0\n"
            "TEN_MSEC      :    0:    0:    0:    0:    0:    0:    0:    0:    0:    0\n"
            "HUNDRED_MSEC  :    0:    0:    0:    0:    0:    0:    0:    0:    0:    0\n"
            "UNIT_SEC      :    0:    0:    0:    0:    0:    0:    0:    0:    0:    0\n"
            "TEN_SEC       :    0:    0:    0:    0:    0:    0:    0:    0:    0:    0\n"
            ">100_SECS: 0\n"
            "HIST_TOTAL:      0\n");
}

TEST(NetperfHistogram, OmniOutputAddsItAtVerbosityTwo) {
  NetperfReportOptions o = options("MIGRATED TCP REQUEST/RESPONSE TEST");
  o.omni = OmniStyle::kKeyval;
  o.selection = *parse_omni_selection("THROUGHPUT", nullptr);
  EXPECT_EQ(netperf_result(result(TestKind::kTcpRr), o), "THROUGHPUT=10172.50\n");
  o.verbosity = 2;
  const std::string out = netperf_result(result(TestKind::kTcpRr), o);
  EXPECT_EQ(out.rfind("THROUGHPUT=10172.50\n\nHistogram of request/response times\nUNIT_USEC", 0),
            0u)
      << out;
  EXPECT_NE(netperf_result(result(TestKind::kTcpCrr), o)
                .find("\nHistogram of connect/request/response/close times\n"),
            std::string::npos);
  // Stream tests have no per-call times here: nothing is invented.
  EXPECT_EQ(netperf_result(result(TestKind::kTcpStream), o).find("Histogram"), std::string::npos);
}

}  // namespace
}  // namespace flowperf::report
