#include "session/intake.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>

#include "core/error.h"
#include "net/sys.h"

namespace flowperf::session {
namespace {

// epoll tags: the wake eventfd, the listeners, then accept numbers + kFirstTag.
constexpr uint64_t kWakeTag = 0, kListenerTag = 1, kFirstTag = kListenerTag + Intake::kMaxListeners;
// Accepted in one turn at most, so pending bytes are looked at between bursts.
constexpr int kAcceptBurst = 256;

void watch(int epoll, int fd, uint32_t events, uint64_t tag) {
  epoll_event ev{};
  ev.events = events;
  ev.data.u64 = tag;
  if (::epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &ev) != 0)
    throw runtime_error("cannot watch a connection (epoll_ctl): " + net::sys::errno_text(errno));
}

}  // namespace

Intake::Intake(std::vector<int> listeners, int wake, uint32_t max_pending, double first_bytes_s,
               Farewell farewell)
    : listeners_(std::move(listeners)),
      wake_(wake),
      max_pending_(std::max<uint32_t>(max_pending, 1)),
      first_bytes_(std::chrono::duration_cast<Clock::duration>(
          std::chrono::duration<double>(first_bytes_s))),
      farewell_(std::move(farewell)) {
  epoll_.reset(::epoll_create1(EPOLL_CLOEXEC));
  if (!epoll_) throw runtime_error("cannot create an epoll set: " + net::sys::errno_text(errno));
  if (listeners_.empty() || listeners_.size() > kMaxListeners)
    throw runtime_error(
        fmt::format("a server listens on 1 to {} ports, not {}", kMaxListeners, listeners_.size()));
  for (size_t i = 0; i < listeners_.size(); ++i) {
    ::fcntl(listeners_[i], F_SETFL, ::fcntl(listeners_[i], F_GETFL) | O_NONBLOCK);
    watch(epoll_.get(), listeners_[i], EPOLLIN, kListenerTag + i);
  }
  if (wake_ >= 0) watch(epoll_.get(), wake_, EPOLLIN, kWakeTag);
}

std::vector<Intake::Arrival> Intake::wait(std::chrono::milliseconds timeout) {
  if (paused_until_ && *paused_until_ <= Clock::now()) {
    paused_until_.reset();
    arm_listeners(true);
  }
  auto until = [&](Clock::time_point t) {
    const auto due = std::chrono::ceil<std::chrono::milliseconds>(t - Clock::now());
    timeout = std::clamp(due, std::chrono::milliseconds(0), timeout);
  };
  // The oldest is due first (one timeout for all, taken in accept order).
  if (!pending_.empty()) until(pending_.begin()->second.by);
  if (paused_until_) until(*paused_until_);
  epoll_event ev[64];
  const int n = ::epoll_wait(epoll_.get(), ev, 64, static_cast<int>(timeout.count()));
  std::vector<Arrival> out;
  std::vector<int> ready;
  for (int i = 0; i < n; ++i) {
    const uint64_t tag = ev[i].data.u64;
    if (tag >= kListenerTag && tag < kFirstTag)
      ready.push_back(listeners_[tag - kListenerTag]);
    else if (tag >= kFirstTag)
      look(tag - kFirstTag, ev[i].events, out);
    // the wake eventfd: the caller looks at why; it stays readable until stop
  }
  const auto now = Clock::now();
  for (int listener : ready) accept_all(listener, now);
  expire(now);
  return out;
}

void Intake::accept_all(int listener, Clock::time_point now) {
  for (int i = 0; i < kAcceptBurst; ++i) {
    sockaddr_storage peer{};
    socklen_t len = sizeof peer;
    net::Fd fd(::accept4(listener, reinterpret_cast<sockaddr*>(&peer), &len, SOCK_CLOEXEC));
    if (!fd) {
      // None left (EAGAIN), or a client that gave up: the listener says
      // when there is more. Out of descriptors or memory: it would say so
      // at once, again and again, so it is left alone for a while.
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        if (!paused_until_) {
          ++counts_.paused;
          arm_listeners(false);
        }
        paused_until_ = now + kAcceptPause;
      }
      return;
    }
    const uint64_t number = ++accepted_;
    ++counts_.accepted;
    // Edge-triggered: each arrival of bytes (or the hang-up) is told once,
    // so a client that sends too few bytes is not looked at again and again.
    watch(epoll_.get(), fd.get(), EPOLLIN | EPOLLRDHUP | EPOLLET, number + kFirstTag);
    pending_.emplace(number, Pending{std::move(fd), now + first_bytes_, 0,
                                     ip_from_sockaddr(reinterpret_cast<sockaddr*>(&peer))});
    while (pending_.size() > max_pending_) drop(pending_.begin(), Drop::kEvicted);
  }
}

void Intake::arm_listeners(bool on) {
  for (size_t i = 0; i < listeners_.size(); ++i) {
    epoll_event ev{};
    ev.events = on ? uint32_t{EPOLLIN} : 0u;
    ev.data.u64 = kListenerTag + i;
    ::epoll_ctl(epoll_.get(), EPOLL_CTL_MOD, listeners_[i], &ev);
  }
}

void Intake::look(uint64_t number, uint32_t events, std::vector<Arrival>& out) {
  auto it = pending_.find(number);
  if (it == pending_.end()) return;  // closed earlier in this turn
  Pending& p = it->second;
  uint8_t first[kPeekBytes];
  const ssize_t n = ::recv(p.fd.get(), first, sizeof first, MSG_PEEK | MSG_DONTWAIT);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
  if (n <= 0) {  // closed with nothing said, or reset
    pending_.erase(it);
    ++counts_.hung_up;
    return;
  }
  // A half-close: the client has said all it will, so a row that needs
  // more bytes will not get them.
  const bool complete = (events & (EPOLLRDHUP | EPOLLHUP)) != 0;
  if (static_cast<size_t>(n) == p.have && !complete) return;
  p.have = static_cast<size_t>(n);
  const ProtocolRow* row = classify(std::span<const uint8_t>(first, p.have), complete);
  if (!row) {
    if (complete) drop(it, Drop::kHungUp);
    return;
  }
  ::epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, p.fd.get(), nullptr);
  out.push_back(Arrival{std::move(p.fd), row, p.by, p.peer, number});
  pending_.erase(it);
  ++counts_.claimed;
}

void Intake::expire(Clock::time_point now) {
  while (!pending_.empty() && pending_.begin()->second.by <= now)
    drop(pending_.begin(), Drop::kTimedOut);
}

void Intake::drop(std::map<uint64_t, Pending>::iterator it, Drop why) {
  const int fd = it->second.fd.get();
  uint8_t first[kPeekBytes];
  const ssize_t n = ::recv(fd, first, sizeof first, MSG_DONTWAIT);
  if (farewell_) farewell_(fd, std::span<const uint8_t>(first, n > 0 ? size_t(n) : 0), why);
  pending_.erase(it);  // closing it also takes it out of the epoll set
  switch (why) {
    case Drop::kTimedOut:
      ++counts_.timed_out;
      break;
    case Drop::kHungUp:
      ++counts_.hung_up;
      break;
    case Drop::kEvicted:
      ++counts_.evicted;
      break;
  }
}

}  // namespace flowperf::session
