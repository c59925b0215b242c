// The server's port dispatch: first bytes to protocol.
#include "session/dispatch.h"

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <string>

#include "proto/framing.h"

namespace flowperf::session {
namespace {

std::string row_for(std::span<const uint8_t> first) {
  const ProtocolRow* r = classify(first);
  return r ? r->name : "(needs more)";
}

TEST(Dispatch, FlowperfFramesGoToFlowperf) {
  auto h = proto::make_header(10);
  EXPECT_EQ(row_for(std::span<const uint8_t>(h.data(), h.size())), "flowperf");
  EXPECT_EQ(row_for(std::span<const uint8_t>(h.data(), 2)), "flowperf");
}

TEST(Dispatch, OneByteIsNotEnoughToTell) {
  const uint8_t f[] = {'F'};
  EXPECT_EQ(row_for(f), "(needs more)");
}

TEST(Dispatch, AClientThatSentAllItWillIsNotWaitedFor) {
  // One byte and a half-close: no second byte will come, so the row that
  // needs it does not claim the connection and the last row takes it.
  const uint8_t f[] = {'F'};
  const ProtocolRow* r = classify(f, /*complete=*/true);
  ASSERT_NE(r, nullptr);
  EXPECT_STREQ(r->name, "netperf");
}

TEST(Dispatch, NetperfRequestsAndAnythingElseGoToNetperf) {
  // netperf's first word is a big-endian request number (DO_OMNI is 97).
  const uint8_t omni[] = {0, 0, 0, 97, 0, 0, 0, 0};
  EXPECT_EQ(row_for(omni), "netperf");
  const uint8_t garbage[] = {'G', 'E', 'T', ' '};
  EXPECT_EQ(row_for(garbage), "netperf");
}

TEST(Dispatch, QperfRequestsGoToQperfNotNetperf) {
  // The first bytes of qperf 0.4.11's tcp_bw request (qperf-wire.md Vector A).
  const uint8_t req[] = {0x00, 0x00, 0x04, 0x00, 0x0b, 0x00, 0x08, 0x00, 0x01, 0x00};
  EXPECT_EQ(row_for(req), "qperf");
  // Fewer than six bytes could still be netperf's: wait for more.
  EXPECT_EQ(row_for(std::span<const uint8_t>(req, 4)), "(needs more)");
  EXPECT_STREQ(classify(std::span<const uint8_t>(req, 4), /*complete=*/true)->name, "netperf");
  // Another qperf version goes to qperf too (its session says "upgrade qperf").
  const uint8_t newer[] = {0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0x08, 0x00};
  EXPECT_EQ(row_for(newer), "qperf");
  // netperf's TCP_CC request (300 = 00 00 01 2c) stays netperf's.
  const uint8_t cc[] = {0, 0, 1, 0x2c, 0, 0, 0, 0};
  EXPECT_EQ(row_for(cc), "netperf");
}

TEST(Dispatch, Iperf3CookiesGoToIperf3) {
  // The cookie recorded from iperf3 3.12: 36 characters of a-z2-7 and a NUL.
  const std::string cookie = std::string("c6dsghisr72yylwer37bmhltsz4oogsx5uwa") + '\0';
  const auto* b = reinterpret_cast<const uint8_t*>(cookie.data());
  EXPECT_EQ(row_for({b, cookie.size()}), "iperf3");
  // Part of one: wait for the rest, unless the client has said all it will.
  EXPECT_EQ(row_for({b, 20}), "(needs more)");
  EXPECT_STREQ(classify({b, 20}, /*complete=*/true)->name, "netperf");
  // 37 bytes of the alphabet without the NUL are not a cookie.
  std::string no_nul = cookie;
  no_nul.back() = 'a';
  EXPECT_EQ(row_for({reinterpret_cast<const uint8_t*>(no_nul.data()), no_nul.size()}), "netperf");
}

TEST(Dispatch, TheLastRowTakesAnything) {
  ASSERT_FALSE(protocol_table().empty());
  EXPECT_EQ(protocol_table().back().classify, nullptr);
  for (size_t i = 0; i + 1 < protocol_table().size(); ++i)
    EXPECT_NE(protocol_table()[i].classify, nullptr) << protocol_table()[i].name;
}

}  // namespace
}  // namespace flowperf::session
