#include "engine/stream_flows.h"

#include <netinet/in.h>
#include <netinet/udp.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "net/data_calls.h"

namespace flowperf::engine {
namespace {

bool again(int err) { return err == EAGAIN || err == EWOULDBLOCK; }

int64_t ns_since_epoch(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

// Filled with a pattern rather than zeros so compressing links cannot cheat.
template <typename Buffer>
Buffer fill(Buffer buf, uint32_t size) {
  for (uint32_t i = 0; i < size; ++i) buf[i] = static_cast<char>('a' + i % 26);
  return buf;
}

void put_be32(char* p, uint32_t v) {
  const uint32_t be = htonl(v);
  std::memcpy(p, &be, sizeof be);
}
uint32_t get_be32(const char* p) {
  uint32_t be;
  std::memcpy(&be, p, sizeof be);
  return ntohl(be);
}

std::unique_ptr<char[]> make_buffer(uint32_t size) {
  return fill(std::make_unique<char[]>(size), size);
}

}  // namespace

PageBuffer page_buffer(size_t size) {
  constexpr size_t kPage = 4096;
  const size_t rounded = std::max(kPage, (size + kPage - 1) / kPage * kPage);
  char* p = static_cast<char*>(std::aligned_alloc(kPage, rounded));
  if (!p) throw std::bad_alloc();
  return PageBuffer(p);
}

// ---- TCP sender ----

TcpSendFlow::TcpSendFlow(net::Fd fd, uint32_t send_size, uint64_t quota_bytes, bool from_file,
                         std::string_view fill_file_bytes)
    : fd_(std::move(fd)),
      buf_(fill(page_buffer(send_size), send_size)),
      size_(send_size),
      quota_(quota_bytes) {
  fill_with(buf_.get(), size_, fill_file_bytes);
  if (!from_file) return;
  file_ = net::Fd(::memfd_create("flowperf-sendfile", MFD_CLOEXEC));
  if (!file_) {
    file_error_ = errno;
    return;
  }
  // The file holds exactly one send of the pattern; every call sends from 0.
  for (uint32_t done = 0; done < size_;) {
    ssize_t n = ::write(file_.get(), buf_.get() + done, size_ - done);
    if (n <= 0) {
      file_error_ = n < 0 ? errno : EIO;
      return;
    }
    done += static_cast<uint32_t>(n);
  }
}

Wait TcpSendFlow::step(PhaseRef phase, Clock::time_point) noexcept {
  const int fd = fd_.get();
  if (load(phase) == Phase::kAbort) return finished();
  if (file_error_) return fail("--sendfile: making the in-memory file to send from", file_error_);
  const int file = file_.get();
  while (!shut_) {
    if (load(phase) != Phase::kRun || (quota_ && sent_ >= quota_)) {
      ::shutdown(fd, SHUT_WR);
      shut_ = true;
      break;
    }
    size_t len = quota_ ? std::min<uint64_t>(size_, quota_ - sent_) : size_;
    call_timer.start();
    ssize_t n = file >= 0 ? net::data::sendfile_from_start(fd, file, len)
                          : net::data::send(fd, buf_.get(), len, MSG_NOSIGNAL);
    if (n > 0) {
      call_timer.done(histogram);
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
    ssize_t n = net::data::recv(fd, scratch, sizeof scratch, 0);
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
    : fd_(std::move(fd)), buf_(page_buffer(recv_size)), size_(recv_size) {}

Wait TcpRecvFlow::step(PhaseRef phase, Clock::time_point) noexcept {
  const int fd = fd_.get();
  if (load(phase) == Phase::kAbort) return finished();
  for (;;) {
    if (load(phase) == Phase::kAbort) return finished();
    call_timer.start();
    ssize_t n = net::data::recv(fd, buf_.get(), size_, 0);
    if (n > 0) {
      call_timer.done(histogram);
      if (touch) touch_sink_ += touch_bytes(buf_.get(), static_cast<size_t>(n));
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

uint64_t touch_bytes(const char* p, size_t n) noexcept {
  uint64_t sum = 0;
  for (size_t i = 0; i < n; ++i) sum += static_cast<unsigned char>(p[i]);
  return sum;
}

// ---- UDP sender ----

UdpSendFlow::UdpSendFlow(net::Fd fd, uint32_t size, uint64_t quota_bytes, uint64_t rate_bps,
                         UdpBatching how, std::string_view fill_file_bytes)
    : fd_(std::move(fd)),
      buf_(make_buffer(size * std::max<uint32_t>(how.batch, 1))),
      size_(size),
      quota_(quota_bytes),
      how_(how) {
  how_.batch = std::max<uint32_t>(how_.batch, 1);
  for (uint32_t i = 0; i < how_.batch; ++i)
    fill_with(buf_.get() + size_t{i} * size_, size_, fill_file_bytes);
  if (rate_bps)
    gap_ = std::chrono::nanoseconds(static_cast<int64_t>(static_cast<double>(size) * 8.0 * 1e9 /
                                                         static_cast<double>(rate_bps)));
  if (how_.batch > 1 && !how_.gso) {
    msgs_ = std::make_unique<mmsghdr[]>(how_.batch);
    iovs_ = std::make_unique<iovec[]>(how_.batch);
    for (uint32_t i = 0; i < how_.batch; ++i) {
      iovs_[i] = {buf_.get() + size_t{i} * size_, size_};
      msgs_[i].msg_hdr.msg_iov = &iovs_[i];
      msgs_[i].msg_hdr.msg_iovlen = 1;
    }
  }
}

void UdpSendFlow::stamp(char* d, uint64_t seq, Clock::time_point now) const noexcept {
  if (header == UdpHeader::kNone) return;
  if (header == UdpHeader::kFlowperf) {
    const int64_t t = ns_since_epoch(now);
    if (size_ >= kUdpSeqBytes) std::memcpy(d, &seq, sizeof seq);
    if (size_ >= kUdpHeaderBytes) std::memcpy(d + kUdpSeqBytes, &t, sizeof t);
    return;
  }
  // iperf3: steady_clock is CLOCK_MONOTONIC, as iperf3's own stamps are.
  const int64_t us = ns_since_epoch(now) / 1000;
  const uint64_t n = seq + 1;  // iperf3 counts from 1
  if (header == UdpHeader::kIperf3Wide) {
    if (size_ < 16) return;
    put_be32(d + 8, static_cast<uint32_t>(n >> 32));
    put_be32(d + 12, static_cast<uint32_t>(n));
  } else {
    if (size_ < 12) return;
    put_be32(d + 8, static_cast<uint32_t>(n));
  }
  put_be32(d, static_cast<uint32_t>(us / 1'000'000));
  put_be32(d + 4, static_cast<uint32_t>(us % 1'000'000));
}

ssize_t UdpSendFlow::send_batch(uint32_t n) noexcept {
  const int fd = fd_.get();
  if (how_.gso && n > 1) {
    // One buffer of n datagrams; the kernel cuts it into size_-byte segments.
    iovec iov{buf_.get(), size_t{n} * size_};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(uint16_t))] = {};
    msghdr m{};
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    m.msg_control = control;
    m.msg_controllen = sizeof control;
    cmsghdr* c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_UDP;
    c->cmsg_type = UDP_SEGMENT;
    c->cmsg_len = CMSG_LEN(sizeof(uint16_t));
    const uint16_t seg = static_cast<uint16_t>(size_);
    std::memcpy(CMSG_DATA(c), &seg, sizeof seg);
    ssize_t r = net::data::sendmsg(fd, &m, 0);
    return r < 0 ? -1 : static_cast<ssize_t>(n);  // all or nothing
  }
  if (n > 1) return net::data::sendmmsg(fd, msgs_.get(), n, 0);
  ssize_t r = net::data::send(fd, buf_.get(), size_, 0);
  return r < 0 ? -1 : 1;
}

Wait UdpSendFlow::step(PhaseRef phase, Clock::time_point now) noexcept {
  const int fd = fd_.get();
  const bool paced = gap_.count() > 0;
  if (paced && next_due_ == Clock::time_point{}) next_due_ = now;
  for (;;) {
    if (load(phase) == Phase::kAbort) return finished();
    if (load(phase) != Phase::kRun || (quota_ && sent_bytes_ >= quota_)) return finished();
    uint32_t n = how_.batch;
    if (quota_)
      n = static_cast<uint32_t>(std::min<uint64_t>(n, (quota_ - sent_bytes_ + size_ - 1) / size_));
    now = Clock::now();
    if (paced) {
      if (due_left_ == 0) {
        if (now < next_due_) {
          Wait w;
          w.deadline = next_due_;
          return w;
        }
        // A batch is a ceiling, not a burst: only the datagrams already due
        // go, or a whole burst when one is asked for.
        const uint64_t due = 1 + static_cast<uint64_t>((now - next_due_) / gap_);
        due_left_ = std::max<uint64_t>(due, burst);
      }
      n = static_cast<uint32_t>(std::min<uint64_t>(n, due_left_));
    }
    // Every datagram carries its own sequence number; the datagrams of one
    // call share the time the call was made.
    for (uint32_t i = 0; i < n; ++i) stamp(buf_.get() + size_t{i} * size_, seq_ + i, now);
    call_timer.start();
    ssize_t k = send_batch(n);
    if (k > 0) {
      call_timer.done(histogram);
      const uint64_t sent = static_cast<uint64_t>(k);
      seq_ += sent;
      sent_bytes_ += sent * size_;
      counters.bytes_sent.add(sent * size_);
      counters.datagrams_sent.add(sent);
      counters.send_calls.add(1);
      if (paced) {
        next_due_ += gap_ * static_cast<int64_t>(sent);
        due_left_ -= std::min<uint64_t>(due_left_, sent);
      }
      continue;
    }
    int err = errno;
    if (again(err)) return wait_write(fd);
    if (err == EINTR) continue;
    if (err == ENOBUFS || err == ECONNREFUSED) {
      // The datagram was not sent (no buffer, or the peer's port was closed
      // a moment ago): count it and go on, as a sender on a real link would.
      counters.send_errors.add(1);
      if (paced) {
        next_due_ += gap_;
        if (due_left_) --due_left_;
      }
      continue;
    }
    if (err == EMSGSIZE) return fail("send failed: message too long", 0);
    if (how_.gso && (err == EINVAL || err == EIO))
      return fail(
          "UDP GSO send failed (the route's MTU or the interface may not allow it; "
          "run without --gso)",
          err);
    return fail("send failed", err);
  }
}

// ---- UDP receiver ----

namespace {
// Per receive slot: room for a timestamp and a GRO segment size.
constexpr size_t kControlBytes = CMSG_SPACE(sizeof(timespec)) + CMSG_SPACE(sizeof(int));
}  // namespace

UdpRecvFlow::UdpRecvFlow(net::Fd fd, uint32_t recv_size, UdpBatching how)
    : fd_(std::move(fd)), size_(recv_size), how_(how) {
  how_.batch = std::max<uint32_t>(how_.batch, 1);
  // Not zeroed: untouched pages of the slots cost no memory.
  buf_ = std::make_unique_for_overwrite<char[]>(size_t{how_.batch} * size_);
  if (how_.batch > 1 || how_.gro) {
    int one = 1;
    if (how_.gro) ::setsockopt(fd_.get(), SOL_UDP, UDP_GRO, &one, sizeof one);
    const bool stamps = ::setsockopt(fd_.get(), SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one) == 0;
    msgs_ = std::make_unique<mmsghdr[]>(how_.batch);
    iovs_ = std::make_unique<iovec[]>(how_.batch);
    control_ = std::make_unique<char[]>(how_.batch * kControlBytes);
    for (uint32_t i = 0; i < how_.batch; ++i) {
      iovs_[i] = {buf_.get() + size_t{i} * size_, size_};
      msgs_[i].msg_hdr.msg_iov = &iovs_[i];
      msgs_[i].msg_hdr.msg_iovlen = 1;
      if (stamps || how_.gro) {
        msgs_[i].msg_hdr.msg_control = control_.get() + i * kControlBytes;
        msgs_[i].msg_hdr.msg_controllen = kControlBytes;
      }
    }
  }
}

void UdpRecvFlow::on_datagram(const char* p, size_t len, int64_t arrival_ns) noexcept {
  uint64_t seq;
  int64_t sent = 0;
  if (header == UdpHeader::kNone) return;
  if (header == UdpHeader::kFlowperf) {
    if (len < kUdpSeqBytes) return;
    std::memcpy(&seq, p, sizeof seq);
    if (len >= kUdpHeaderBytes) std::memcpy(&sent, p + kUdpSeqBytes, sizeof sent);
  } else {
    const bool wide = header == UdpHeader::kIperf3Wide;
    if (len < (wide ? 16u : 12u)) return;
    const uint64_t n =
        wide ? (uint64_t{get_be32(p + 8)} << 32) | get_be32(p + 12) : get_be32(p + 8);
    if (n == 0) return;  // not a data datagram (iperf3 numbers from 1)
    seq = n - 1;
    sent = (int64_t{get_be32(p)} * 1'000'000 + get_be32(p + 4)) * 1000;
    if (sent == 0) sent = 1;  // 0 means "no time" to the tracker
  }
  uint64_t ooo = tracker_.out_of_order(), dup = tracker_.duplicates();
  tracker_.on_datagram(seq, sent, sent ? arrival_ns : 0);
  if (tracker_.out_of_order() != ooo) counters.out_of_order.add(1);
  if (tracker_.duplicates() != dup) counters.duplicates.add(1);
  counters.seq_expected.set(tracker_.highest() + 1);
  counters.jitter_ns.set(static_cast<uint64_t>(tracker_.jitter_ns()));
}

int UdpRecvFlow::receive_once() noexcept {
  const int fd = fd_.get();
  // Blocking, wait for the first datagram but not for a whole batch; once
  // draining, never wait (the worker times the quiet period).
  const int flags = drain_.active() ? MSG_DONTWAIT : 0;
  if (!msgs_) {
    ssize_t n = net::data::recv(fd, buf_.get(), size_, flags);
    if (n < 0) return -1;
    if (n == 0 && end_on_empty) return -2;
    const Clock::time_point t = Clock::now();
    drain_.arrived(t);
    if (touch) touch_sink_ += touch_bytes(buf_.get(), static_cast<size_t>(n));
    counters.bytes_recv.add(static_cast<uint64_t>(n));
    counters.datagrams_recv.add(1);
    counters.recv_calls.add(1);
    on_datagram(buf_.get(), static_cast<size_t>(n), ns_since_epoch(t));
    return 1;
  }
  for (uint32_t i = 0; i < how_.batch; ++i)
    if (msgs_[i].msg_hdr.msg_control) msgs_[i].msg_hdr.msg_controllen = kControlBytes;
  int k = net::data::recvmmsg(fd, msgs_.get(), how_.batch, flags | MSG_WAITFORONE, nullptr);
  if (k < 0) return -1;
  drain_.arrived(Clock::now());
  counters.recv_calls.add(1);
  uint64_t bytes = 0, datagrams = 0;
  for (int i = 0; i < k; ++i) {
    msghdr& h = msgs_[i].msg_hdr;
    const size_t len = msgs_[i].msg_len;
    const char* p = static_cast<const char*>(h.msg_iov->iov_base);
    if (len == 0 && end_on_empty) {
      counters.bytes_recv.add(bytes);
      counters.datagrams_recv.add(datagrams);
      return -2;
    }
    // Kernel arrival time when stamped; otherwise (no timestamp) jitter
    // skips the datagram rather than mix clocks.
    int64_t arrival = 0;
    size_t segment = len;  // GRO: the size of each coalesced datagram
    for (cmsghdr* c = CMSG_FIRSTHDR(&h); c; c = CMSG_NXTHDR(&h, c)) {
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
        timespec ts;
        std::memcpy(&ts, CMSG_DATA(c), sizeof ts);
        arrival = int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
      } else if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_GRO) {
        int g;
        std::memcpy(&g, CMSG_DATA(c), sizeof g);
        if (g > 0) segment = static_cast<size_t>(g);
      }
    }
    bytes += len;
    if (len == 0 || segment == 0) {
      ++datagrams;
      continue;
    }
    for (size_t off = 0; off < len; off += segment) {
      on_datagram(p + off, std::min(segment, len - off), arrival);
      ++datagrams;
    }
  }
  counters.bytes_recv.add(bytes);
  counters.datagrams_recv.add(datagrams);
  return k;
}

Wait UdpRecvFlow::step(PhaseRef phase, Clock::time_point now) noexcept {
  const int fd = fd_.get();
  if (load(phase) == Phase::kAbort) return finished();
  drain_.update(phase, now);
  for (;;) {
    if (load(phase) == Phase::kAbort) return finished();
    int r = receive_once();
    if (r == -2) return finished();
    if (r > 0) continue;
    int err = errno;
    if (err == EINTR) {  // woken: a phase change is why, as a rule
      drain_.update(phase, Clock::now());
      continue;
    }
    if (!again(err) && err != ECONNREFUSED) return fail("recv failed", err);
    break;
  }
  // Draining: each datagram counted once against what the sender sent.
  if (drain_.active())
    return drain_.next(fd, counters.datagrams_recv.get() - counters.duplicates.get());
  return wait_read(fd);
}

}  // namespace flowperf::engine
