// Unit tests for the speed-for-realism modes of a TestSpec: --batch and
// --gso (UDP_STREAM) and --busy-poll (RR tests). Each is off unless asked
// for, validate() says where it applies, and it travels in the spec JSON so
// the server runs the same mode and the --json document names it. Also the
// descriptor count a test needs on one end.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "spec/spec_json.h"
#include "spec/test_spec.h"

namespace flowperf::spec {
namespace {

using nlohmann::json;

TestSpec SpecFor(TestKind kind) {
  TestSpec s;
  s.test = kind;
  return s;
}

std::string OnlyProblem(const TestSpec& spec) {
  auto problems = validate(spec);
  EXPECT_EQ(problems.size(), 1u);
  return problems.empty() ? std::string() : problems.front();
}

bool Mentions(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

TEST(SpecModes, OffByDefault) {
  TestSpec s;
  EXPECT_EQ(s.batch, 1u);
  EXPECT_FALSE(s.gso);
  EXPECT_FALSE(s.gro);
  EXPECT_FALSE(s.busy_poll);
  json j = to_json(s);
  EXPECT_EQ(j.at("batch"), 1);
  EXPECT_EQ(j.at("gso"), false);
  EXPECT_EQ(j.at("gro"), false);
  EXPECT_EQ(j.at("busy_poll"), false);
}

TEST(SpecModes, RoundTripThroughJson) {
  TestSpec s = SpecFor(TestKind::kUdpStream);
  s.send_size = 64;
  s.batch = 48;
  s.gso = true;
  s.gro = true;
  TestSpec back = spec_from_json(json::parse(to_json(s).dump()));
  EXPECT_EQ(back.batch, 48u);
  EXPECT_TRUE(back.gso);
  EXPECT_TRUE(back.gro);
  EXPECT_FALSE(back.busy_poll);

  TestSpec r = SpecFor(TestKind::kTcpRr);
  r.busy_poll = true;
  EXPECT_TRUE(spec_from_json(json::parse(to_json(r).dump())).busy_poll);
}

TEST(SpecModes, AbsentFromJsonMeansOff) {
  // A spec from a client that predates the modes runs without them.
  TestSpec s = spec_from_json(json{{"test", "UDP_STREAM"}});
  EXPECT_EQ(s.batch, 1u);
  EXPECT_FALSE(s.gso);
  EXPECT_FALSE(s.gro);
  EXPECT_FALSE(s.busy_poll);
}

TEST(SpecModes, WrongTypesAreRejected) {
  for (const char* key : {"batch", "gso", "gro", "busy_poll"}) {
    json j = to_json(SpecFor(TestKind::kUdpStream));
    j[key] = "yes";
    EXPECT_THROW(spec_from_json(j), std::invalid_argument) << key;
  }
}

TEST(SpecModes, BatchAppliesToUdpStreamOnly) {
  TestSpec s = SpecFor(TestKind::kUdpStream);
  s.batch = kMaxBatch;
  EXPECT_TRUE(validate(s).empty());
  for (TestKind k : {TestKind::kTcpStream, TestKind::kTcpMaerts, TestKind::kTcpRr,
                     TestKind::kTcpCrr, TestKind::kUdpRr}) {
    TestSpec t = SpecFor(k);
    t.batch = 1;
    EXPECT_TRUE(validate(t).empty()) << info(k).name;
    t.batch = 8;
    std::string p = OnlyProblem(t);
    EXPECT_TRUE(Mentions(p, "--batch 8")) << p;
    EXPECT_TRUE(Mentions(p, "UDP_STREAM only")) << p;
    EXPECT_TRUE(Mentions(p, info(k).name)) << p;
  }
}

TEST(SpecModes, BatchRange) {
  TestSpec s = SpecFor(TestKind::kUdpStream);
  for (uint32_t bad : {0u, kMaxBatch + 1, 100000u}) {
    s.batch = bad;
    std::string p = OnlyProblem(s);
    EXPECT_TRUE(Mentions(p, "--batch " + std::to_string(bad))) << p;
    EXPECT_TRUE(Mentions(p, "from 1 to " + std::to_string(kMaxBatch))) << p;
  }
}

TEST(SpecModes, GsoAndGroApplyToUdpStreamOnly) {
  TestSpec t = SpecFor(TestKind::kUdpRr);
  t.gso = true;
  std::string p = OnlyProblem(t);
  EXPECT_TRUE(Mentions(p, "--gso")) << p;
  EXPECT_TRUE(Mentions(p, "UDP_RR")) << p;
  t.gso = false;
  t.gro = true;
  p = OnlyProblem(t);
  EXPECT_TRUE(Mentions(p, "--gro")) << p;
  EXPECT_TRUE(Mentions(p, "UDP_RR")) << p;
  TestSpec u = SpecFor(TestKind::kUdpStream);
  u.gro = true;  // without --gso: what a NIC's GRO would coalesce
  EXPECT_TRUE(validate(u).empty());
}

TEST(SpecModes, GsoBatchMustFitOneBuffer) {
  TestSpec s = SpecFor(TestKind::kUdpStream);
  s.gso = true;
  s.send_size = 64;
  EXPECT_EQ(max_gso_batch(s), kMaxGsoSegments);  // the segment limit binds
  s.batch = kMaxGsoSegments;
  EXPECT_TRUE(validate(s).empty());
  s.send_size = 8000;
  EXPECT_EQ(max_gso_batch(s), 65507u / 8000);  // the payload limit binds
  s.batch = 9;
  std::string p = OnlyProblem(s);
  EXPECT_TRUE(Mentions(p, "--gso --batch 9")) << p;
  EXPECT_TRUE(Mentions(p, "at most 8 datagrams of 8000 bytes")) << p;
  EXPECT_TRUE(Mentions(p, "--batch 8 or less")) << p;
  s.ip_family = IpFamily::kV6;
  s.send_size = 65527;
  s.batch = 1;
  EXPECT_EQ(max_gso_batch(s), 1u);
  EXPECT_TRUE(validate(s).empty());
}

TEST(SpecModes, BusyPollAppliesToRrTests) {
  for (TestKind k : {TestKind::kTcpRr, TestKind::kTcpCrr, TestKind::kUdpRr}) {
    TestSpec s = SpecFor(k);
    s.busy_poll = true;
    EXPECT_TRUE(validate(s).empty()) << info(k).name;
  }
  for (TestKind k : {TestKind::kTcpStream, TestKind::kTcpMaerts, TestKind::kUdpStream}) {
    TestSpec s = SpecFor(k);
    s.busy_poll = true;
    std::string p = OnlyProblem(s);
    EXPECT_TRUE(Mentions(p, "--busy-poll")) << p;
    EXPECT_TRUE(Mentions(p, info(k).name)) << p;
  }
}

TEST(SpecModes, SendfileAppliesToTcpStreamAndMaerts) {
  TestSpec off;
  EXPECT_FALSE(off.sendfile);
  EXPECT_EQ(to_json(off).at("sendfile"), false);
  EXPECT_FALSE(spec_from_json(json{{"test", "TCP_STREAM"}}).sendfile);
  for (TestKind k : {TestKind::kTcpStream, TestKind::kTcpMaerts}) {
    TestSpec s = SpecFor(k);
    s.sendfile = true;
    EXPECT_TRUE(validate(s).empty()) << info(k).name;
    EXPECT_TRUE(spec_from_json(json::parse(to_json(s).dump())).sendfile) << info(k).name;
  }
  for (TestKind k : {TestKind::kUdpStream, TestKind::kTcpRr, TestKind::kTcpCrr, TestKind::kUdpRr,
                     TestKind::kTcpCc}) {
    TestSpec s = SpecFor(k);
    s.sendfile = true;
    std::string p = OnlyProblem(s);
    EXPECT_TRUE(Mentions(p, "--sendfile")) << p;
    EXPECT_TRUE(Mentions(p, info(k).name)) << p;
  }
  json j = to_json(SpecFor(TestKind::kTcpStream));
  j["sendfile"] = "yes";
  EXPECT_THROW(spec_from_json(j), std::invalid_argument);
}

TEST(SpecModes, DescriptorsGrowWithStreamsAndThreads) {
  TestSpec s = SpecFor(TestKind::kTcpRr);
  s.streams = 10000;
  const uint64_t two = data_descriptors(s, 2);
  EXPECT_GE(two, 10000u);
  EXPECT_LT(two, 10100u);
  EXPECT_GT(data_descriptors(s, 64), two);
  s.streams = 20000;
  EXPECT_EQ(data_descriptors(s, 2), two + 10000);
}

}  // namespace
}  // namespace flowperf::spec
