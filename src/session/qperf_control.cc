#include "session/qperf_control.h"

#include <fmt/format.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/times.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/host_info.h"
#include "core/version.h"
#include "net/sys.h"
#include "report/qperf_report.h"

namespace flowperf::session::qperf {
namespace {

int ms_until(Clock::time_point deadline) {
  const auto left = deadline - Clock::now();
  if (left <= Clock::duration::zero()) return 0;
  return static_cast<int>(
      std::min<int64_t>(std::chrono::ceil<std::chrono::milliseconds>(left).count(), 1000));
}

// The peer's error text: the '?' is taken out of band, in-band bytes before
// the urgent mark belong to the conversation and are dropped, the rest up
// to EOF (or 3 s) is the text.
std::string take_error_text(int fd) {
  char mark = 0;
  net::sys::retry_eintr([&] { return ::recv(fd, &mark, 1, MSG_OOB | MSG_DONTWAIT); });
  std::string text;
  const auto deadline = Clock::now() + std::chrono::seconds(3);
  bool at_mark = false;
  char buf[256];
  while (Clock::now() < deadline && text.size() < 4 * qw::kMaxErrorText) {
    if (!at_mark) {
      int atmark = 0;
      if (::ioctl(fd, SIOCATMARK, &atmark) == 0 && atmark) at_mark = true;
    }
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, ms_until(deadline)) <= 0) break;
    const ssize_t n = net::sys::retry_eintr(
        [&] { return ::recv(fd, buf, at_mark ? sizeof buf : 1, MSG_DONTWAIT); });
    if (n <= 0) {
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) continue;
      break;
    }
    if (at_mark) text.append(buf, static_cast<size_t>(n));
  }
  return qw::error_text_for_wire(text);
}

}  // namespace

bool error_pending(int fd) {
  pollfd p{fd, POLLPRI, 0};
  return ::poll(&p, 1, 0) > 0 && (p.revents & POLLPRI);
}

void read_message(int fd, void* buf, size_t n, Clock::time_point deadline, const char* what) {
  auto* out = static_cast<char*>(buf);
  size_t have = 0;
  while (have < n) {
    pollfd p{fd, POLLIN | POLLPRI, 0};
    const int ms = ms_until(deadline);
    const int r = ::poll(&p, 1, ms);
    if (r < 0 && errno != EINTR)
      throw ControlFailure(fmt::format("failed to receive {}: {}", what, std::strerror(errno)));
    if (p.revents & POLLPRI) throw PeerError(take_error_text(fd));
    if (r <= 0) {
      if (ms == 0) throw ControlFailure(fmt::format("failed to receive {}: timed out", what));
      continue;
    }
    const ssize_t got =
        net::sys::retry_eintr([&] { return ::recv(fd, out + have, n - have, MSG_DONTWAIT); });
    if (got > 0) {
      have += static_cast<size_t>(got);
      continue;
    }
    if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) continue;
    if (error_pending(fd)) throw PeerError(take_error_text(fd));
    if (got == 0)
      throw ControlFailure(fmt::format("failed to receive {}: server not responding", what));
    throw ControlFailure(fmt::format("failed to receive {}: {}", what, std::strerror(errno)));
  }
}

void write_message(int fd, const void* buf, size_t n, Clock::time_point deadline,
                   const char* what) {
  switch (net::sys::write_all(fd, buf, n, deadline)) {
    case net::sys::IoStatus::kOk:
      return;
    case net::sys::IoStatus::kTimeout:
      throw ControlFailure(fmt::format("failed to send {}: timed out", what));
    case net::sys::IoStatus::kClosed:
      throw ControlFailure(fmt::format("failed to send {}: connection closed", what));
    case net::sys::IoStatus::kError:
      throw ControlFailure(fmt::format("failed to send {}: {}", what, std::strerror(errno)));
  }
}

void synchronize(int fd, std::string_view sync, Clock::time_point deadline) {
  const std::string what(sync);
  write_message(fd, sync.data(), sync.size(), deadline, what.c_str());
  std::string got(sync.size(), '\0');
  read_message(fd, got.data(), got.size(), deadline, what.c_str());
  if (got != sync)
    throw ControlFailure(fmt::format("synchronize {} failure: data does not match", what));
}

void send_error(int fd, std::string_view text, Clock::duration drain) {
  const std::string t = qw::error_text_for_wire(text);
  // '?' and the text back to back: a client that takes its signal first
  // still finds the text (qperf-wire.md §4).
  // Corked, they leave in one segment: qperf's client reads the text as
  // soon as its SIGURG handler runs, and text still on its way then is
  // lost (it prints a bare "server: ").
  const char mark = qw::kErrorMark;
  int on = 1, off = 0;
  ::setsockopt(fd, IPPROTO_TCP, TCP_CORK, &on, sizeof on);
  net::sys::retry_eintr([&] { return ::send(fd, &mark, 1, MSG_OOB | MSG_NOSIGNAL); });
  (void)net::sys::write_all(fd, t.data(), t.size(), Clock::now() + std::chrono::seconds(1));
  ::setsockopt(fd, IPPROTO_TCP, TCP_CORK, &off, sizeof off);
  ::shutdown(fd, SHUT_WR);
  const auto deadline = Clock::now() + drain;
  char buf[512];
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, ms_until(deadline)) <= 0) return;
    const ssize_t n =
        net::sys::retry_eintr([&] { return ::recv(fd, buf, sizeof buf, MSG_DONTWAIT); });
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) return;
    if (n < 0) {
      // Only urgent data is waiting: take it out of the way.
      char c;
      if (::recv(fd, &c, 1, MSG_OOB | MSG_DONTWAIT) <= 0) return;
    }
  }
}

bool is_socket_test(uint16_t index) {
  return index >= static_cast<uint16_t>(qw::Index::kTcpBw) &&
         index <= static_cast<uint16_t>(qw::Index::kUdpLat);
}

bool is_udp(qw::Index index) { return index == qw::Index::kUdpBw || index == qw::Index::kUdpLat; }

uint32_t default_msg_size(qw::Index index) {
  switch (index) {
    case qw::Index::kTcpBw:
      return 65536;
    case qw::Index::kUdpBw:
      return 32768;
    default:
      return 1;
  }
}

spec::TestSpec spec_for(qw::Index index, uint32_t msg_size, double time_s, uint32_t sock_buf) {
  spec::TestSpec s;
  switch (index) {
    case qw::Index::kTcpBw:
      s.test = spec::TestKind::kTcpStream;
      break;
    case qw::Index::kTcpLat:
      s.test = spec::TestKind::kTcpRr;
      break;
    case qw::Index::kUdpBw:
      s.test = spec::TestKind::kUdpStream;
      break;
    default:
      s.test = spec::TestKind::kUdpRr;
      break;
  }
  if (index == qw::Index::kTcpBw || index == qw::Index::kUdpBw)
    s.send_size = s.recv_size = msg_size;  // qperf reads whole messages
  else
    s.request_size = s.response_size = msg_size;
  s.duration_s = time_s;
  s.local_sndbuf = s.local_rcvbuf = sock_buf;
  s.remote_sndbuf = s.remote_rcvbuf = sock_buf;
  return s;
}

std::array<uint64_t, 9> time_array() {
  std::array<uint64_t, 9> a{};
  tms t;
  a[0] = static_cast<uint64_t>(::times(&t));
  const measure::CpuTicks c = measure::take_cpu_snapshot().all;
  const uint64_t v[] = {c.user, c.nice, c.system, c.idle, c.iowait, c.irq, c.softirq, c.steal};
  for (size_t i = 0; i < 8; ++i) a[i + 1] = v[i];
  return a;
}

measure::CpuUsage cpu_from_arrays(const std::array<uint64_t, 9>& s,
                                  const std::array<uint64_t, 9>& e, uint32_t cpus, uint32_t ticks) {
  auto snap = [](const std::array<uint64_t, 9>& a) {
    measure::CpuSnapshot x;
    x.all = {a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8]};
    return x;
  };
  const double secs = ticks && e[0] > s[0] ? static_cast<double>(e[0] - s[0]) / ticks : 0;
  measure::CpuUsage u = measure::cpu_between(snap(s), snap(e), secs);
  u.num_cpus = cpus;
  return u;
}

void fill_counts(qw::Stat& stat, qw::Index index, uint32_t msg_size, const results::FlowResult& t) {
  stat.s.bytes = t.bytes_sent;
  stat.r.bytes = t.bytes_recv;
  stat.s.errs = t.send_errors;
  switch (index) {
    case qw::Index::kTcpBw:
      stat.r.msgs = msg_size ? t.bytes_recv / msg_size : 0;
      stat.s.msgs = msg_size ? t.bytes_sent / msg_size : 0;
      break;
    case qw::Index::kUdpBw:
      stat.r.msgs = t.datagrams_recv;
      stat.s.msgs = t.datagrams_sent;
      break;
    default:
      // Request/response: one message each way per transaction.
      stat.r.msgs = stat.s.msgs = t.transactions;
      stat.r.bytes = stat.s.bytes = t.transactions * msg_size;
      break;
  }
}

qw::Conf local_conf() {
  const core::HostInfo h = core::local_host_info();
  // The version qperf's protocol speaks first (qperf's clients show it as is).
  return {h.hostname, report::qperf_cpu_text(h.cores, h.cpu_model, h.cpu_mhz), h.os,
          std::string("0.4.11 (flowperf ") + kVersion + ")"};
}

}  // namespace flowperf::session::qperf
