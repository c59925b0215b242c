// The field lists (results/fields.h, proto/messages.h) are the one place a
// struct's fields are named for the wire and for --json. These tests check
// that every member of every listed struct is in its list (by counting the
// aggregate's members), and that every listed field survives the wire: a
// struct with each field set to a value of its own, sent and received,
// writes the same user JSON as the original (the JSON writer is code apart
// from the wire codec).
#include "results/fields.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "member_count.h"
#include "proto/messages.h"
#include "report/result_json.h"

namespace flowperf {
namespace {

using results::fields;
using results::Presence;

using test_support::member_count;

struct Counter {
  size_t n = 0;
  template <class M>
  void operator()(const char*, const M&, Presence = Presence::kRequired) {
    ++n;
  }
};

template <class T>
size_t listed() {
  Counter c;
  const T t{};
  fields(c, t);
  return c.n;
}

TEST(Fields, EveryMemberOfEveryResultsStructIsListed) {
  EXPECT_EQ(listed<net::TcpInfo>(), member_count<net::TcpInfo>());
  EXPECT_EQ(listed<measure::CpuUsage>(), member_count<measure::CpuUsage>());
  // NicUsage lists its counters flat: name, elapsed_s and each counter of `delta`.
  EXPECT_EQ(listed<measure::NicUsage>(),
            member_count<measure::NicUsage>() - 1 + member_count<measure::NicCounters>());
  EXPECT_EQ(listed<results::FlowResult>(), member_count<results::FlowResult>());
  EXPECT_EQ(listed<results::IntervalFlow>(), member_count<results::IntervalFlow>());
  EXPECT_EQ(listed<results::IntervalSample>(), member_count<results::IntervalSample>());
  EXPECT_EQ(listed<results::SideResult>(), member_count<results::SideResult>());
}

TEST(Fields, EveryMemberOfEveryMessageIsListed) {
  EXPECT_EQ(listed<proto::Hello>(), member_count<proto::Hello>());
  EXPECT_EQ(listed<proto::Challenge>(), member_count<proto::Challenge>());
  EXPECT_EQ(listed<proto::Auth>(), member_count<proto::Auth>());
  EXPECT_EQ(listed<proto::Welcome>(), member_count<proto::Welcome>());
  EXPECT_EQ(listed<proto::SetupOk>(), member_count<proto::SetupOk>());
  EXPECT_EQ(listed<proto::Stop>(), member_count<proto::Stop>());
  EXPECT_EQ(listed<proto::ErrorMsg>(), member_count<proto::ErrorMsg>());
}

// ---- a value of its own in every field ----

template <class T>
struct IsVec : std::false_type {};
template <class T>
struct IsVec<std::vector<T>> : std::true_type {};

struct Filler {
  uint32_t next = 100;  // above every field's default (protocol versions are small)
  template <class M>
  void operator()(const char*, M& m, Presence = Presence::kRequired) {
    fill(m);
  }
  template <class M>
  void fill(M& m) {
    const uint32_t n = next++;
    if constexpr (std::is_same_v<M, bool>) {
      m = !m;
    } else if constexpr (std::is_arithmetic_v<M>) {
      m = static_cast<M>(n);
    } else if constexpr (std::is_same_v<M, std::string>) {
      m = "value " + std::to_string(n);
    } else if constexpr (std::is_same_v<M, measure::Histogram>) {
      m.record(1000 * n);
      m.record(7 * n);
    } else if constexpr (requires { m.emplace(); }) {
      fill(m.emplace());
    } else if constexpr (IsVec<M>::value) {
      fill(m.emplace_back());
      fill(m.emplace_back());
    } else {
      fields(*this, m);
    }
  }
};

template <class T>
T filled() {
  T t{};
  Filler f;
  f.fill(t);
  return t;
}

TEST(Fields, EveryResultsFieldCrossesTheWire) {
  const results::SideResult side = filled<results::SideResult>();
  ASSERT_TRUE(side.cpu && side.nic && side.flows.at(0).latency && side.flows.at(0).tcp);
  ASSERT_TRUE(side.intervals.at(0).flows.at(0).tcp);
  auto back = std::get<proto::Results>(proto::decode(proto::encode(proto::Results{side}))).side;
  EXPECT_EQ(report::side_json(back), report::side_json(side));
  // The filled side is not the default one: the comparison sees every field.
  EXPECT_NE(report::side_json(side), report::side_json(results::SideResult{}));
}

struct Texts {
  std::vector<std::string> out;
  template <class F>
  void operator()(const char* name, const F& f, Presence = Presence::kRequired) {
    out.push_back(std::string(name) + "=" + nlohmann::json(f).dump());
  }
};

template <class M>
void expect_round_trip() {
  const M m = filled<M>();
  const M back = std::get<M>(proto::decode(proto::encode(m)));
  // Compared through the field list with a visitor of its own (Texts):
  // each field's JSON text, in order.
  Texts a, b;
  fields(a, m);
  fields(b, back);
  EXPECT_EQ(a.out, b.out);
  Texts defaults;
  const M d{};
  fields(defaults, d);
  for (size_t i = 0; i < a.out.size(); ++i) EXPECT_NE(a.out[i], defaults.out[i]);
}

TEST(Fields, EveryMessageFieldCrossesTheWire) {
  expect_round_trip<proto::Hello>();
  expect_round_trip<proto::Challenge>();
  expect_round_trip<proto::Auth>();
  expect_round_trip<proto::Welcome>();
  expect_round_trip<proto::SetupOk>();
  expect_round_trip<proto::Stop>();
  expect_round_trip<proto::ErrorMsg>();
}

// The user's JSON is report's own: the wire's keys for a side are the same
// names, but the documented document is written without proto.
TEST(Fields, UserJsonOfASideHasTheDocumentedKeys) {
  const auto j = report::side_json(filled<results::SideResult>());
  for (const char* key :
       {"elapsed_s", "threads", "sndbuf", "rcvbuf", "sndbuf_end", "rcvbuf_end", "send_width",
        "recv_width", "latency", "cpu", "nic", "intervals", "flows"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_TRUE(j["flows"][0].contains("tcp_info"));
  EXPECT_TRUE(j["latency"].contains("buckets"));
  EXPECT_FALSE(report::side_head_json(filled<results::SideResult>()).contains("flows"));
}

}  // namespace
}  // namespace flowperf
