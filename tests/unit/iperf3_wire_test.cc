// iperf3's messages against bytes recorded from a real iperf3 3.12
// (../shared/protocols/iperf3-wire.md §13).
#include "proto/iperf3_wire.h"

#include <gtest/gtest.h>

#include <set>

#include "proto/messages.h"

namespace ip = flowperf::proto::iperf3;

namespace {

ip::Params tcp(int time) {
  ip::Params p;
  p.time = time;
  p.len = 131072;
  return p;
}

TEST(Iperf3Params, EncodesAs312SendsThem) {
  struct Case {
    ip::Params p;
    const char* recorded;
  };
  std::vector<Case> cases;
  cases.push_back(
      {tcp(2),
       R"({"tcp":true,"omit":0,"time":2,"num":0,"blockcount":0,"parallel":1,"len":131072,"pacing_timer":1000,"client_version":"3.12"})"});
  {
    auto p = tcp(2);
    p.reverse = true;
    cases.push_back(
        {p,
         R"({"tcp":true,"omit":0,"time":2,"num":0,"blockcount":0,"parallel":1,"reverse":true,"len":131072,"pacing_timer":1000,"client_version":"3.12"})"});
  }
  {
    auto p = tcp(2);
    p.bidirectional = true;
    p.parallel = 2;
    cases.push_back(
        {p,
         R"({"tcp":true,"omit":0,"time":2,"num":0,"blockcount":0,"parallel":2,"bidirectional":true,"len":131072,"pacing_timer":1000,"client_version":"3.12"})"});
  }
  {
    ip::Params p;
    p.udp = true;
    p.time = 2;
    p.len = 32768;
    p.bandwidth = 10000000;
    p.udp_counters_64bit = true;
    cases.push_back(
        {p,
         R"({"udp":true,"omit":0,"time":2,"num":0,"blockcount":0,"parallel":1,"len":32768,"bandwidth":10000000,"pacing_timer":1000,"udp_counters_64bit":1,"client_version":"3.12"})"});
  }
  {
    auto p = tcp(0);
    p.num = 1048576;
    cases.push_back(
        {p,
         R"({"tcp":true,"omit":0,"time":0,"num":1048576,"blockcount":0,"parallel":1,"len":131072,"pacing_timer":1000,"client_version":"3.12"})"});
  }
  {
    auto p = tcp(2);
    p.nodelay = true;
    p.mss = 1000;
    cases.push_back(
        {p,
         R"({"tcp":true,"omit":0,"time":2,"num":0,"blockcount":0,"MSS":1000,"nodelay":true,"parallel":1,"len":131072,"pacing_timer":1000,"client_version":"3.12"})"});
  }
  {
    auto p = tcp(2);
    p.get_server_output = true;
    cases.push_back(
        {p,
         R"({"tcp":true,"omit":0,"time":2,"num":0,"blockcount":0,"parallel":1,"len":131072,"pacing_timer":1000,"get_server_output":1,"client_version":"3.12"})"});
  }
  {
    // The recording with many options at once (§6.1).
    ip::Params p;
    p.udp = true;
    p.omit = 1;
    p.server_affinity = 0;
    p.time = 1;
    p.parallel = 2;
    p.reverse = true;
    p.window = 262144;
    p.len = 1000;
    p.bandwidth = 10000000;
    p.fqrate = 1000000;
    p.pacing_timer = 500;
    p.burst = 5;
    p.tos = 8;
    p.title = "t";
    p.extra_data = "e";
    p.get_server_output = p.udp_counters_64bit = p.repeating_payload = p.dont_fragment = true;
    cases.push_back(
        {p,
         R"({"udp":true,"omit":1,"server_affinity":0,"time":1,"num":0,"blockcount":0,"parallel":2,"reverse":true,"window":262144,"len":1000,"bandwidth":10000000,"fqrate":1000000,"pacing_timer":500,"burst":5,"TOS":8,"title":"t","extra_data":"e","get_server_output":1,"udp_counters_64bit":1,"repeating_payload":1,"dont_fragment":1,"client_version":"3.12"})"});
  }
  {
    auto p = tcp(1);
    p.tos = 8;
    p.flowlabel = 5;
    p.title = "t";
    p.extra_data = "e";
    p.congestion = "reno";
    cases.push_back(
        {p,
         R"({"tcp":true,"omit":0,"time":1,"num":0,"blockcount":0,"parallel":1,"len":131072,"pacing_timer":1000,"TOS":8,"flowlabel":5,"title":"t","extra_data":"e","congestion":"reno","client_version":"3.12"})"});
  }
  {
    auto p = tcp(2);
    p.zerocopy = true;
    cases.push_back(
        {p,
         R"({"tcp":true,"omit":0,"time":2,"num":0,"blockcount":0,"parallel":1,"len":131072,"pacing_timer":1000,"zerocopy":1,"client_version":"3.12"})"});
  }
  for (const auto& c : cases) {
    EXPECT_EQ(ip::encode_params(c.p), c.recorded);
    // And each recording reads back as the same parameters.
    EXPECT_EQ(ip::decode_params(c.recorded), c.p) << c.recorded;
  }
}

TEST(Iperf3Params, ReadsAs312Does) {
  // A flag is set by its key's presence, whatever its value.
  auto p = ip::decode_params(R"({"tcp":true,"time":2,"reverse":false,"len":131072})");
  EXPECT_TRUE(p.reverse);
  EXPECT_FALSE(p.bidirectional);
  // Numbers given as strings are taken (3.12 does no type checks).
  EXPECT_EQ(ip::decode_params(R"({"tcp":true,"time":"2"})").time, 2);
  // Unknown keys are ignored.
  EXPECT_EQ(ip::decode_params(R"({"udp":true,"pad":"xxxx","parallel":3})").parallel, 3);
  EXPECT_TRUE(ip::decode_params(R"({"udp":true})").udp);
}

TEST(Iperf3Params, RefusesDeepNesting) {
  const std::string deep = R"({"tcp":true,"extra_data":)" + std::string(4 << 20, '[');
  try {
    ip::decode_params(deep);
    FAIL() << "taken";
  } catch (const flowperf::proto::ProtocolError& e) {
    EXPECT_NE(std::string(e.what()).find("nested deeper than 32 levels"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(ip::decode_params(R"({"tcp":true,"time":3,"x":[[[[1]]]]})").time, 3);
}

TEST(Iperf3Params, RefusesWhatCannotBeRun) {
  using flowperf::proto::ProtocolError;
  EXPECT_THROW(ip::decode_params(""), ProtocolError);
  EXPECT_THROW(ip::decode_params("{notjson}"), ProtocolError);
  EXPECT_THROW(ip::decode_params("[1,2]"), ProtocolError);
  EXPECT_THROW(ip::decode_params(R"({"time":2})"), ProtocolError);  // no protocol
  EXPECT_THROW(ip::decode_params(R"({"tcp":true,"time":"soon"})"), ProtocolError);
  EXPECT_THROW(ip::decode_params(R"({"tcp":true,"parallel":-1})"), ProtocolError);
  EXPECT_THROW(ip::decode_params(R"({"sctp":true})"), ProtocolError);
  // Values past their field's range are refused, not wrapped.
  EXPECT_THROW(ip::decode_params(R"({"tcp":true,"len":4294967296})"), ProtocolError);
  EXPECT_THROW(ip::decode_params(R"({"tcp":true,"len":-5})"), ProtocolError);
  EXPECT_THROW(ip::decode_params(R"({"tcp":true,"time":1e300})"), ProtocolError);
  EXPECT_THROW(ip::decode_params(R"({"tcp":true,"num":-1})"), ProtocolError);
  EXPECT_THROW(ip::decode_params(R"({"tcp":true,"time":3000000000})"), ProtocolError);
  EXPECT_EQ(ip::decode_params(R"({"tcp":true,"len":4294967295})").len, 4294967295u);
  // Any integer fits a floating field (found by fuzz_iperf3_wire: the range
  // check itself overflowed for doubles).
  const auto r = ip::decode_results(
      R"({"cpu_util_total":18446744073709551615,"cpu_util_user":-3,"cpu_util_system":0,)"
      R"("sender_has_retransmits":0,"streams":[]})");
  EXPECT_DOUBLE_EQ(r.cpu_util_total, 18446744073709551615.0);
  EXPECT_DOUBLE_EQ(r.cpu_util_user, -3.0);
}

TEST(Iperf3Results, ReadsRecordedResults) {
  // §13.2: the client's results, then the server's with 3.12's -1.
  auto c = ip::decode_results(
      R"({"cpu_util_total":63.67149184228348,"cpu_util_user":2.77379342308453,"cpu_util_system":60.898247794010416,"sender_has_retransmits":1,"congestion_used":"bbr","streams":[{"id":1,"bytes":4525916160,"retransmits":112,"jitter":0,"errors":0,"packets":0,"start_time":0,"end_time":2.000656}]})");
  EXPECT_DOUBLE_EQ(c.cpu_util_total, 63.67149184228348);
  EXPECT_EQ(c.sender_has_retransmits, 1);
  EXPECT_EQ(c.congestion_used, "bbr");
  ASSERT_EQ(c.streams.size(), 1u);
  EXPECT_EQ(c.streams[0].bytes, 4525916160u);
  EXPECT_EQ(c.streams[0].retransmits, 112);
  EXPECT_DOUBLE_EQ(c.streams[0].end_time, 2.000656);
  auto s = ip::decode_results(
      R"({"cpu_util_total":44.702988706133553,"cpu_util_user":5.132321570305268,"cpu_util_system":39.5705171907082,"sender_has_retransmits":18446744073709551615,"congestion_used":"bbr","streams":[{"id":1,"bytes":4525916160,"retransmits":18446744073709551615,"jitter":0,"errors":0,"packets":0,"start_time":0,"end_time":2.000709}]})");
  EXPECT_EQ(s.sender_has_retransmits, -1);
  EXPECT_EQ(s.streams[0].retransmits, -1);
}

TEST(Iperf3Results, RoundTripsAndKeepsKeyOrder) {
  ip::Results r;
  r.cpu_util_total = 12.5;
  r.sender_has_retransmits = -1;
  r.congestion_used = "cubic";
  r.server_output_text = "Accepted connection\n";
  r.streams.push_back({1, 1000, -1, 0.00025, 3, 77, 0, 2.000656});
  r.streams.push_back({3, 2000, 5, 0, 0, 0, 0, 2.0});
  const std::string text = ip::encode_results(r);
  EXPECT_EQ(ip::decode_results(text), r);
  EXPECT_LT(text.find("\"cpu_util_total\""), text.find("\"sender_has_retransmits\""));
  EXPECT_LT(text.find("\"congestion_used\""), text.find("\"server_output_text\""));
  EXPECT_LT(text.find("\"server_output_text\""), text.find("\"streams\""));
  EXPECT_NE(
      text.find(
          R"({"id":1,"bytes":1000,"retransmits":-1,"jitter":0.00025,"errors":3,"packets":77,"start_time":0,"end_time":2.000656})"),
      std::string::npos)
      << text;
  EXPECT_THROW(ip::decode_results(R"({"cpu_util_total":1})"), flowperf::proto::ProtocolError);
}

TEST(Iperf3Cookie, MadeAndRecognised) {
  std::set<std::string> seen;
  for (int i = 0; i < 50; ++i) {
    const std::string c = ip::make_cookie();
    ASSERT_EQ(c.size(), ip::kCookieBytes);
    EXPECT_EQ(c.back(), '\0');
    const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(c.data()), c.size());
    EXPECT_EQ(ip::match_cookie(bytes), ip::CookieMatch::kYes);
    EXPECT_EQ(ip::match_cookie(bytes.first(10)), ip::CookieMatch::kNeedMore);
    seen.insert(c);
  }
  EXPECT_EQ(seen.size(), 50u);
  // The recorded cookie (§13.2).
  const std::string recorded = std::string("c6dsghisr72yylwer37bmhltsz4oogsx5uwa") + '\0';
  EXPECT_EQ(ip::match_cookie({reinterpret_cast<const uint8_t*>(recorded.data()), 37}),
            ip::CookieMatch::kYes);
  // netperf's requests start with a zero byte; flowperf's with 'F' 'P'.
  const uint8_t netperf[4] = {0, 0, 0, 0x12};
  EXPECT_EQ(ip::match_cookie(netperf), ip::CookieMatch::kNo);
  const uint8_t flowperf[2] = {'F', 'P'};
  EXPECT_EQ(ip::match_cookie(flowperf), ip::CookieMatch::kNo);
  std::string no_nul = recorded;
  no_nul.back() = 'a';
  EXPECT_EQ(ip::match_cookie({reinterpret_cast<const uint8_t*>(no_nul.data()), 37}),
            ip::CookieMatch::kNo);
}

TEST(Iperf3Framing, LengthIsBigEndian) {
  auto b = ip::length_prefix(0x11c);
  EXPECT_EQ(b[0], 0);
  EXPECT_EQ(b[2], 0x01);
  EXPECT_EQ(b[3], 0x1c);
  EXPECT_EQ(ip::read_length(b.data()), 0x11cu);
  EXPECT_EQ(ip::stream_id(0), 1);
  EXPECT_EQ(ip::stream_id(1), 3);
  EXPECT_EQ(ip::stream_id(2), 4);
}

}  // namespace
