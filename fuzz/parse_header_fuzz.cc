// libFuzzer target: the control-connection framing. proto::parse_header on
// the first 8 bytes (with a reader limit taken from the input), then the
// whole input as a byte stream read by proto::read_message from a socket
// pair, as a server reads a client. parse_header must return a length
// within its limits or throw ProtocolError; read_message must return or
// throw ProtocolError.
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "proto/framing.h"

namespace proto = flowperf::proto;

namespace {

void check_header(const uint8_t* data, size_t size) {
  if (size < proto::kHeaderBytes) return;
  // A limit from the bytes after the header, so small limits get tried too.
  uint32_t max_len = proto::kMaxFrame;
  if (size >= proto::kHeaderBytes + 4) std::memcpy(&max_len, data + proto::kHeaderBytes, 4);
  uint32_t len = 0;
  try {
    len = proto::parse_header(data, max_len);
  } catch (const proto::ProtocolError&) {
    return;
  }
  if (len == 0 || len > max_len || !proto::looks_like_flowperf(data, size) ||
      data[2] != proto::kFramingVersion) {
    std::fprintf(stderr, "parse_header accepted a bad header (length %u, limit %u)\n", len,
                 max_len);
    std::abort();
  }
  auto again = proto::make_header(len);
  if (proto::parse_header(again.data(), max_len) != len) std::abort();
}

void read_stream(const uint8_t* data, size_t size) {
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) return;
  int buf = 1 << 20;
  ::setsockopt(fds[0], SOL_SOCKET, SO_SNDBUF, &buf, sizeof buf);
  ::setsockopt(fds[1], SOL_SOCKET, SO_RCVBUF, &buf, sizeof buf);
  size_t off = 0;
  while (off < size) {
    ssize_t n = ::send(fds[0], data + off, size - off, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n <= 0) break;  // larger than the socket buffers: the rest is dropped
    off += static_cast<size_t>(n);
  }
  ::shutdown(fds[0], SHUT_WR);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  try {
    for (int i = 0; i < 64; ++i) {
      proto::Message m;
      auto st = proto::read_message(fds[1], &m, deadline, proto::kMaxClientFrame);
      if (st != proto::ReadStatus::kOk) break;
    }
  } catch (const proto::ProtocolError&) {
  }
  ::close(fds[0]);
  ::close(fds[1]);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)proto::looks_like_flowperf(data, size);
  check_header(data, size);
  read_stream(data, size);
  return 0;
}
