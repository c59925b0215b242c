// Machine-readable output as the test runs, against a real `flowperf server`
// process on 127.0.0.1: --json-stream prints a start event, an event per -i
// interval while the test is still running, and an end event holding the
// --json document (whose intervals are the events'); --csv prints a header,
// a row per stream and a sum row per interval and at the end. Failures,
// Ctrl-C and misuse keep to the same shapes.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <sstream>
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

using LiveOutput = ServedSuite;

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// Every line one JSON object {"event", "data"}.
std::vector<json> events(const std::string& text) {
  std::vector<json> out;
  for (const auto& l : lines(text)) {
    json j = json::parse(l, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << l;
    EXPECT_TRUE(j.is_object() && j.size() == 2 && j.contains("event") && j.contains("data")) << l;
    out.push_back(std::move(j));
  }
  return out;
}

// Splits simple CSV lines (the fields these tests read hold no commas).
std::vector<std::string> fields(const std::string& line) {
  std::vector<std::string> out;
  std::string f;
  std::istringstream in(line);
  while (std::getline(in, f, ',')) out.push_back(f);
  if (!line.empty() && line.back() == ',') out.push_back("");
  return out;
}

TEST_F(LiveOutput, JsonStreamGivesEventsAsTheTestRuns) {
  Process p(argv({"-t", "TCP_STREAM", "-l", "4", "-i", "0.5", "--json-stream"}));
  const auto t0 = std::chrono::steady_clock::now();
  const auto start = p.read_line(10s);
  ASSERT_TRUE(start) << "no start event";
  const auto first = p.read_line(10s);
  ASSERT_TRUE(first) << "no interval event";
  // Live: the first interval arrives long before the 4 s test ends.
  // Derived: a start-up of ~5 ms (README) and the first 0.5 s interval; output held back to the
  // end would come after 4 s. 3 s leaves 2.5 s for a slow start on a loaded machine.
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 3s);
  const json s = json::parse(*start);
  EXPECT_EQ(s["event"], "start");
  EXPECT_EQ(s["data"]["test"], "TCP_STREAM");
  EXPECT_EQ(std::to_string(s["data"]["endpoints"]["remote"]["port"].get<int>()), port_);
  EXPECT_EQ(json::parse(*first)["event"], "interval");

  const Outcome o = p.wait(60s);
  ASSERT_FALSE(o.timed_out);
  EXPECT_EQ(o.exit_code, 0) << o.err;
  const auto ev = events(o.out);
  // 4 s at 0.5 s: ticks at 0.5-3.5 s and the end's sample, 8 intervals. A late tick keeps the
  // count; 6 allows two ticks lost to stalls of a whole interval (0.5 s) each.
  ASSERT_GE(ev.size(), 2u + 6u);  // start, about 8 intervals, end
  EXPECT_EQ(ev.front()["event"], "start");
  EXPECT_EQ(ev.back()["event"], "end");
  const json& doc = ev.back()["data"];
  EXPECT_EQ(doc["test"], "TCP_STREAM");
  // The start event already has the start's time, the end document the same.
  ASSERT_TRUE(s["data"].contains("timestamp"));
  EXPECT_EQ(s["data"]["timestamp"], doc["timestamp"]);
  // The README's bench has loopback TCP_STREAM at 12-17 Gbit/s on this 2-core VM: 100 Mbit/s is
  // under 1% of it, for the whole test and for each interval below. An interval falls under it
  // only if the sender stood still for nearly all its 0.5 s.
  EXPECT_GT(doc["total"]["bits_per_second"].get<double>(), 1e8);
  // The end document's intervals are the events', figure for figure.
  std::vector<json> intervals;
  for (size_t i = 1; i + 1 < ev.size(); ++i) {
    EXPECT_EQ(ev[i]["event"], "interval");
    intervals.push_back(ev[i]["data"]);
  }
  ASSERT_EQ(doc["intervals"].size(), intervals.size());
  double last_end = 0;
  for (size_t i = 0; i < intervals.size(); ++i) {
    EXPECT_EQ(doc["intervals"][i], intervals[i]) << i;
    EXPECT_GT(intervals[i]["end_s"].get<double>(), last_end);
    last_end = intervals[i]["end_s"].get<double>();
    EXPECT_GT(intervals[i]["sum"]["bits_per_second"].get<double>(), 1e8) << i;
  }
}

TEST_F(LiveOutput, JsonStreamOfALoadedProbeHasOneStartAndTheProbeAtTheEnd) {
  const Outcome o = Process(argv({"-t", "TCP_STREAM", "-l", "1", "-i", "0.5", "--probe", "100",
                                  "--baseline", "1", "--json-stream"}))
                        .wait(60s);
  ASSERT_FALSE(o.timed_out);
  EXPECT_EQ(o.exit_code, 0) << o.err;
  const auto ev = events(o.out);
  ASSERT_GE(ev.size(), 3u);
  size_t starts = 0;
  for (const auto& e : ev) starts += e["event"] == "start";
  EXPECT_EQ(starts, 1u) << "the probe's own tests are not announced";
  EXPECT_EQ(ev.back()["event"], "end");
  // The probe runs open loop at 100/s: about 100 in the 1 s baseline and 100 beside the 1 s
  // stream, less its handshake after the stream started. Late requests go as soon as the worker
  // runs, so only a 0.5 s handshake or a 0.5 s stall at the very end would bring either to 50.
  EXPECT_GT(ev.back()["data"]["probe"]["idle"]["transactions"].get<uint64_t>(), 50u);
  EXPECT_GT(ev.back()["data"]["probe"]["loaded"]["transactions"].get<uint64_t>(), 50u);
}

TEST_F(LiveOutput, CsvHasRowsPerStreamAndSumsThatAddUp) {
  const Outcome o =
      Process(argv({"-t", "TCP_RR", "-l", "2", "-i", "0.5", "-P", "2", "--csv"})).wait(60s);
  ASSERT_FALSE(o.timed_out);
  EXPECT_EQ(o.exit_code, 0) << o.err;
  const auto ls = lines(o.out);
  // 2 s at 0.5 s: ticks at 0.5-1.5 s and the end's sample, 4 intervals of 3 rows, then the end's
  // 3 rows and the header: 16 lines. A late tick keeps the count; 13 here and 3 intervals below
  // allow one tick lost to a stall of a whole interval (0.5 s).
  ASSERT_GE(ls.size(), 1u + 3u * 3 + 3);
  const auto head = fields(ls[0]);
  ASSERT_EQ(head[0], "row");
  auto col = [&](const std::string& name) {
    for (size_t i = 0; i < head.size(); ++i)
      if (head[i] == name) return i;
    ADD_FAILURE() << "no column " << name;
    return size_t{0};
  };
  const size_t row = col("row"), stream = col("stream"), txn = col("transactions"),
               p50 = col("latency_p50_us"), tps = col("transactions_per_second");
  size_t intervals = 0, ends = 0;
  uint64_t streams_txn = 0;
  std::vector<std::string> order;
  for (size_t i = 1; i < ls.size(); ++i) {
    const auto f = fields(ls[i]);
    ASSERT_EQ(f.size(), head.size()) << ls[i];
    order.push_back(f[row] + ":" + f[stream]);
    if (f[stream] != "sum") {
      streams_txn += std::stoull(f[txn]);
    } else {
      // A sum row adds up the stream rows just before it.
      EXPECT_EQ(std::stoull(f[txn]), streams_txn) << ls[i];
      streams_txn = 0;
      // The README's bench has one loopback TCP_RR flow at about 12,000 a second on this 2-core
      // VM; 100/s for two flows is under 1% of that, in every interval and at the end.
      EXPECT_GT(std::stod(f[tps]), 100) << ls[i];
      (f[row] == "interval" ? intervals : ends)++;
    }
    if (f[row] == "end") {
      // A round trip takes some microseconds however idle the machine: 0 is a missing figure.
      EXPECT_GT(std::stod(f[p50]), 0) << ls[i];
    } else {
      EXPECT_EQ(f[p50], "") << ls[i];
    }
  }
  EXPECT_GE(intervals, 3u);
  EXPECT_EQ(ends, 1u);
  // The stream rows come 0, 1, sum; the end's rows last.
  ASSERT_GE(order.size(), 3u);
  EXPECT_EQ(order[0], "interval:0");
  EXPECT_EQ(order[1], "interval:1");
  EXPECT_EQ(order[2], "interval:sum");
  EXPECT_EQ(order[order.size() - 3], "end:0");
  EXPECT_EQ(order.back(), "end:sum");
}

TEST_F(LiveOutput, CsvOfAPacedUdpStreamShowsItsRate) {
  const Outcome o =
      Process(argv({"-t", "UDP_STREAM", "-l", "2", "-b", "20M", "-m", "1000", "--csv"})).wait(60s);
  ASSERT_FALSE(o.timed_out);
  EXPECT_EQ(o.exit_code, 0) << o.err;
  const auto ls = lines(o.out);
  ASSERT_EQ(ls.size(), 3u) << o.out;  // header, stream 0, sum: no -i, no interval rows
  const auto head = fields(ls[0]);
  const auto sum = fields(ls[2]);
  ASSERT_EQ(sum.size(), head.size());
  for (size_t i = 0; i < head.size(); ++i) {
    if (head[i] == "bits_per_second") {
      // What arrived over the elapsed time. The pacer is over by one datagram at most and sends
      // what fell due in a stall once it runs, so only a stall over the last 0.2 s of the 2 s, or
      // 10% lost to a full receive buffer, would take it out of the 10%.
      EXPECT_NEAR(std::stod(sum[i]), 20e6, 2e6);
    } else if (head[i] == "datagrams_lost") {
      EXPECT_FALSE(sum[i].empty());
    } else if (head[i] == "stream") {
      EXPECT_EQ(sum[i], "sum");
    }
  }
}

TEST_F(LiveOutput, ATestThatCannotStartGivesAnErrorEvent) {
  // A port nothing listens on: refused at once, no result to report.
  const Outcome o =
      Process({kBin, "-H", "127.0.0.1", "-p", "1", "-t", "TCP_STREAM", "-l", "1", "--json-stream"})
          .wait(30s);
  ASSERT_FALSE(o.timed_out);
  EXPECT_EQ(o.exit_code, 1) << o.err;
  const auto ev = events(o.out);
  ASSERT_EQ(ev.size(), 1u) << o.out;  // no start, no end: the test never ran
  EXPECT_EQ(ev[0]["event"], "error");
  const std::string why = ev[0]["data"].get<std::string>();
  EXPECT_NE(why.find("no server is listening on 127.0.0.1:1"), std::string::npos) << why;
  EXPECT_NE(o.err.find(why), std::string::npos) << o.err;
}

TEST_F(LiveOutput, ATestThatFailsPartWayEndsTheStreamWithItsError) {
  // A server of its own, killed once data flows.
  Process server({kBin, "server", "-p", "0", "-B", "127.0.0.1"});
  const std::string port = announced_port(server);
  ASSERT_FALSE(port.empty());
  Process p({kBin, "-H", "127.0.0.1", "-p", port, "-t", "TCP_STREAM", "-l", "10", "-i", "0.2",
             "--json-stream"});
  ASSERT_TRUE(p.read_line(10s));  // start
  ASSERT_TRUE(p.read_line(10s));  // an interval
  server.signal(SIGKILL);
  const Outcome o = p.wait(60s);
  ASSERT_FALSE(o.timed_out);
  EXPECT_EQ(o.exit_code, 1) << o.err;
  const auto ev = events(o.out);
  ASSERT_GE(ev.size(), 4u) << o.out;
  EXPECT_EQ(ev.front()["event"], "start");
  EXPECT_EQ(ev[ev.size() - 2]["event"], "error");
  EXPECT_EQ(ev.back()["event"], "end");
  EXPECT_EQ(ev.back()["data"]["errors"][0], ev[ev.size() - 2]["data"]);
  EXPECT_GT(ev.back()["data"]["total"]["bytes_sent"].get<uint64_t>(), 0u);
}

TEST_F(LiveOutput, CtrlCStillEndsTheStream) {
  Process p(argv({"-t", "TCP_STREAM", "-l", "30", "-i", "0.5", "--json-stream"}));
  ASSERT_TRUE(p.read_line(10s));  // start
  ASSERT_TRUE(p.read_line(10s));  // an interval: the test runs
  p.signal(SIGINT);
  const Outcome o = p.wait(30s);
  ASSERT_FALSE(o.timed_out);
  EXPECT_EQ(o.exit_code, 130) << o.err;
  const auto ev = events(o.out);
  ASSERT_GE(ev.size(), 3u);
  EXPECT_EQ(ev.back()["event"], "end");
  EXPECT_TRUE(ev.back()["data"]["interrupted"].get<bool>());
  EXPECT_GT(ev.back()["data"]["total"]["bytes_sent"].get<uint64_t>(), 0u);
}

TEST_F(LiveOutput, MisuseIsRefusedWithExitTwo) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--json", "--csv"}, "give one of them"},
      {{"--json", "--json-stream"}, "give one of them"},
      {{"--csv", "--repeat", "3"}, "reports one run"},
      {{"--json-stream", "--confidence", "95"}, "reports one run"},
      {{"--csv", "--probe", "100"}, "--json-stream"},
      {{"--csv", "--bidir"}, "--json-stream"},
  };
  for (const auto& [extra, says] : cases) {
    std::vector<std::string> a = {"-t", "TCP_STREAM", "-l", "1"};
    a.insert(a.end(), extra.begin(), extra.end());
    const Outcome o = Process(argv(a)).wait(30s);
    EXPECT_EQ(o.exit_code, 2) << extra[1] << ": " << o.err;
    EXPECT_NE(o.err.find(says), std::string::npos) << o.err;
    // Standard output says it too, in the output asked for (the first of
    // --json, --json-stream, --csv): a script reading only stdout learns why.
    auto asked = [&extra](const char* flag) {
      return std::find(extra.begin(), extra.end(), flag) != extra.end();
    };
    if (asked("--json")) {
      const json doc = json::parse(o.out, nullptr, false);
      ASSERT_FALSE(doc.is_discarded()) << o.out;
      EXPECT_EQ(doc["error"]["code"], "usage") << o.out;
      EXPECT_NE(doc["error"]["message"].get<std::string>().find(says), std::string::npos) << o.out;
    } else if (asked("--json-stream")) {
      const auto ev = events(o.out);
      ASSERT_EQ(ev.size(), 1u) << o.out;
      EXPECT_EQ(ev[0]["event"], "error");
      EXPECT_NE(ev[0]["data"].get<std::string>().find(says), std::string::npos) << o.out;
    } else {
      EXPECT_EQ(o.out.rfind("# error: usage: ", 0), 0u) << o.out;
      EXPECT_EQ(std::count(o.out.begin(), o.out.end(), '\n'), 1) << o.out;
    }
  }
}

// --json when the test cannot start (nothing listens on the port): one
// document on standard output whose error has a stable code, the message on
// standard error too, and the exit code unchanged (1). --csv: a comment line.
TEST_F(LiveOutput, ATestThatCannotStartGivesAnErrorDocument) {
  const Outcome o =
      Process({kBin, "-H", "127.0.0.1", "-p", "1", "-t", "TCP_RR", "-l", "1", "--json"}).wait(30s);
  ASSERT_FALSE(o.timed_out);
  EXPECT_EQ(o.exit_code, 1) << o.err;
  const json doc = json::parse(o.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << o.out;
  EXPECT_EQ(doc["error"]["code"], "no_server") << o.out;
  const std::string why = doc["error"]["message"].get<std::string>();
  EXPECT_NE(why.find("no server is listening on 127.0.0.1:1"), std::string::npos) << why;
  EXPECT_NE(o.err.find(why), std::string::npos) << o.err;
  EXPECT_EQ(doc["tool"]["name"], "flowperf");
  const Outcome csv =
      Process({kBin, "-H", "127.0.0.1", "-p", "1", "-t", "TCP_RR", "-l", "1", "--csv"}).wait(30s);
  EXPECT_EQ(csv.exit_code, 1) << csv.err;
  EXPECT_EQ(csv.out.rfind("# error: no_server: no server is listening on 127.0.0.1:1", 0), 0u)
      << csv.out;
  // A bad option, with --json given: the usage code, exit 2.
  const Outcome typo = Process({kBin, "--json", "--raet", "2000"}).wait(30s);
  EXPECT_EQ(typo.exit_code, 2) << typo.err;
  const json t = json::parse(typo.out, nullptr, false);
  ASSERT_FALSE(t.is_discarded()) << typo.out;
  EXPECT_EQ(t["error"]["code"], "usage");
  EXPECT_NE(t["error"]["message"].get<std::string>().find("did you mean --rate?"),
            std::string::npos)
      << typo.out;
}

}  // namespace
}  // namespace flowperf::testing
