// flowperf monitor's parts without sockets: the YAML configuration (the
// issue's example, defaults, and errors that name the line and the field),
// the metrics' text (counters, the latency histogram's buckets, label
// escaping) and the HTTP endpoint's answers.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "core/error.h"
#include "monitor/config.h"
#include "monitor/http.h"
#include "monitor/metrics.h"
#include "support/paths.h"

namespace flowperf::monitor {
namespace {

const char* kExample = R"(targets:
  - name: loopback
    host: 127.0.0.1
    port: 12865
    every: 2s
    tests:
      - test: TCP_RR
        length: 1s
      - test: TCP_STREAM
        length: 1s
)";

// The message parse_config throws for `text`, or "" when it parses.
std::string error_of(const std::string& text) {
  try {
    parse_config(text, "mon.yaml");
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kUsage);
    return e.what();
  }
  return "";
}

// protocol: chooses the client (and so the server it talks to) and its
// default port; a test the far end cannot run is refused as the file is read.
TEST(MonitorConfig, EachProtocolHasItsPortAndItsTests) {
  const Config c = parse_config(
      "targets:\n"
      "  - {name: n, host: h, protocol: netperf, tests: [{test: TCP_RR}, {test: TCP_MAERTS}]}\n"
      "  - {name: i, host: h, protocol: iperf3,\n"
      "     tests: [{test: TCP_STREAM, streams: 4}, {test: UDP_STREAM, rate: 10M}]}\n"
      "  - {name: q, host: h, protocol: qperf, tests: [{test: TCP_STREAM}, {test: UDP_RR}]}\n"
      "  - {name: f, host: h, protocol: flowperf, port: 2000, tests: [{test: TCP_CRR}]}\n",
      "mon.yaml");
  ASSERT_EQ(c.targets.size(), 4u);
  EXPECT_EQ(c.targets[0].protocol, Protocol::kNetperf);
  EXPECT_EQ(c.targets[0].port, 12865);
  EXPECT_EQ(c.targets[1].protocol, Protocol::kIperf3);
  EXPECT_EQ(c.targets[1].port, 5201);
  EXPECT_EQ(c.targets[1].tests[0].spec.streams, 4u);
  EXPECT_EQ(c.targets[2].protocol, Protocol::kQperf);
  EXPECT_EQ(c.targets[2].port, 19765);
  EXPECT_EQ(c.targets[3].protocol, Protocol::kFlowperf);
  EXPECT_EQ(c.targets[3].port, 2000);
}

TEST(MonitorConfig, TheIssuesExampleParses) {
  const Config c = parse_config(kExample, "mon.yaml");
  ASSERT_EQ(c.targets.size(), 1u);
  const Target& t = c.targets[0];
  EXPECT_EQ(t.name, "loopback");
  EXPECT_EQ(t.host, "127.0.0.1");
  EXPECT_EQ(t.port, 12865);
  EXPECT_DOUBLE_EQ(t.every_s, 2);
  EXPECT_DOUBLE_EQ(t.jitter_s, 0.2);  // a tenth of `every` unless given
  ASSERT_EQ(t.tests.size(), 2u);
  EXPECT_EQ(t.tests[0].spec.test, spec::TestKind::kTcpRr);
  EXPECT_DOUBLE_EQ(t.tests[0].spec.duration_s, 1);
  EXPECT_EQ(t.tests[0].direction, "both");
  EXPECT_EQ(t.tests[1].spec.test, spec::TestKind::kTcpStream);
  EXPECT_EQ(t.tests[1].direction, "send");
  EXPECT_EQ(c.listen, "127.0.0.1:9464");
}

TEST(MonitorConfig, TestOptionsReachTheSpec) {
  const Config c = parse_config(R"(listen: "[::1]:9000"
targets:
  - name: a
    host: h
    every: 5m
    jitter: 0
    connect_timeout: 500ms
    tests:
      - {test: tcp_maerts, length: 2s, streams: 4, send_size: 64K}
      - {test: UDP_STREAM, rate: 10M}
      - {test: TCP_RR, rr: "64,1024"}
)",
                                "x");
  const Target& t = c.targets[0];
  EXPECT_DOUBLE_EQ(t.every_s, 300);
  EXPECT_DOUBLE_EQ(t.jitter_s, 0);
  EXPECT_DOUBLE_EQ(t.connect_timeout_s, 0.5);
  EXPECT_EQ(t.tests[0].spec.streams, 4u);
  EXPECT_EQ(t.tests[0].spec.send_size, 65536u);
  EXPECT_EQ(t.tests[0].direction, "receive");
  EXPECT_EQ(t.tests[1].spec.rate_bps, 10'000'000u);
  EXPECT_DOUBLE_EQ(t.tests[1].spec.duration_s, 5);  // the default length
  EXPECT_EQ(t.tests[2].spec.request_size, 64u);
  EXPECT_EQ(t.tests[2].spec.response_size, 1024u);
  EXPECT_EQ(c.listen, "[::1]:9000");
  EXPECT_EQ(split_host_port(c.listen, "listen").first, "::1");
}

TEST(MonitorConfig, ErrorsNameTheLineAndTheField) {
  struct Case {
    std::string text, says;
  };
  const std::vector<Case> cases = {
      {"targets:\n  - name: a\n    tests: [{test: TCP_RR}]\n",
       "mon.yaml:2: targets[0].host: missing"},
      {"targets:\n  - name: a\n    host: h\n    every: soon\n    tests: [{test: TCP_RR}]\n",
       "mon.yaml:4: targets[0].every: 'soon' is not a duration"},
      {"targets:\n  - name: a\n    host: h\n    tests:\n      - test: TCP_XX\n",
       "mon.yaml:5: targets[0].tests[0].test: unknown test 'TCP_XX'"},
      {"targets:\n  - name: a\n    host: h\n    colour: red\n    tests: [{test: TCP_RR}]\n",
       "mon.yaml:4: targets[0].colour: unknown key"},
      {"targets:\n  - name: a\n    host: h\n    tests: []\n", "targets[0].tests: give a list"},
      {"targets:\n  - {name: a, host: h, tests: [{test: TCP_RR}]}\n  - {name: a, host: g, tests: "
       "[{test: TCP_RR}]}\n",
       "mon.yaml:3: targets[1].name: 'a' names another target too"},
      {"targets:\n  - {name: a, host: h, port: 70000, tests: [{test: TCP_RR}]}\n",
       "targets[0].port: '70000' is not a whole number from 1 to 65535"},
      {"targets:\n  - {name: a, host: h, tests: [{test: UDP_STREAM}]}\n",
       "targets[0].tests[0].rate: UDP_STREAM needs a rate"},
      {"targets:\n  - {name: a, host: h, protocol: iperf3, tests: [{test: TCP_RR}]}\n",
       "mon.yaml:2: targets[0].tests[0]: TCP_RR is not an iperf3 test; iperf3 -s runs "
       "TCP_STREAM, TCP_MAERTS (-R) and UDP_STREAM"},
      {"targets:\n  - {name: a, host: h, protocol: ftp, tests: [{test: TCP_RR}]}\n",
       "mon.yaml:2: targets[0].protocol: 'ftp': choose flowperf, netperf (a netserver), iperf3 "
       "(iperf3 -s) or qperf"},
      {"targets:\n  - {name: a, host: h, protocol: netperf, tests: [{test: TCP_RR, streams: "
       "2}]}\n",
       "targets[0].tests[0]: netperf runs one stream a test"},
      {"targets:\n  - {name: a, host: h, protocol: netperf, tests: [{test: UDP_STREAM, rate: "
       "1M}]}\n",
       "targets[0].tests[0]: netperf cannot pace a UDP_STREAM"},
      {"targets:\n  - {name: a, host: h, protocol: qperf, tests: [{test: TCP_MAERTS}]}\n",
       "targets[0].tests[0]: TCP_MAERTS is not a qperf test"},
      {"targets:\n  - {name: a, host: h, protocol: qperf, tests: [{test: TCP_RR, rr: "
       "\"64,1\"}]}\n",
       "targets[0].tests[0]: qperf's latency tests send one size both ways"},
      {"targets:\n  - {name: a, host: h, every: 2s, jitter: 3s, tests: [{test: TCP_RR}]}\n",
       "jitter: must be shorter than `every`"},
      {"targets: [\n", "mon.yaml:2: not valid YAML"},
      {"listen: nowhere\ntargets:\n  - {name: a, host: h, tests: [{test: TCP_RR}]}\n",
       "mon.yaml:1: listen: "},
      {"- just\n- a list\n", "the file must be a mapping"},
      {"targets:\n  - {name: a, host: h, tests: [{test: TCP_RR, streams: 0}]}\n",
       "targets[0].tests[0].streams: '0' is not a whole number from 1"},
  };
  for (const auto& c : cases) {
    const std::string e = error_of(c.text);
    EXPECT_NE(e.find(c.says), std::string::npos) << "for:\n" << c.text << "got: " << e;
  }
}

TEST(MonitorConfig, Durations) {
  EXPECT_DOUBLE_EQ(*parse_duration("2s"), 2);
  EXPECT_DOUBLE_EQ(*parse_duration("250ms"), 0.25);
  EXPECT_DOUBLE_EQ(*parse_duration("1.5m"), 90);
  EXPECT_DOUBLE_EQ(*parse_duration("1h"), 3600);
  EXPECT_DOUBLE_EQ(*parse_duration("7"), 7);
  for (const char* bad : {"", "s", "-1s", "0", "2x", "nan", "inf", "1e9h"})
    EXPECT_FALSE(parse_duration(bad)) << bad;
}

results::TestResult rr_result(uint64_t latency_ns, uint64_t n) {
  results::TestResult r;
  r.spec.test = spec::TestKind::kTcpRr;
  r.have_remote = true;
  r.local_side.elapsed_s = r.remote_side.elapsed_s = 1;
  results::FlowResult f;
  f.elapsed_s = 1;
  f.transactions = n;
  f.latency = measure::Histogram();
  for (uint64_t i = 0; i < n; ++i) f.latency->record(latency_ns);
  r.local_side.latency.merge(*f.latency);
  r.local_side.flows = {f};
  r.remote_side.flows = {f};
  return r;
}

// The value of the line that starts with `series` (exactly), or -1.
double value_of(const std::string& text, const std::string& series) {
  const auto at = text.find("\n" + series + " ");
  if (at == std::string::npos) return -1;
  return std::stod(text.substr(at + series.size() + 2));
}

TEST(MonitorMetrics, CountersGrowAndTheHistogramCountsEveryRun) {
  Metrics m;
  const SeriesKey k{.target = "t", .test = "TCP_RR", .direction = "both", .streams = 1};
  m.record(k, rr_result(50'000, 100), 1.1, 1000);    // 50 µs
  m.record(k, rr_result(3'000'000, 10), 1.2, 2000);  // 3 ms
  m.record_failure(k, "refused", 0.25);
  const std::string text = m.render();
  const std::string l = R"({target="t",test="TCP_RR",streams="1",direction="both")";
  EXPECT_EQ(value_of(text, "flowperf_tests_total" + l + "}"), 3);
  EXPECT_EQ(value_of(text, "flowperf_test_failures_total" + l + ",reason=\"refused\"}"), 1);
  EXPECT_EQ(value_of(text, "flowperf_last_success_timestamp_seconds" + l + "}"), 2000);
  EXPECT_EQ(value_of(text, "flowperf_latency_seconds_bucket" + l + ",le=\"2e-05\"}"), 0);
  EXPECT_EQ(value_of(text, "flowperf_latency_seconds_bucket" + l + ",le=\"5e-05\"}"), 0);
  // flowperf's bucket holding 50 µs reaches a little past it: it counts under 100 µs.
  EXPECT_EQ(value_of(text, "flowperf_latency_seconds_bucket" + l + ",le=\"0.0001\"}"), 100);
  EXPECT_EQ(value_of(text, "flowperf_latency_seconds_bucket" + l + ",le=\"0.002\"}"), 100);
  EXPECT_EQ(value_of(text, "flowperf_latency_seconds_bucket" + l + ",le=\"0.005\"}"), 110);
  EXPECT_EQ(value_of(text, "flowperf_latency_seconds_bucket" + l + ",le=\"+Inf\"}"), 110);
  EXPECT_EQ(value_of(text, "flowperf_latency_seconds_count" + l + "}"), 110);
  EXPECT_NEAR(value_of(text, "flowperf_latency_seconds_sum" + l + "}"), 100 * 50e-6 + 10 * 3e-3,
              1e-9);
  EXPECT_NEAR(value_of(text, "flowperf_latency_p50_seconds" + l + "}"), 3e-3, 3e-3 / 64);
  EXPECT_EQ(value_of(text, "flowperf_transactions_per_second" + l + "}"), 10);
  EXPECT_EQ(value_of(text, "flowperf_test_duration_seconds" + l + "}"), 0.25);  // the last: refused
  // Every sample line belongs to a family announced with # TYPE before it.
  const std::regex sample(R"(^([a-z_]+?)(_bucket|_sum|_count)?\{)");
  std::string typed;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("# TYPE ", 0) == 0) {
      typed = line.substr(7, line.find(' ', 7) - 7);
      continue;
    }
    if (line[0] == '#') continue;
    EXPECT_EQ(line.rfind(typed, 0), 0u) << line << " after # TYPE " << typed;
  }
}

TEST(MonitorMetrics, LabelValuesAreEscaped) {
  Metrics m;
  m.record_failure({.target = "a\"b\\c\nd", .test = "TCP_RR", .direction = "both"}, "timeout", 1);
  const std::string text = m.render();
  EXPECT_NE(text.find(R"(target="a\"b\\c\nd")"), std::string::npos) << text;
}

TEST(MonitorMetrics, FailureReasons) {
  EXPECT_EQ(failure_reason("no server is listening on 10.0.0.1:12865", false), "refused");
  EXPECT_EQ(failure_reason("connect to 10.0.0.1:12865 timed out after 5 s", false), "timeout");
  EXPECT_EQ(failure_reason("10.0.0.1: network is unreachable", false), "unreachable");
  EXPECT_EQ(failure_reason("something else", false), "setup");
  EXPECT_EQ(failure_reason("recv failed", true), "error");
}

// Every metric the shipped Grafana dashboard queries is one the exporter
// serves (for results of each kind of test).
TEST(MonitorDashboard, QueriesNameOnlyServedMetrics) {
  Metrics m;
  auto stream = [](spec::TestKind kind) {
    results::TestResult r;
    r.spec.test = kind;
    r.have_remote = true;
    r.local_side.elapsed_s = r.remote_side.elapsed_s = 1;
    measure::CpuUsage cpu;
    cpu.util = 40;
    cpu.num_cpus = 2;
    cpu.elapsed_s = 1;
    r.local_side.cpu = r.remote_side.cpu = cpu;
    results::FlowResult f;
    f.elapsed_s = 1;
    f.bytes_sent = f.bytes_recv = 1'000'000;
    f.datagrams_sent = f.datagrams_recv = 1000;
    if (kind != spec::TestKind::kUdpStream) f.tcp = net::TcpInfo{};
    r.local_side.flows = r.remote_side.flows = {f};
    return r;
  };
  m.record({.target = "t", .test = "TCP_STREAM", .direction = "send"},
           stream(spec::TestKind::kTcpStream), 1, 1);
  m.record({.target = "t", .test = "UDP_STREAM", .direction = "send"},
           stream(spec::TestKind::kUdpStream), 1, 1);
  m.record({.target = "t", .test = "TCP_RR", .direction = "both"}, rr_result(50'000, 10), 1, 1);
  m.record_failure({.target = "u", .test = "TCP_RR", .direction = "both"}, "timeout", 5);
  std::set<std::string> served;
  std::istringstream text(m.render());
  for (std::string line; std::getline(text, line);)
    if (!line.empty() && line[0] != '#') served.insert(line.substr(0, line.find_first_of("{ ")));

  std::ifstream f(::flowperf::testing::source_dir() + "/packaging/grafana/flowperf-dashboard.json");
  ASSERT_TRUE(f) << "no dashboard";
  const std::string dashboard((std::istreambuf_iterator<char>(f)),
                              std::istreambuf_iterator<char>());
  const std::regex name(R"(flowperf_[a-z0-9_]+)");
  size_t queried = 0;
  for (auto it = std::sregex_iterator(dashboard.begin(), dashboard.end(), name);
       it != std::sregex_iterator(); ++it) {
    ++queried;
    EXPECT_TRUE(served.count(it->str())) << it->str() << " is not served";
  }
  EXPECT_GE(queried, 14u);
}

TEST(MonitorHttp, Answers) {
  const HttpServer::Render body = [] { return std::string("flowperf_x 1\n"); };
  bool done = false;
  std::string r = http_response("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", body, &done);
  EXPECT_TRUE(done);
  EXPECT_EQ(r.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << r;
  EXPECT_NE(r.find("version=0.0.4"), std::string::npos);
  EXPECT_EQ(r.substr(r.size() - 13), "flowperf_x 1\n");
  r = http_response("HEAD /metrics HTTP/1.0\r\n\r\n", body, &done);
  EXPECT_NE(r.find("Content-Length: 13"), std::string::npos);
  EXPECT_EQ(r.find("flowperf_x"), std::string::npos);
  r = http_response("GET /healthz HTTP/1.1\r\n\r\n", body, &done);
  EXPECT_EQ(r.substr(r.size() - 3), "ok\n");
  r = http_response("GET /nope HTTP/1.1\r\n\r\n", body, &done);
  EXPECT_EQ(r.rfind("HTTP/1.1 404", 0), 0u);
  r = http_response("POST /metrics HTTP/1.1\r\n\r\n", body, &done);
  EXPECT_EQ(r.rfind("HTTP/1.1 405", 0), 0u);
  r = http_response("\x16\x03\x01 garbage\r\n\r\n", body, &done);
  EXPECT_EQ(r.rfind("HTTP/1.1 400", 0), 0u);
  r = http_response("GET /metrics HTTP/1.1\r\nHost:", body, &done);
  EXPECT_FALSE(done);  // waits for the rest of the head
  r = http_response(std::string(HttpServer::kMaxRequest, 'a'), body, &done);
  EXPECT_TRUE(done);
  EXPECT_EQ(r.rfind("HTTP/1.1 431", 0), 0u);
}

}  // namespace
}  // namespace flowperf::monitor
