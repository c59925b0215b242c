// The server's port dispatch: first bytes to protocol.
#include "session/dispatch.h"

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "proto/framing.h"

namespace flowperf::session {
namespace {

std::string row_for(std::span<const uint8_t> first) {
  const ProtocolRow* r = classify(first);
  return r ? r->name : "(needs more)";
}

TEST(Dispatch, FlowperfFramesGoToFlowperfOnceWhole) {
  std::vector<uint8_t> frame(proto::kHeaderBytes + 10, '{');
  auto h = proto::make_header(10);
  std::copy(h.begin(), h.end(), frame.begin());
  EXPECT_EQ(row_for(frame), "flowperf");
  // Part of the frame: wait for the rest (a client stopped inside its first
  // frame holds no session thread).
  EXPECT_EQ(row_for(std::span<const uint8_t>(frame.data(), frame.size() - 1)), "(needs more)");
  EXPECT_EQ(row_for(std::span<const uint8_t>(frame.data(), 2)), "(needs more)");
  // A frame longer than the server looks at is claimed from its header (the
  // session refuses an oversized one at once).
  auto big = proto::make_header(proto::kMaxClientFrame + 1);
  EXPECT_EQ(row_for(big), "flowperf");
  // Not F P: not flowperf's.
  const uint8_t other[] = {'F', 'Q', 1, 0, 0, 0, 0, 0};
  EXPECT_EQ(row_for(other), "(needs more)");
}

TEST(Dispatch, TlsClientHellosGoToFlowperfOverTls) {
  // A TLS record header: handshake (22), TLS 1.x (03 01), 300 bytes of it.
  std::vector<uint8_t> hello = {0x16, 0x03, 0x01, 0x01, 0x2c};
  hello.resize(5 + 300, 0x01);
  EXPECT_EQ(row_for(hello), "flowperf over TLS");
  EXPECT_EQ(row_for(std::span<const uint8_t>(hello.data(), 100)), "(needs more)");
  // A record longer than is looked at is claimed from what is.
  std::vector<uint8_t> big = {0x16, 0x03, 0x03, 0x40, 0x00};
  big.resize(kPeekBytes, 0);
  EXPECT_EQ(row_for(big), "flowperf over TLS");
}

TEST(Dispatch, OneByteIsNotEnoughToTell) {
  const uint8_t f[] = {'F'};
  EXPECT_EQ(row_for(f), "(needs more)");
}

TEST(Dispatch, AClientThatSentAllItWillIsNotWaitedFor) {
  // One byte and a half-close: no second byte will come, and no row takes
  // one byte: the connection is closed.
  const uint8_t f[] = {'F'};
  EXPECT_EQ(classify(f, /*complete=*/true), nullptr);
}

TEST(Dispatch, WholeNetperfRequestsAndAnythingElseOfTheirSizeGoToNetperf) {
  // netperf's first word is a big-endian request number (DO_OMNI is 97);
  // every netperf message is 656 bytes.
  std::vector<uint8_t> omni(656, 0);
  omni[3] = 97;
  EXPECT_EQ(row_for(omni), "netperf");
  EXPECT_EQ(row_for(std::span<const uint8_t>(omni.data(), 655)), "(needs more)");
  std::vector<uint8_t> garbage(656, 'G');
  EXPECT_EQ(row_for(garbage), "netperf");
  EXPECT_EQ(row_for(std::span<const uint8_t>(garbage.data(), 4)), "(needs more)");
  EXPECT_EQ(classify(std::span<const uint8_t>(garbage.data(), 4), /*complete=*/true), nullptr);
}

TEST(Dispatch, QperfRequestsGoToQperfNotNetperf) {
  // The first bytes of qperf 0.4.11's tcp_bw request (qperf-wire.md Vector A),
  // then the rest of its 200 bytes.
  std::vector<uint8_t> req = {0x00, 0x00, 0x04, 0x00, 0x0b, 0x00, 0x08, 0x00, 0x01, 0x00};
  req.resize(200, 0);
  EXPECT_EQ(row_for(req), "qperf");
  // Part of the request: wait for the rest.
  EXPECT_EQ(row_for(std::span<const uint8_t>(req.data(), 199)), "(needs more)");
  // Fewer than six bytes could still be netperf's: wait for more.
  EXPECT_EQ(row_for(std::span<const uint8_t>(req.data(), 4)), "(needs more)");
  EXPECT_EQ(classify(std::span<const uint8_t>(req.data(), 4), /*complete=*/true), nullptr);
  // Another qperf version goes to qperf at once (its session says "upgrade qperf").
  const uint8_t newer[] = {0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0x08, 0x00};
  EXPECT_EQ(row_for(newer), "qperf");
  // netperf's TCP_CC request (300 = 00 00 01 2c) stays netperf's.
  std::vector<uint8_t> cc(656, 0);
  cc[2] = 1;
  cc[3] = 0x2c;
  EXPECT_EQ(row_for(cc), "netperf");
}

TEST(Dispatch, Iperf3CookiesGoToIperf3) {
  // The cookie recorded from iperf3 3.12: 36 characters of a-z2-7 and a NUL.
  const std::string cookie = std::string("c6dsghisr72yylwer37bmhltsz4oogsx5uwa") + '\0';
  const auto* b = reinterpret_cast<const uint8_t*>(cookie.data());
  EXPECT_EQ(row_for({b, cookie.size()}), "iperf3");
  // Part of one: wait for the rest, unless the client has said all it will.
  EXPECT_EQ(row_for({b, 20}), "(needs more)");
  EXPECT_EQ(classify({b, 20}, /*complete=*/true), nullptr);
  // 37 bytes of the alphabet without the NUL are not a cookie (and too few
  // for netperf's request).
  std::string no_nul = cookie;
  no_nul.back() = 'a';
  EXPECT_EQ(row_for({reinterpret_cast<const uint8_t*>(no_nul.data()), no_nul.size()}),
            "(needs more)");
}

TEST(Dispatch, EveryRowHasATestAndNoneNeedsMoreThanIsLookedAt) {
  // Any kPeekBytes bytes are claimed by some row: the server never waits
  // for bytes it would not look at.
  for (const auto& row : protocol_table()) EXPECT_NE(row.classify, nullptr) << row.name;
  std::vector<uint8_t> any(kPeekBytes, 0xa5);
  EXPECT_NE(classify(any), nullptr);
  std::fill(any.begin(), any.end(), 0);
  EXPECT_NE(classify(any), nullptr);
}

}  // namespace
}  // namespace flowperf::session
