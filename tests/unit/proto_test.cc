// Unit tests for proto/messages and proto/framing: encode/decode round trips of every control
// message, rejection of malformed bodies, header validation, and send_message/read_message over a
// real socketpair (clean frames, frames cut short, close, timeout, oversized lengths).
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "measure/histogram.h"
#include "net/channel.h"
#include "net/fd.h"
#include "proto/framing.h"
#include "proto/messages.h"
#include "spec/spec_json.h"

namespace flowperf::proto {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

Deadline Soon(milliseconds ms = milliseconds(2000)) { return Clock::now() + ms; }

template <typename T>
T RoundTrip(const T& m) {
  Message back = decode(encode(Message(m)));
  EXPECT_TRUE(std::holds_alternative<T>(back)) << "decoded as " << message_name(back);
  return std::holds_alternative<T>(back) ? std::get<T>(back) : T{};
}

// ---------------------------------------------------------------------------------------------
// Round trips

TEST(Messages, HelloRoundTrip) {
  Hello h;
  h.version = 7;
  h.software = "flowperf 0.1.0 \"quoted\" \xc3\xa9";
  Hello back = RoundTrip(h);
  EXPECT_EQ(back.version, 7u);
  EXPECT_EQ(back.software, h.software);
  EXPECT_EQ(Hello{}.version, kProtocolVersion);
}

Welcome MakeWelcome() {
  Welcome w;
  w.version = kProtocolVersion;
  w.software = "flowperf 0.1.0";
  w.hostname = "host-a.example";
  w.os = "Linux 6.1.0";
  w.cpu_model = "Example CPU @ 3.00GHz";
  w.cores = 64;
  w.cpu_mhz = 2999.5;
  return w;
}

TEST(Messages, WelcomeRoundTrip) {
  Welcome back = RoundTrip(MakeWelcome());
  EXPECT_EQ(back.version, kProtocolVersion);
  EXPECT_EQ(back.software, "flowperf 0.1.0");
  EXPECT_EQ(back.hostname, "host-a.example");
  EXPECT_EQ(back.os, "Linux 6.1.0");
  EXPECT_EQ(back.cpu_model, "Example CPU @ 3.00GHz");
  EXPECT_EQ(back.cores, 64u);
  EXPECT_EQ(back.cpu_mhz, 2999.5);
}

TEST(Messages, WelcomeHostFactsAreOptional) {
  Message m = decode(R"({"type":"welcome","version":1,"software":"x"})");
  ASSERT_TRUE(std::holds_alternative<Welcome>(m));
  const Welcome& w = std::get<Welcome>(m);
  EXPECT_EQ(w.software, "x");
  EXPECT_EQ(w.hostname, "");
  EXPECT_EQ(w.os, "");
  EXPECT_EQ(w.cpu_model, "");
  EXPECT_EQ(w.cores, 0u);
  EXPECT_EQ(w.cpu_mhz, 0.0);
}

TEST(Messages, SetupRoundTrip) {
  proto::Setup s;
  s.spec.test = spec::TestKind::kUdpStream;
  s.spec.ip_family = IpFamily::kV6;
  s.spec.send_size = 1200;
  s.spec.recv_size = 9000;
  s.spec.request_size = 10;
  s.spec.response_size = 20;
  s.spec.local_sndbuf = 1 << 20;
  s.spec.remote_rcvbuf = 1 << 21;
  s.spec.nodelay = true;
  s.spec.rate_bps = 5'000'000'000ull;
  s.spec.duration_s = 3.25;
  s.spec.count = 99;
  s.spec.streams = 8;
  s.spec.threads = 2;
  s.spec.interval_s = 0.5;
  s.spec.udp_rr_min_timeout_us = 1234;
  proto::Setup back = RoundTrip(s);
  EXPECT_EQ(back.spec.test, spec::TestKind::kUdpStream);
  EXPECT_EQ(back.spec.ip_family, IpFamily::kV6);
  EXPECT_EQ(back.spec.send_size, 1200u);
  EXPECT_EQ(back.spec.recv_size, 9000u);
  EXPECT_EQ(back.spec.request_size, 10u);
  EXPECT_EQ(back.spec.response_size, 20u);
  EXPECT_EQ(back.spec.local_sndbuf, 1u << 20);
  EXPECT_EQ(back.spec.local_rcvbuf, 0u);
  EXPECT_EQ(back.spec.remote_rcvbuf, 1u << 21);
  EXPECT_TRUE(back.spec.nodelay);
  EXPECT_EQ(back.spec.rate_bps, 5'000'000'000ull);
  EXPECT_EQ(back.spec.duration_s, 3.25);
  EXPECT_EQ(back.spec.count, 99u);
  EXPECT_EQ(back.spec.streams, 8u);
  EXPECT_EQ(back.spec.threads, 2u);
  EXPECT_EQ(back.spec.interval_s, 0.5);
  EXPECT_EQ(back.spec.udp_rr_min_timeout_us, 1234u);
}

TEST(Messages, SetupOkRoundTrip) {
  SetupOk s;
  s.tcp_port = 65535;
  s.udp_ports = {1, 40000, 65535};
  s.cookie = 0xfedcba9876543210ull;  // above INT64_MAX
  s.threads = 4;
  s.sndbuf = -1;
  s.rcvbuf = 212992;
  SetupOk back = RoundTrip(s);
  EXPECT_EQ(back.tcp_port, 65535);
  EXPECT_EQ(back.udp_ports, (std::vector<uint16_t>{1, 40000, 65535}));
  EXPECT_EQ(back.cookie, 0xfedcba9876543210ull);
  EXPECT_EQ(back.threads, 4u);
  EXPECT_EQ(back.sndbuf, -1);
  EXPECT_EQ(back.rcvbuf, 212992);

  SetupOk empty = RoundTrip(SetupOk{});
  EXPECT_TRUE(empty.udp_ports.empty());
  EXPECT_EQ(empty.cookie, 0u);
}

TEST(Messages, EmptyMessagesRoundTrip) {
  EXPECT_TRUE(std::holds_alternative<Start>(decode(encode(Start{}))));
  EXPECT_TRUE(std::holds_alternative<Started>(decode(encode(Started{}))));
  EXPECT_TRUE(std::holds_alternative<Stop>(decode(encode(Stop{}))));
  EXPECT_TRUE(std::holds_alternative<Quit>(decode(encode(Quit{}))));
}

TEST(Messages, StopCarriesAnAbortAndWhenTheClientsTestEnded) {
  Stop plain = std::get<Stop>(decode(encode(Stop{})));
  EXPECT_FALSE(plain.abort);
  EXPECT_EQ(json::parse(encode(Stop{})).size(), 1u);  // only "type": older servers read it
  Stop s = std::get<Stop>(decode(encode(Stop{true, 2.5})));
  EXPECT_TRUE(s.abort);
  EXPECT_DOUBLE_EQ(s.at_s, 2.5);
  Stop from_json = std::get<Stop>(decode(R"({"type":"stop","abort":true})"));
  EXPECT_TRUE(from_json.abort);
  EXPECT_EQ(from_json.at_s, 0.0);
  EXPECT_TRUE(from_json.sent.empty());  // an older client: counts unknown
}

TEST(Messages, StopCarriesWhatEachUdpFlowSent) {
  Stop s = std::get<Stop>(decode(encode(Stop{false, 0, {12, 0, 7}})));
  EXPECT_FALSE(s.abort);
  EXPECT_EQ(s.sent, (std::vector<uint64_t>{12, 0, 7}));
  EXPECT_EQ(json::parse(encode(Stop{false, 0, {3}})).at("sent"), json::array({3}));
  EXPECT_THROW(decode(R"({"type":"stop","sent":"many"})"), ProtocolError);
}

TEST(Messages, ErrorRoundTrip) {
  ErrorMsg e{"invalid_spec", "-m 70000: message too long\nsecond line"};
  ErrorMsg back = RoundTrip(e);
  EXPECT_EQ(back.code, "invalid_spec");
  EXPECT_EQ(back.message, e.message);
}

TEST(Messages, MessageNames) {
  EXPECT_STREQ(message_name(Hello{}), "hello");
  EXPECT_STREQ(message_name(Welcome{}), "welcome");
  EXPECT_STREQ(message_name(proto::Setup{}), "setup");
  EXPECT_STREQ(message_name(SetupOk{}), "setup_ok");
  EXPECT_STREQ(message_name(Start{}), "start");
  EXPECT_STREQ(message_name(Started{}), "started");
  EXPECT_STREQ(message_name(Stop{}), "stop");
  EXPECT_STREQ(message_name(Quit{}), "quit");
  EXPECT_STREQ(message_name(Results{}), "results");
  EXPECT_STREQ(message_name(ErrorMsg{}), "error");
  EXPECT_EQ(json::parse(encode(Stop{})).at("type"), "stop");
  EXPECT_EQ(json::parse(encode(Quit{})).at("type"), "quit");
  EXPECT_EQ(json::parse(encode(SetupOk{})).at("type"), "setup_ok");
}

results::FlowResult Flow(uint32_t index, uint64_t base) {
  results::FlowResult f;
  f.index = index;
  f.elapsed_s = 10.125 + index;
  f.bytes_sent = base + 1;
  f.bytes_recv = base + 2;
  f.send_calls = base + 3;
  f.recv_calls = base + 4;
  f.transactions = base + 5;
  f.datagrams_sent = base + 6;
  f.datagrams_recv = base + 7;
  f.timeouts = base + 8;
  f.late = base + 9;
  f.out_of_order = base + 10;
  f.duplicates = base + 11;
  f.send_errors = base + 12;
  f.connects = base + 13;
  f.jitter_ns = 1234.5 + index;
  return f;
}

void ExpectSameFlow(const results::FlowResult& a, const results::FlowResult& b) {
  EXPECT_EQ(a.index, b.index);
  EXPECT_EQ(a.elapsed_s, b.elapsed_s);
  EXPECT_EQ(a.bytes_sent, b.bytes_sent);
  EXPECT_EQ(a.bytes_recv, b.bytes_recv);
  EXPECT_EQ(a.send_calls, b.send_calls);
  EXPECT_EQ(a.recv_calls, b.recv_calls);
  EXPECT_EQ(a.transactions, b.transactions);
  EXPECT_EQ(a.datagrams_sent, b.datagrams_sent);
  EXPECT_EQ(a.datagrams_recv, b.datagrams_recv);
  EXPECT_EQ(a.timeouts, b.timeouts);
  EXPECT_EQ(a.late, b.late);
  EXPECT_EQ(a.out_of_order, b.out_of_order);
  EXPECT_EQ(a.duplicates, b.duplicates);
  EXPECT_EQ(a.send_errors, b.send_errors);
  EXPECT_EQ(a.connects, b.connects);
  EXPECT_EQ(a.jitter_ns, b.jitter_ns);
  EXPECT_EQ(a.finished, b.finished);
  EXPECT_EQ(a.error, b.error);
  ASSERT_EQ(a.latency.has_value(), b.latency.has_value());
  if (a.latency) {
    EXPECT_TRUE(*a.latency == *b.latency);
  }
}

// A side with two flows: flow 0 has its own latency histogram, flow 1 has none and failed.
results::SideResult TwoFlowSide() {
  results::SideResult s;
  s.elapsed_s = 10.5;
  s.threads = 2;
  s.sndbuf = 425984;
  s.rcvbuf = -1;
  results::FlowResult a = Flow(0, 1000);
  measure::Histogram h;
  for (uint64_t v = 1; v <= 1000; ++v) h.record(v * 1000);  // 1 us .. 1 ms
  h.record(uint64_t{1} << 41);                              // one sample in the overflow bucket
  a.latency = h;
  results::FlowResult b = Flow(1, (uint64_t{1} << 63) + 5);  // counters above INT64_MAX
  b.finished = false;
  b.error = "connection reset by peer";
  s.flows = {a, b};
  s.latency.merge(h);
  s.latency.record(42);
  return s;
}

TEST(Messages, ResultsRoundTrip) {
  const results::SideResult side = TwoFlowSide();
  Results back = RoundTrip(Results{side});
  EXPECT_EQ(back.side.elapsed_s, 10.5);
  EXPECT_EQ(back.side.threads, 2u);
  EXPECT_EQ(back.side.sndbuf, 425984);
  EXPECT_EQ(back.side.rcvbuf, -1);
  ASSERT_EQ(back.side.flows.size(), 2u);
  ExpectSameFlow(back.side.flows[0], side.flows[0]);
  ExpectSameFlow(back.side.flows[1], side.flows[1]);
  EXPECT_FALSE(back.side.flows[1].latency.has_value());
  EXPECT_FALSE(back.side.flows[1].finished);
  EXPECT_EQ(back.side.flows[1].error, "connection reset by peer");

  ASSERT_TRUE(back.side.flows[0].latency.has_value());
  const measure::Histogram& lat = *back.side.flows[0].latency;
  const measure::Histogram& orig = *side.flows[0].latency;
  EXPECT_EQ(lat.count(), 1001u);
  EXPECT_EQ(lat.min(), 1000u);
  EXPECT_EQ(lat.max(), uint64_t{1} << 41);
  EXPECT_EQ(lat.sum(), orig.sum());
  for (double p : {0.0, 1.0, 50.0, 90.0, 99.0, 99.9, 100.0}) {
    EXPECT_EQ(lat.percentile(p), orig.percentile(p)) << "p=" << p;
  }
  // The median is near 500 us (within the histogram's 1% error).
  EXPECT_NEAR(static_cast<double>(lat.percentile(50)), 501'000.0, 5'010.0);
  EXPECT_TRUE(lat.snapshot() == orig.snapshot());

  EXPECT_EQ(back.side.latency.count(), 1002u);
  EXPECT_EQ(back.side.latency.min(), 42u);
  EXPECT_TRUE(back.side.latency == side.latency);

  // total() over the decoded flows sums the counters.
  EXPECT_EQ(back.side.total().bytes_sent, side.flows[0].bytes_sent + side.flows[1].bytes_sent);
}

// encode() writes a results message flow by flow rather than from one DOM of the whole side; the
// text must still be the same JSON value side_to_json() describes.
TEST(Messages, ResultsEncodedFlowByFlowIsTheSameJsonAsTheDom) {
  results::SideResult side = TwoFlowSide();
  results::IntervalSample iv;
  iv.end_s = 1;
  iv.flows.resize(2);
  iv.flows[1].bytes_sent = 7;
  side.intervals = {iv};
  const json expected = {{"type", "results"}, {"side", side_to_json(side)}};
  json sent = json::parse(encode(Results{side}));
  EXPECT_EQ(sent["side"]["flow_count"], 2);  // a hint for the decoder, before the flows
  sent["side"].erase("flow_count");
  EXPECT_EQ(sent, expected);
}

// decode() takes the flows out of the DOM while it parses; text written by any JSON writer (keys
// in any order, "flows" first or last, interval flows beside them) must decode the same.
TEST(Messages, ResultsDecodeFromDomOrderedText) {
  results::SideResult side = TwoFlowSide();
  results::IntervalSample iv;
  iv.end_s = 1;
  iv.flows.resize(3);
  iv.flows[2].transactions = 9;
  side.intervals = {iv};
  const json dom = {{"type", "results"}, {"side", side_to_json(side)}};  // keys sorted
  Message m = decode(dom.dump());
  ASSERT_TRUE(std::holds_alternative<Results>(m));
  const auto& back = std::get<Results>(m).side;
  ASSERT_EQ(back.flows.size(), 2u);
  ExpectSameFlow(back.flows[0], side.flows[0]);
  ExpectSameFlow(back.flows[1], side.flows[1]);
  ASSERT_EQ(back.intervals.size(), 1u);
  ASSERT_EQ(back.intervals[0].flows.size(), 3u);
  EXPECT_EQ(back.intervals[0].flows[2].transactions, 9u);
}

TEST(Messages, ManyFlowsKeepTheirOrder) {
  results::SideResult side;
  for (uint32_t i = 0; i < 3000; ++i) side.flows.push_back(Flow(i, i * 100));
  Results back = RoundTrip(Results{side});
  ASSERT_EQ(back.side.flows.size(), side.flows.size());
  for (size_t i = 0; i < side.flows.size(); ++i) ExpectSameFlow(back.side.flows[i], side.flows[i]);
  // The flow count is only a hint: wrong, absurd or missing, the flows decode the same.
  json j = json::parse(encode(Results{side}));
  for (json hint : {json(5), json(uint64_t{1} << 62), json("x"), json(nullptr)}) {
    if (hint.is_null()) {
      j["side"].erase("flow_count");
    } else {
      j["side"]["flow_count"] = hint;
    }
    Message m = decode(j.dump());
    ASSERT_TRUE(std::holds_alternative<Results>(m));
    EXPECT_EQ(std::get<Results>(m).side.flows.size(), side.flows.size());
  }
}

TEST(Messages, ResultsWithEmptyHistogramsAndNoFlows) {
  Results back = RoundTrip(Results{});
  EXPECT_TRUE(back.side.flows.empty());
  EXPECT_EQ(back.side.latency.count(), 0u);
}

// ---------------------------------------------------------------------------------------------
// Rejections

void ExpectProtocolError(const std::string& body, const std::string& mention = "") {
  SCOPED_TRACE(body);
  try {
    Message m = decode(body);
    ADD_FAILURE() << "accepted as " << message_name(m);
  } catch (const ProtocolError& e) {
    if (!mention.empty()) {
      EXPECT_NE(std::string(e.what()).find(mention), std::string::npos) << e.what();
    }
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not a ProtocolError: " << e.what();
  }
}

void ExpectProtocolError(const json& j, const std::string& mention = "") {
  ExpectProtocolError(j.dump(), mention);
}

TEST(Decode, RejectsInvalidJson) {
  for (const char* bad : {"", " ", "{", "}", "{\"type\":\"hello\"", "hello", "{'type':'stop'}",
                          "{\"type\":\"stop\"} trailing", "\xff\xfe"}) {
    ExpectProtocolError(std::string(bad), "JSON");
  }
}

TEST(Decode, RejectsDeepNestingAsSoonAsItIsMet) {
  // 32 levels are every message's ceiling (results use 6); the 33rd is
  // refused before anything below it is built.
  auto nested = [](int levels) {
    return "{\"type\":\"hello\",\"version\":3,\"software\":\"x\",\"x\":" +
           std::string(levels - 1, '[') + std::string(levels - 1, ']') + "}";
  };
  EXPECT_NO_THROW(decode(nested(32)));
  ExpectProtocolError(nested(33), "nested deeper than 32 levels");
  // 1 MiB of '[' (86 MB as a DOM): refused at its 33rd byte of nesting.
  ExpectProtocolError("{\"type\":\"hello\",\"x\":" + std::string(1 << 20, '['), "nested deeper");
}

TEST(Decode, RejectsNonObjects) {
  for (const char* bad : {"[]", "[{\"type\":\"stop\"}]", "\"stop\"", "5", "null", "true"}) {
    ExpectProtocolError(std::string(bad), "object");
  }
}

TEST(Decode, RejectsMissingOrBadType) {
  ExpectProtocolError(json::object(), "type");
  ExpectProtocolError(json{{"version", 1}, {"software", "x"}}, "type");
  ExpectProtocolError(json{{"type", 5}}, "type");
  ExpectProtocolError(json{{"type", nullptr}}, "type");
  ExpectProtocolError(json{{"type", "goodbye"}}, "goodbye");
  ExpectProtocolError(json{{"type", "STOP"}}, "STOP");
  ExpectProtocolError(json{{"type", ""}}, "unknown");
}

// Encodes `m`, removes `key` from the top level, and expects decode to name the missing field.
void ExpectMissing(const Message& m, const char* key) {
  json j = json::parse(encode(m));
  ASSERT_TRUE(j.contains(key)) << key;
  j.erase(key);
  ExpectProtocolError(j, key);
}

TEST(Decode, RejectsMissingFields) {
  ExpectMissing(Hello{1, "x"}, "version");
  ExpectMissing(Hello{1, "x"}, "software");
  ExpectMissing(MakeWelcome(), "version");
  ExpectMissing(MakeWelcome(), "software");
  ExpectMissing(proto::Setup{}, "spec");
  for (const char* key : {"tcp_port", "udp_ports", "cookie", "threads", "sndbuf", "rcvbuf"})
    ExpectMissing(SetupOk{}, key);
  ExpectMissing(Results{TwoFlowSide()}, "side");
  ExpectMissing(ErrorMsg{"busy", "try later"}, "code");
  ExpectMissing(ErrorMsg{"busy", "try later"}, "message");
}

TEST(Decode, RejectsMissingFieldsInsideResults) {
  const json base = json::parse(encode(Results{TwoFlowSide()}));
  for (const char* key : {"elapsed_s", "threads", "sndbuf", "rcvbuf", "flows", "latency"}) {
    json j = base;
    j["side"].erase(key);
    ExpectProtocolError(j, key);
  }
  for (const char* key : {"index", "elapsed_s", "bytes_sent", "bytes_recv", "transactions",
                          "duplicates", "jitter_ns", "finished", "error"}) {
    json j = base;
    j["side"]["flows"][1].erase(key);
    ExpectProtocolError(j, key);
  }
  for (const char* key : {"min", "max", "sum_lo", "sum_hi", "buckets"}) {
    json j = base;
    j["side"]["flows"][0]["latency"].erase(key);
    ExpectProtocolError(j, key);
  }
}

// Encodes `m`, sets the top-level `key` to `value`, and expects a ProtocolError.
void ExpectBadField(const Message& m, const char* key, const json& value) {
  json j = json::parse(encode(m));
  j[key] = value;
  ExpectProtocolError(j, key);
}

TEST(Decode, RejectsWrongFieldTypes) {
  ExpectBadField(Hello{1, "x"}, "version", "1");
  ExpectBadField(Hello{1, "x"}, "version", json::array({1}));
  ExpectBadField(Hello{1, "x"}, "software", 5);
  ExpectBadField(MakeWelcome(), "hostname", 5);
  ExpectBadField(MakeWelcome(), "software", nullptr);
  ExpectBadField(MakeWelcome(), "os", 6);
  ExpectBadField(MakeWelcome(), "cpu_model", json::array());
  ExpectBadField(MakeWelcome(), "cores", "64");
  ExpectBadField(MakeWelcome(), "cpu_mhz", "fast");
  ExpectBadField(SetupOk{}, "tcp_port", "80");
  ExpectBadField(SetupOk{}, "udp_ports", "5000");
  ExpectBadField(SetupOk{}, "udp_ports", json::array({"5000"}));
  ExpectBadField(SetupOk{}, "udp_ports", json::object());
  ExpectBadField(SetupOk{}, "cookie", "123");
  ExpectBadField(SetupOk{}, "threads", json::object());
  ExpectBadField(SetupOk{}, "sndbuf", "big");
  ExpectBadField(SetupOk{}, "rcvbuf", nullptr);
  ExpectBadField(ErrorMsg{"a", "b"}, "code", 1);
  ExpectBadField(ErrorMsg{"a", "b"}, "message", json::array());
}

TEST(Decode, RejectsBadSetupSpec) {
  json j = json::parse(encode(proto::Setup{}));
  j["spec"]["test"] = "NOPE_STREAM";
  ExpectProtocolError(j, "NOPE_STREAM");
  j = json::parse(encode(proto::Setup{}));
  j["spec"]["streams"] = "many";
  ExpectProtocolError(j, "streams");
  j = json::parse(encode(proto::Setup{}));
  j["spec"] = "TCP_STREAM";
  ExpectProtocolError(j);
}

TEST(Decode, RejectsBadResultsShapes) {
  const json base = json::parse(encode(Results{TwoFlowSide()}));
  json j = base;
  j["side"] = json::array();
  ExpectProtocolError(j);
  j = base;
  j["side"]["flows"] = json::object();
  ExpectProtocolError(j, "flows");
  j = base;
  j["side"]["flows"][0] = 5;
  ExpectProtocolError(j, "flow");
  j = base;
  j["side"]["flows"][0]["bytes_sent"] = "1";
  ExpectProtocolError(j, "bytes_sent");
  j = base;
  j["side"]["flows"][0]["finished"] = 1;
  ExpectProtocolError(j, "finished");
  j = base;
  j["side"]["flows"][0]["error"] = nullptr;
  ExpectProtocolError(j, "error");
  j = base;
  j["side"]["threads"] = "2";
  ExpectProtocolError(j, "threads");
  j = base;
  j["side"]["latency"] = json::array();
  ExpectProtocolError(j, "histogram");
  j = base;
  j["side"]["flows"][0]["latency"] = "none";
  ExpectProtocolError(j, "histogram");
}

// The Results message for a histogram holding the single value 5 (bucket index 5), as JSON.
json OneSampleResults() {
  results::SideResult s;
  s.latency.record(5);
  json j = json::parse(encode(Results{s}));
  EXPECT_EQ(j["side"]["latency"]["buckets"], json::parse("[[5,1]]"));
  return j;
}

TEST(Decode, RejectsBadHistogramBuckets) {
  const json base = OneSampleResults();
  // Sanity: the unmodified message decodes.
  EXPECT_NO_THROW(decode(base.dump()));

  const std::vector<json> not_pairs = {
      json::parse("[5]"),       json::parse("[[5]]"),       json::parse("[[5,1,0]]"),
      json::parse("[5,1]"),     json::parse("[\"5,1\"]"),   json::parse("[[\"5\",1]]"),
      json::parse("[[5,-1]]"),  json::parse("[[-5,1]]"),    json::parse("[[5.0,1]]"),
      json::parse("[[5,1.5]]"), json::parse("[{\"5\":1}]"), json::parse("[[5,null]]")};
  for (const json& buckets : not_pairs) {
    json j = base;
    j["side"]["latency"]["buckets"] = buckets;
    ExpectProtocolError(j, "bucket");
  }

  json j = base;
  j["side"]["latency"]["buckets"] = "[[5,1]]";
  ExpectProtocolError(j, "buckets");

  // Index out of range (bucket_count() is 2241).
  for (uint32_t index : {measure::Histogram::bucket_count(), 5000u, 0xffffffffu}) {
    j = base;
    j["side"]["latency"]["buckets"] = json::array({json::array({index, 1})});
    ExpectProtocolError(j, "histogram");
  }

  // Buckets inconsistent with min/max, unsorted, or with zero counts.
  j = base;
  j["side"]["latency"]["buckets"] = json::parse("[[6,1]]");
  ExpectProtocolError(j, "histogram");
  j = base;
  j["side"]["latency"]["buckets"] = json::parse("[[5,0]]");
  ExpectProtocolError(j, "histogram");
  j = base;
  j["side"]["latency"]["max"] = 7;
  j["side"]["latency"]["buckets"] = json::parse("[[7,1],[5,1]]");
  ExpectProtocolError(j, "histogram");
}

// BUG: histogram_from_json reads the bucket index with get<uint32_t>(), which silently truncates a
// JSON integer >= 2^32 before Histogram::from_snapshot range-checks it. Index 2^32 + 5 becomes 5,
// so an out-of-range bucket is accepted as if it were bucket 5.
TEST(Decode, RejectsBucketIndexBeyond32Bits) {
  json j = OneSampleResults();
  j["side"]["latency"]["buckets"] =
      json::array({json::array({(uint64_t{1} << 32) + 5, uint64_t{1}})});
  ExpectProtocolError(j);
}

// BUG: decode() narrows integer fields with nlohmann's get<T>(), which casts instead of range
// checking: tcp_port 70000 decodes as 4464, a UDP port 65536 as 0, and version 2^32 + 1 as 1 (so
// it would even pass the version check). These are not well-formed messages.
TEST(Decode, RejectsOutOfRangeIntegers) {
  ExpectBadField(SetupOk{}, "tcp_port", 70000);
  ExpectBadField(SetupOk{}, "tcp_port", -1);
  ExpectBadField(SetupOk{}, "udp_ports", json::array({65536}));
  ExpectBadField(Hello{1, "x"}, "version", (uint64_t{1} << 32) + 1);
}

// ---------------------------------------------------------------------------------------------
// Framing: headers

TEST(Framing, MakeHeaderLayout) {
  auto h = make_header(0x01020304u);
  EXPECT_EQ(h, (std::array<uint8_t, kHeaderBytes>{'F', 'P', 1, 0, 1, 2, 3, 4}));
  EXPECT_EQ(kFramingVersion, 1);
  EXPECT_EQ(kHeaderBytes, 8u);
}

TEST(Framing, HeaderRoundTrip) {
  for (uint32_t len : {1u, 2u, 255u, 256u, 65535u, 65536u, 0x00abcdefu, kMaxFrame - 1, kMaxFrame}) {
    auto h = make_header(len);
    EXPECT_TRUE(looks_like_flowperf(h.data(), h.size()));
    EXPECT_EQ(parse_header(h.data()), len);
  }
}

void ExpectBadHeader(std::array<uint8_t, kHeaderBytes> h, const std::string& mention) {
  try {
    uint32_t len = parse_header(h.data());
    ADD_FAILURE() << "accepted, length " << len;
  } catch (const ProtocolError& e) {
    EXPECT_NE(std::string(e.what()).find(mention), std::string::npos) << e.what();
  }
}

TEST(Framing, ParseHeaderRejects) {
  ExpectBadHeader({'G', 'P', 1, 0, 0, 0, 0, 10}, "magic");
  ExpectBadHeader({'F', 'Q', 1, 0, 0, 0, 0, 10}, "magic");
  ExpectBadHeader({'f', 'p', 1, 0, 0, 0, 0, 10}, "magic");
  ExpectBadHeader({0, 0, 0, 0x61, 0, 0, 0, 10}, "magic");  // a netperf request
  ExpectBadHeader({'F', 'P', 0, 0, 0, 0, 0, 10}, "version 0");
  ExpectBadHeader({'F', 'P', 2, 0, 0, 0, 0, 10}, "version 2");
  ExpectBadHeader({'F', 'P', 255, 0, 0, 0, 0, 10}, "version 255");
  ExpectBadHeader(make_header(0), "empty");
  ExpectBadHeader(make_header(kMaxFrame + 1), std::to_string(kMaxFrame + 1));
  ExpectBadHeader(make_header(0xffffffffu), "limit");
}

TEST(Framing, LooksLikeFlowperf) {
  const uint8_t fp[] = {'F', 'P'};
  EXPECT_TRUE(looks_like_flowperf(fp, 2));
  EXPECT_FALSE(looks_like_flowperf(fp, 1));
  EXPECT_FALSE(looks_like_flowperf(fp, 0));
  const uint8_t netperf[] = {0x00, 0x00, 0x00, 0x61, 0, 0, 0, 0};
  EXPECT_FALSE(looks_like_flowperf(netperf, sizeof netperf));
  const uint8_t lower[] = {'f', 'p'};
  EXPECT_FALSE(looks_like_flowperf(lower, 2));
  const uint8_t swapped[] = {'P', 'F'};
  EXPECT_FALSE(looks_like_flowperf(swapped, 2));
}

// ---------------------------------------------------------------------------------------------
// Framing over a socketpair

struct Pair {
  net::Fd writer, reader;
};

Pair MakePair() {
  int fds[2];
  EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0) << std::strerror(errno);
  return {net::Fd(fds[0]), net::Fd(fds[1])};
}

void WriteRaw(int fd, const void* data, size_t len) {
  ASSERT_EQ(::send(fd, data, len, MSG_NOSIGNAL), static_cast<ssize_t>(len)) << std::strerror(errno);
}

TEST(FramingIo, MessageRoundTrip) {
  Pair p = MakePair();
  ASSERT_TRUE(send_message(p.writer.get(), Hello{kProtocolVersion, "flowperf test"}, Soon()));
  Message m;
  ASSERT_EQ(read_message(p.reader.get(), &m, Soon()), ReadStatus::kOk);
  ASSERT_TRUE(std::holds_alternative<Hello>(m));
  EXPECT_EQ(std::get<Hello>(m).version, kProtocolVersion);
  EXPECT_EQ(std::get<Hello>(m).software, "flowperf test");
}

TEST(FramingIo, BackToBackMessagesKeepTheirBoundaries) {
  Pair p = MakePair();
  ASSERT_TRUE(send_message(p.writer.get(), Start{}, Soon()));
  ASSERT_TRUE(send_message(p.writer.get(), ErrorMsg{"busy", "one at a time"}, Soon()));
  ASSERT_TRUE(send_message(p.writer.get(), Results{TwoFlowSide()}, Soon()));
  ASSERT_TRUE(send_message(p.writer.get(), Stop{}, Soon()));
  p.writer.reset();

  Message m;
  ASSERT_EQ(read_message(p.reader.get(), &m, Soon()), ReadStatus::kOk);
  EXPECT_TRUE(std::holds_alternative<Start>(m));
  ASSERT_EQ(read_message(p.reader.get(), &m, Soon()), ReadStatus::kOk);
  ASSERT_TRUE(std::holds_alternative<ErrorMsg>(m));
  EXPECT_EQ(std::get<ErrorMsg>(m).message, "one at a time");
  ASSERT_EQ(read_message(p.reader.get(), &m, Soon()), ReadStatus::kOk);
  ASSERT_TRUE(std::holds_alternative<Results>(m));
  EXPECT_EQ(std::get<Results>(m).side.flows.size(), 2u);
  ASSERT_EQ(read_message(p.reader.get(), &m, Soon()), ReadStatus::kOk);
  EXPECT_TRUE(std::holds_alternative<Stop>(m));
  // Then a clean end of stream.
  EXPECT_EQ(read_message(p.reader.get(), &m, Soon()), ReadStatus::kClosed);
}

TEST(FramingIo, MessageLargerThanTheSocketBuffer) {
  Pair p = MakePair();
  const std::string big(3u << 20, 'x');  // 3 MiB, far more than a socketpair buffers
  std::thread sender([&] {
    EXPECT_TRUE(send_message(p.writer.get(), ErrorMsg{"internal", big}, Soon(milliseconds(10000))));
  });
  Message m;
  ReadStatus st = read_message(p.reader.get(), &m, Soon(milliseconds(10000)));
  sender.join();
  ASSERT_EQ(st, ReadStatus::kOk);
  ASSERT_TRUE(std::holds_alternative<ErrorMsg>(m));
  EXPECT_EQ(std::get<ErrorMsg>(m).message.size(), big.size());
  EXPECT_EQ(std::get<ErrorMsg>(m).message, big);
}

TEST(FramingIo, BodyCutShortThenCloseIsAProtocolError) {
  Pair p = MakePair();
  const std::string body = encode(Hello{1, "flowperf"});
  auto h = make_header(static_cast<uint32_t>(body.size()));
  WriteRaw(p.writer.get(), h.data(), h.size());
  WriteRaw(p.writer.get(), body.data(), body.size() - 3);
  p.writer.reset();
  Message m;
  EXPECT_THROW(read_message(p.reader.get(), &m, Soon()), ProtocolError);
}

TEST(FramingIo, HeaderCutShortThenCloseIsAProtocolError) {
  for (size_t n : {1u, 4u, 7u}) {
    SCOPED_TRACE(n);
    Pair p = MakePair();
    auto h = make_header(10);
    WriteRaw(p.writer.get(), h.data(), n);
    p.writer.reset();
    Message m;
    EXPECT_THROW(read_message(p.reader.get(), &m, Soon()), ProtocolError);
  }
}

TEST(FramingIo, NothingSentThenCloseIsClosed) {
  Pair p = MakePair();
  p.writer.reset();
  Message m = Stop{};
  EXPECT_EQ(read_message(p.reader.get(), &m, Soon()), ReadStatus::kClosed);
  EXPECT_TRUE(std::holds_alternative<Stop>(m));  // untouched
}

TEST(FramingIo, NothingSentWithShortDeadlineTimesOut) {
  Pair p = MakePair();
  Message m;
  auto start = Clock::now();
  EXPECT_EQ(read_message(p.reader.get(), &m, start + milliseconds(50)), ReadStatus::kTimeout);
  auto waited = Clock::now() - start;
  EXPECT_GE(waited, milliseconds(45));
  EXPECT_LT(waited, milliseconds(2000));
}

TEST(FramingIo, DeadlineAlreadyPassedTimesOut) {
  Pair p = MakePair();
  Message m;
  EXPECT_EQ(read_message(p.reader.get(), &m, Clock::now() - milliseconds(1)), ReadStatus::kTimeout);
}

TEST(FramingIo, OversizedLengthIsRejectedWithoutReadingTheBody) {
  Pair p = MakePair();
  auto h = make_header(kMaxFrame + 1);
  WriteRaw(p.writer.get(), h.data(), h.size());
  const char tail[] = "BODY";
  WriteRaw(p.writer.get(), tail, 4);
  // The writer stays open: reading the body would wait for the deadline instead of failing fast.
  Message m;
  auto start = Clock::now();
  EXPECT_THROW(read_message(p.reader.get(), &m, Soon(milliseconds(5000))), ProtocolError);
  EXPECT_LT(Clock::now() - start, milliseconds(1000));
  // The bytes after the header are still unread.
  char buf[16];
  ssize_t n = ::recv(p.reader.get(), buf, sizeof buf, MSG_DONTWAIT);
  ASSERT_EQ(n, 4);
  EXPECT_EQ(std::string(buf, 4), "BODY");
}

TEST(FramingIo, NetperfRequestIsRejected) {
  Pair p = MakePair();
  const uint8_t netperf[] = {0x00, 0x00, 0x00, 0x61, 0x00, 0x00, 0x02, 0x90};
  WriteRaw(p.writer.get(), netperf, sizeof netperf);
  Message m;
  EXPECT_THROW(read_message(p.reader.get(), &m, Soon()), ProtocolError);
}

TEST(FramingIo, WellFramedGarbageBodyIsAProtocolError) {
  Pair p = MakePair();
  const std::string body = "{\"type\":\"nonsense\"}";
  auto h = make_header(static_cast<uint32_t>(body.size()));
  WriteRaw(p.writer.get(), h.data(), h.size());
  WriteRaw(p.writer.get(), body.data(), body.size());
  Message m;
  EXPECT_THROW(read_message(p.reader.get(), &m, Soon()), ProtocolError);
}

TEST(FramingIo, SendToClosedPeerFails) {
  Pair p = MakePair();
  p.reader.reset();
  EXPECT_FALSE(send_message(p.writer.get(), Stop{}, Soon()));  // no SIGPIPE either
}

// ---------------------------------------------------------------------------------------------
// Sealed frames (protocol 3, after an authenticated handshake)

// Frames written by a sealing sender, read back raw (so a test can change
// them on the way) and written again for a checking reader.
struct SealedPair {
  Pair wire = MakePair();
  FrameSeal send{std::vector<uint8_t>(32, 7)}, check{std::vector<uint8_t>(32, 7)};
  // The next frame the sender writes, as bytes.
  std::string frame(const Message& m) {
    Pair p = MakePair();
    net::PlainChannel out(p.writer.get());
    EXPECT_TRUE(send_message(out, m, Soon(), &send));
    p.writer.reset();
    std::string bytes;
    char buf[4096];
    ssize_t n;
    while ((n = ::recv(p.reader.get(), buf, sizeof buf, 0)) > 0) bytes.append(buf, size_t(n));
    return bytes;
  }
  // Passes bytes to the checking reader and reads one message.
  Message deliver(const std::string& bytes) {
    WriteRaw(wire.writer.get(), bytes.data(), bytes.size());
    net::PlainChannel in(wire.reader.get());
    Message m;
    EXPECT_EQ(read_message(in, &m, Soon(), kMaxFrame, &check), ReadStatus::kOk);
    return m;
  }
};

std::string check_failure(SealedPair& p, const std::string& bytes) {
  try {
    p.deliver(bytes);
  } catch (const FrameCheckError& e) {
    return e.what();
  }
  return "(taken)";
}

TEST(SealedFrames, TakenInOrderAndTheTagIsThe32BytesAfterTheBody) {
  SealedPair p;
  const std::string first = p.frame(Stop{true, 0.5});
  EXPECT_EQ(static_cast<uint8_t>(first[3]), kFlagSealed);
  const std::string body = encode(Message{Stop{true, 0.5}});
  EXPECT_EQ(first.size(), kHeaderBytes + body.size() + kTagBytes);
  EXPECT_EQ(first.substr(kHeaderBytes, body.size()), body);
  EXPECT_TRUE(std::holds_alternative<Stop>(p.deliver(first)));
  EXPECT_TRUE(std::holds_alternative<Start>(p.deliver(p.frame(Start{}))));
}

TEST(SealedFrames, RewrittenReplayedReorderedOrDroppedFramesFailTheirCheck) {
  const std::string words = "a control message failed its check";
  {  // one byte of the body rewritten
    SealedPair p;
    std::string f = p.frame(Stop{true, 0.5});
    f[kHeaderBytes + 3] ^= 0x20;
    EXPECT_NE(check_failure(p, f).find(words), std::string::npos);
  }
  {  // one byte of the tag
    SealedPair p;
    std::string f = p.frame(Start{});
    f.back() ^= 0x01;
    EXPECT_NE(check_failure(p, f).find(words), std::string::npos);
  }
  {  // the same frame twice: the second is a replay
    SealedPair p;
    const std::string f = p.frame(Start{});
    p.deliver(f);
    EXPECT_NE(check_failure(p, f).find(words), std::string::npos);
  }
  {  // two frames swapped
    SealedPair p;
    const std::string a = p.frame(Start{}), b = p.frame(Stop{});
    EXPECT_NE(check_failure(p, b).find(words), std::string::npos);
  }
  {  // the first dropped: the second fails
    SealedPair p;
    p.frame(Start{});
    EXPECT_NE(check_failure(p, p.frame(Stop{})).find(words), std::string::npos);
  }
  {  // the seal taken off: an unsealed frame where a sealed one is due
    SealedPair p;
    const std::string body = encode(Message{Start{}});
    const auto h = make_header(static_cast<uint32_t>(body.size()));
    EXPECT_NE(check_failure(p, std::string(h.begin(), h.end()) + body).find("without its seal"),
              std::string::npos);
  }
  {  // a frame sealed under another key
    SealedPair p;
    FrameSeal other{std::vector<uint8_t>(32, 8)};
    std::swap(p.send, other);
    EXPECT_NE(check_failure(p, p.frame(Start{})).find(words), std::string::npos);
  }
}

TEST(SealedFrames, ASealedFrameWhereNoneIsExpectedIsAProtocolError) {
  SealedPair p;
  const std::string f = p.frame(Start{});
  WriteRaw(p.wire.writer.get(), f.data(), f.size());
  Message m;
  EXPECT_THROW(read_message(p.wire.reader.get(), &m, Soon()), ProtocolError);
}

}  // namespace
}  // namespace flowperf::proto
