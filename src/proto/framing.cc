#include "proto/framing.h"

#include <algorithm>
#include <string>

#include "net/sys.h"

namespace flowperf::proto {

std::array<uint8_t, kHeaderBytes> make_header(uint32_t len) {
  return {'F',
          'P',
          kFramingVersion,
          0,
          static_cast<uint8_t>(len >> 24),
          static_cast<uint8_t>(len >> 16),
          static_cast<uint8_t>(len >> 8),
          static_cast<uint8_t>(len)};
}

bool looks_like_flowperf(const uint8_t* first, size_t n) {
  return n >= 2 && first[0] == 'F' && first[1] == 'P';
}

uint32_t parse_header(const uint8_t* h, uint32_t max_len) {
  if (!looks_like_flowperf(h, kHeaderBytes))
    throw ProtocolError("not a flowperf control connection (bad magic bytes)");
  if (h[2] != kFramingVersion)
    throw ProtocolError("unsupported framing version " + std::to_string(h[2]) +
                        " (this flowperf speaks " + std::to_string(kFramingVersion) + ")");
  uint32_t len = (uint32_t{h[4]} << 24) | (uint32_t{h[5]} << 16) | (uint32_t{h[6]} << 8) | h[7];
  if (len == 0) throw ProtocolError("empty control message");
  if (len > max_len)
    throw ProtocolError("control message of " + std::to_string(len) + " bytes is over the " +
                        std::to_string(max_len) + "-byte limit");
  return len;
}

bool send_message(int fd, const Message& m, Deadline deadline) {
  net::PlainChannel ch(fd);
  return send_message(ch, m, deadline);
}

ReadStatus read_message(int fd, Message* out, Deadline deadline, uint32_t max_len) {
  net::PlainChannel ch(fd);
  return read_message(ch, out, deadline, max_len);
}

bool send_message(net::Channel& ch, const Message& m, Deadline deadline) {
  // The body is written after room for the header, which is filled in once its length is known:
  // a results body may be many MB, and is not copied.
  std::string frame(kHeaderBytes, '\0');
  encode_into(frame, m);
  auto header = make_header(static_cast<uint32_t>(frame.size() - kHeaderBytes));
  std::copy(header.begin(), header.end(), frame.begin());
  return ch.write_all(frame.data(), frame.size(), deadline) == net::sys::IoStatus::kOk;
}

ReadStatus read_message(net::Channel& ch, Message* out, Deadline deadline, uint32_t max_len) {
  uint8_t header[kHeaderBytes];
  size_t got = 0;
  auto st = ch.read_exact(header, sizeof header, deadline, &got);
  if (st == net::sys::IoStatus::kTimeout) return ReadStatus::kTimeout;
  if (st != net::sys::IoStatus::kOk) {
    if (got != 0 && st == net::sys::IoStatus::kClosed)
      throw ProtocolError("control connection closed in the middle of a message header");
    return ReadStatus::kClosed;
  }
  uint32_t len = parse_header(header, max_len);
  std::string body(len, '\0');
  st = ch.read_exact(body.data(), len, deadline);
  if (st == net::sys::IoStatus::kTimeout) return ReadStatus::kTimeout;
  if (st != net::sys::IoStatus::kOk)
    throw ProtocolError("control connection closed in the middle of a message");
  *out = decode(body);
  return ReadStatus::kOk;
}

}  // namespace flowperf::proto
