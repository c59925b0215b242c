#include "engine/stream_flows.h"

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace flowperf::engine {
namespace {

bool again(int err) { return err == EAGAIN || err == EWOULDBLOCK; }

int64_t ns_since_epoch(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

std::unique_ptr<char[]> make_buffer(uint32_t size) {
  // Filled with a pattern rather than zeros so compressing links cannot cheat.
  auto buf = std::make_unique<char[]>(size);
  for (uint32_t i = 0; i < size; ++i) buf[i] = static_cast<char>('a' + i % 26);
  return buf;
}

}  // namespace

// ---- TCP sender ----

TcpSendFlow::TcpSendFlow(net::Fd fd, uint32_t send_size, uint64_t quota_bytes)
    : fd_(std::move(fd)), buf_(make_buffer(send_size)), size_(send_size), quota_(quota_bytes) {}

Wait TcpSendFlow::step(PhaseRef phase, Clock::time_point) noexcept {
  const int fd = fd_.get();
  if (load(phase) == Phase::kAbort) return finished();
  while (!shut_) {
    if (load(phase) != Phase::kRun || (quota_ && sent_ >= quota_)) {
      ::shutdown(fd, SHUT_WR);
      shut_ = true;
      break;
    }
    size_t len = quota_ ? std::min<uint64_t>(size_, quota_ - sent_) : size_;
    ssize_t n = ::send(fd, buf_.get(), len, MSG_NOSIGNAL);
    if (n > 0) {
      sent_ += static_cast<uint64_t>(n);
      counters.bytes_sent.add(static_cast<uint64_t>(n));
      counters.send_calls.add(1);
      continue;
    }
    if (n < 0 && again(errno)) return wait_write(fd);
    if (n < 0 && errno == EINTR) continue;
    return fail("send failed", n < 0 ? errno : 0);
  }
  // Wait for the receiver's EOF: everything sent has then been read.
  char scratch[512];
  for (;;) {
    if (load(phase) == Phase::kAbort) return finished();
    ssize_t n = ::recv(fd, scratch, sizeof scratch, 0);
    if (n == 0) return finished();
    if (n > 0) {
      counters.bytes_recv.add(static_cast<uint64_t>(n));
      continue;
    }
    if (again(errno)) return wait_read(fd);
    if (errno == EINTR) continue;
    return fail("waiting for the receiver to finish", errno);
  }
}

// ---- TCP receiver ----

TcpRecvFlow::TcpRecvFlow(net::Fd fd, uint32_t recv_size)
    : fd_(std::move(fd)), buf_(std::make_unique<char[]>(recv_size)), size_(recv_size) {}

Wait TcpRecvFlow::step(PhaseRef phase, Clock::time_point) noexcept {
  const int fd = fd_.get();
  if (load(phase) == Phase::kAbort) return finished();
  for (;;) {
    if (load(phase) == Phase::kAbort) return finished();
    ssize_t n = ::recv(fd, buf_.get(), size_, 0);
    if (n > 0) {
      counters.bytes_recv.add(static_cast<uint64_t>(n));
      counters.recv_calls.add(1);
      continue;
    }
    if (n == 0) {
      ::shutdown(fd, SHUT_WR);  // our EOF tells the sender all was read
      return finished();
    }
    if (again(errno)) {
      if (load(phase) == Phase::kAbort) return finished();
      return wait_read(fd);
    }
    if (errno == EINTR) continue;
    return fail("recv failed", errno);
  }
}

// ---- UDP sender ----

UdpSendFlow::UdpSendFlow(net::Fd fd, uint32_t size, uint64_t quota_bytes, uint64_t rate_bps)
    : fd_(std::move(fd)), buf_(make_buffer(size)), size_(size), quota_(quota_bytes) {
  if (rate_bps)
    gap_ = std::chrono::nanoseconds(static_cast<int64_t>(static_cast<double>(size) * 8.0 * 1e9 /
                                                         static_cast<double>(rate_bps)));
}

Wait UdpSendFlow::step(PhaseRef phase, Clock::time_point now) noexcept {
  const int fd = fd_.get();
  const bool paced = gap_.count() > 0;
  if (paced && next_due_ == Clock::time_point{}) next_due_ = now;
  for (;;) {
    if (load(phase) == Phase::kAbort) return finished();
    if (load(phase) != Phase::kRun || (quota_ && sent_bytes_ >= quota_)) return finished();
    if (paced) {
      now = Clock::now();
      if (now < next_due_) {
        Wait w;
        w.deadline = next_due_;
        return w;
      }
    }
    if (size_ >= kUdpSeqBytes) std::memcpy(buf_.get(), &seq_, sizeof seq_);
    if (size_ >= kUdpHeaderBytes) {
      int64_t t = ns_since_epoch(paced ? now : Clock::now());
      std::memcpy(buf_.get() + kUdpSeqBytes, &t, sizeof t);
    }
    ssize_t n = ::send(fd, buf_.get(), size_, 0);
    if (n >= 0) {
      ++seq_;
      sent_bytes_ += static_cast<uint64_t>(n);
      counters.bytes_sent.add(static_cast<uint64_t>(n));
      counters.datagrams_sent.add(1);
      counters.send_calls.add(1);
      if (paced) next_due_ += gap_;
      continue;
    }
    int err = errno;
    if (again(err)) return wait_write(fd);
    if (err == EINTR) continue;
    if (err == ENOBUFS || err == ECONNREFUSED) {
      // The datagram was not sent (no buffer, or the peer's port was closed
      // a moment ago): count it and go on, as a sender on a real link would.
      counters.send_errors.add(1);
      if (paced) next_due_ += gap_;
      continue;
    }
    if (err == EMSGSIZE) return fail("send failed: message too long", 0);
    return fail("send failed", err);
  }
}

// ---- UDP receiver ----

UdpRecvFlow::UdpRecvFlow(net::Fd fd, uint32_t recv_size)
    : fd_(std::move(fd)), buf_(std::make_unique<char[]>(recv_size)), size_(recv_size) {}

Wait UdpRecvFlow::step(PhaseRef phase, Clock::time_point now) noexcept {
  const int fd = fd_.get();
  if (load(phase) == Phase::kAbort) return finished();
  if (load(phase) == Phase::kDrain && !draining_) {
    draining_ = true;
    drain_start_ = now;
    if (last_rx_ < now) last_rx_ = now;
  }
  for (;;) {
    if (load(phase) == Phase::kAbort) return finished();
    ssize_t n = ::recv(fd, buf_.get(), size_, 0);
    if (n == 0 && end_on_empty) return finished();
    if (n >= 0) {
      Clock::time_point t = Clock::now();
      last_rx_ = t;
      counters.bytes_recv.add(static_cast<uint64_t>(n));
      counters.datagrams_recv.add(1);
      counters.recv_calls.add(1);
      if (static_cast<uint32_t>(n) >= kUdpSeqBytes) {
        uint64_t seq;
        std::memcpy(&seq, buf_.get(), sizeof seq);
        int64_t sent = 0;
        if (static_cast<uint32_t>(n) >= kUdpHeaderBytes)
          std::memcpy(&sent, buf_.get() + kUdpSeqBytes, sizeof sent);
        uint64_t ooo = tracker_.out_of_order(), dup = tracker_.duplicates();
        tracker_.on_datagram(seq, sent, sent ? ns_since_epoch(t) : 0);
        if (tracker_.out_of_order() != ooo) counters.out_of_order.add(1);
        if (tracker_.duplicates() != dup) counters.duplicates.add(1);
        counters.seq_expected.set(tracker_.highest() + 1);
        counters.jitter_ns.set(static_cast<uint64_t>(tracker_.jitter_ns()));
      }
      continue;
    }
    int err = errno;
    if (err == EINTR) continue;
    if (!again(err) && err != ECONNREFUSED) return fail("recv failed", err);
    break;
  }
  if (draining_) {
    now = Clock::now();
    if (now - last_rx_ >= kQuiet || now - drain_start_ >= kMaxDrain) return finished();
    Wait w = wait_read(fd);
    w.deadline = std::min(last_rx_ + kQuiet, drain_start_ + kMaxDrain);
    return w;
  }
  return wait_read(fd);
}

}  // namespace flowperf::engine
