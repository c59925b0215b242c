// Framing of control messages on a TCP connection. Each frame is an 8-byte
// header, then a JSON body:
//
//   0      1      2          3        4 ............ 7
//   'F'    'P'    version=1  flags    body length (u32, big-endian)
//
// The two magic bytes let one server port tell flowperf clients from
// netperf's fixed 656-byte requests, whose first bytes are a big-endian
// request number. Bodies over the reader's limit are refused before they are read.
//
// Sealed frames (flags bit 0; protocol 3, after a handshake with keys):
// the body is followed by a 32-byte tag, counted in the length, the
// HMAC-SHA256 under the direction's frame key of the frame's number (8
// bytes, big-endian, counted from 0 in each direction after the welcome),
// its header and its body. A frame rewritten, replayed, reordered or
// dropped on the way fails the check of the frame that reads it (a dropped
// one: of the next), and ends the test (docs/security.md).
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "net/channel.h"
#include "proto/messages.h"

namespace flowperf::proto {

inline constexpr uint8_t kFramingVersion = 1;
// Largest frames, by who reads and when. Nothing is read before its
// sender has had to prove more than it may say in a few hundred bytes:
//   kMaxHandshakeFrame  hello, challenge, auth, welcome, an error: before
//                       either end has proven anything (a hello is ~150 B)
//   kMaxSetupFrame      a client's setup (a TestSpec: a few kB)
//   kMaxClientFrame     anything later from a client (a stop lists each
//                       flow's count: ~10 B a flow, up to 100,000 flows)
//   kMaxFrame           a server's results, to a client that got a welcome
//                       (about 500 bytes a stream)
inline constexpr uint32_t kMaxHandshakeFrame = 16u << 10;
inline constexpr uint32_t kMaxSetupFrame = 64u << 10;
inline constexpr uint32_t kMaxClientFrame = 1u << 20;
inline constexpr uint32_t kMaxFrame = 256u << 20;
inline constexpr size_t kHeaderBytes = 8;
inline constexpr uint8_t kFlagSealed = 0x01;
inline constexpr size_t kTagBytes = 32;

// A sealed frame that fails its check.
class FrameCheckError : public ProtocolError {
 public:
  using ProtocolError::ProtocolError;
};

// One direction's seal: its key and the number of the next frame.
class FrameSeal {
 public:
  explicit FrameSeal(std::vector<uint8_t> key) : key_(std::move(key)) {}
  // The tag of the next frame (its header and body); counts the frame.
  std::array<uint8_t, kTagBytes> next(const uint8_t* header, const char* body, size_t len);

 private:
  std::vector<uint8_t> key_;
  uint64_t number_ = 0;
};

std::array<uint8_t, kHeaderBytes> make_header(uint32_t body_len, uint8_t flags = 0);
// Validates a header; returns the body length or throws ProtocolError.
uint32_t parse_header(const uint8_t* header, uint32_t max_len = kMaxFrame);
// True when these first bytes start a flowperf frame.
bool looks_like_flowperf(const uint8_t* first, size_t n);

enum class ReadStatus { kOk, kClosed, kTimeout };

using Deadline = std::chrono::steady_clock::time_point;

// Sends one message, sealed with `seal` when given; false when the peer is
// gone or the deadline passed.
bool send_message(net::Channel& ch, const Message& m, Deadline deadline, FrameSeal* seal = nullptr);
// Reads one message (of at most max_len bytes of body); with `check`, a
// sealed one, checked. Throws ProtocolError on a malformed frame or body,
// FrameCheckError when a frame that must be sealed is not, or fails its
// check.
ReadStatus read_message(net::Channel& ch, Message* out, Deadline deadline,
                        uint32_t max_len = kMaxFrame, FrameSeal* check = nullptr);
// The same on a bare socket.
bool send_message(int fd, const Message& m, Deadline deadline);
ReadStatus read_message(int fd, Message* out, Deadline deadline, uint32_t max_len = kMaxFrame);

}  // namespace flowperf::proto
