// Framing of control messages on a TCP connection. Each frame is an 8-byte
// header, then a JSON body:
//
//   0      1      2          3        4 ............ 7
//   'F'    'P'    version=1  flags=0  body length (u32, big-endian)
//
// The two magic bytes let one server port tell flowperf clients from
// netperf's fixed 656-byte requests, whose first bytes are a big-endian
// request number. Bodies over the reader's limit are refused before they are read.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <string>

#include "net/channel.h"
#include "proto/messages.h"

namespace flowperf::proto {

inline constexpr uint8_t kFramingVersion = 1;
// Largest frame a server reads from a client (specs are small), and the
// largest a client reads from a server (results grow with the stream count:
// about 500 bytes a stream).
inline constexpr uint32_t kMaxClientFrame = 1u << 20;
inline constexpr uint32_t kMaxFrame = 256u << 20;
inline constexpr size_t kHeaderBytes = 8;

std::array<uint8_t, kHeaderBytes> make_header(uint32_t body_len);
// Validates a header; returns the body length or throws ProtocolError.
uint32_t parse_header(const uint8_t* header, uint32_t max_len = kMaxFrame);
// True when these first bytes start a flowperf frame.
bool looks_like_flowperf(const uint8_t* first, size_t n);

enum class ReadStatus { kOk, kClosed, kTimeout };

using Deadline = std::chrono::steady_clock::time_point;

// Sends one message; false when the peer is gone or the deadline passed.
bool send_message(net::Channel& ch, const Message& m, Deadline deadline);
// Reads one message. Throws ProtocolError on a malformed frame or body.
ReadStatus read_message(net::Channel& ch, Message* out, Deadline deadline,
                        uint32_t max_len = kMaxFrame);
// The same on a bare socket.
bool send_message(int fd, const Message& m, Deadline deadline);
ReadStatus read_message(int fd, Message* out, Deadline deadline, uint32_t max_len = kMaxFrame);

}  // namespace flowperf::proto
