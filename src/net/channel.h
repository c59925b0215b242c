// A control connection's byte stream, as the control protocols read and
// write it: the socket itself, or TLS over it (net/tls.h). Whole buffers,
// each call bounded by a deadline, as net/sys.h does for a bare socket.
#pragma once

#include <cstddef>
#include <string>

#include "net/sys.h"

namespace flowperf::net {

class Channel {
 public:
  using Clock = sys::Clock;
  virtual ~Channel() = default;
  // The socket under the stream (for addresses, and for watching its hang-up).
  virtual int fd() const = 0;
  virtual sys::IoStatus write_all(const void* buf, size_t len, Clock::time_point deadline) = 0;
  // kClosed when the peer closed first; *got: how much was read before.
  virtual sys::IoStatus read_exact(void* buf, size_t len, Clock::time_point deadline,
                                   size_t* got = nullptr) = 0;
  // Bytes can be read now (bytes already decrypted count), or the deadline passed (false).
  virtual bool wait_readable(Clock::time_point deadline) = 0;
  // Why the last call that returned kError failed, when the channel knows
  // more than errno ("" otherwise).
  virtual std::string failure() const { return {}; }
  // Whether that failure was a record that failed its integrity check (a
  // TLS record rewritten on the way, or the peer's alert saying so).
  virtual bool failed_integrity() const { return false; }
};

// The socket itself.
class PlainChannel final : public Channel {
 public:
  explicit PlainChannel(int fd) : fd_(fd) {}
  int fd() const override { return fd_; }
  sys::IoStatus write_all(const void* buf, size_t len, Clock::time_point deadline) override {
    return sys::write_all(fd_, buf, len, deadline);
  }
  sys::IoStatus read_exact(void* buf, size_t len, Clock::time_point deadline,
                           size_t* got = nullptr) override {
    return sys::read_exact(fd_, buf, len, deadline, got);
  }
  bool wait_readable(Clock::time_point deadline) override {
    return sys::wait_readable(fd_, deadline);
  }

 private:
  int fd_;
};

}  // namespace flowperf::net
