// The TCP_RR flows: a client that sends requests and times each answer
// (closed loop, a first burst, or open loop on a schedule) and a server that
// answers them. The TCP_CRR and TCP_CC flows are in crr_flows.cc, the UDP
// ones in udp_rr_flows.cc.
#include "engine/rr_flows.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "engine/rr_internal.h"
#include "net/data_calls.h"

namespace flowperf::engine {

using rr::again;
using rr::drain_to_eof;
using rr::record;

bool rr::drain_to_eof(int fd, FlowCounters& c, int* err) {
  char scratch[512];
  for (;;) {
    ssize_t n = net::data::recv(fd, scratch, sizeof scratch, 0);
    if (n == 0) return true;
    if (n > 0) {
      c.bytes_recv.add(static_cast<uint64_t>(n));
      continue;
    }
    if (errno == EINTR) continue;
    if (!again(errno)) *err = errno;
    return false;
  }
}

void RequestWindow::reset(uint32_t extra) {
  window = limit = extra ? extra + 1 : 0;
  ring = window ? std::make_unique<Sent[]>(window) : nullptr;
  head = count = 0;
  started = 0;
  send_off = recv_off = 0;
}

void RequestWindow::reset_open(uint32_t most) {
  reset(0);
  limit = std::max<uint32_t>(most, 1);
  window = std::min<uint32_t>(limit, 16);
  ring = std::make_unique<Sent[]>(window);
}

bool RequestWindow::grow() noexcept {
  if (window >= limit) return false;
  const uint32_t bigger = std::min<uint32_t>(limit, window * 2);
  Sent* r = new (std::nothrow) Sent[bigger];
  if (!r) return false;  // out of memory: the requests wait as if at the cap
  for (uint32_t k = 0; k < count; ++k) r[k] = nth(k);
  ring.reset(r);
  window = bigger;
  head = 0;
  return true;
}

// ---- TCP_RR client ----

void TcpRrClientFlow::set_first_burst(uint32_t n) { burst_.reset(n); }

void TcpRrClientFlow::set_open_loop(const OpenLoopPlan& p) {
  burst_.reset_open(p.limit);
  sched_.plan(p);
}

// With a first burst the flow keeps up to n + 1 requests in flight: it
// sends while the window has room and reads responses as they come, each
// one completing the oldest request. In an open loop a request also waits
// for its time on the schedule, and its latency counts from then.
// Non-blocking only (can_block()).
Wait TcpRrClientFlow::step_burst(PhaseRef phase, Clock::time_point now) noexcept {
  const int fd = fd_.get();
  RequestWindow& w = burst_;
  const bool open = sched_.on();
  if (open && !sched_.started()) sched_.start(now);
  for (;;) {
    if (load(phase) == Phase::kAbort) return finished();
    if (state_ == State::kAwaitEof) {
      int err = 0;
      if (drain_to_eof(fd, counters, &err)) return finished();
      if (err) return fail("waiting for the server to finish", err);
      return wait_read(fd);
    }
    const bool run = load(phase) == Phase::kRun;
    if (open && !run && !unsent_counted_) {
      unsent_counted_ = true;
      count_unsent(counters, sched_, run_end());
    }
    bool may_start = run && (!quota_ || w.started < quota_);
    if (w.count == 0 && !may_start) {
      ::shutdown(fd, SHUT_WR);
      state_ = State::kAwaitEof;
      continue;
    }
    // Open loop: a request waits for its time.
    Clock::time_point t{};
    if (open && may_start && w.send_off == 0) {
      t = rr::now();
      if (sched_.due() > t) may_start = false;
    }
    if (open && may_start && w.send_off == 0 && w.full()) sched_.note_full(t);
    bool progress = false, send_blocked = false, recv_blocked = false;
    // Set when the request just sent whole is the only one out: its answer
    // cannot be there yet, so the flow waits for it rather than reading to
    // EAGAIN first (one system call a transaction, as the closed loop does).
    bool only_fresh = false;
    // 1. The request under way, or a new one while the burst has room.
    if (w.send_off > 0 || (may_start && !w.full())) {
      // A request is in the window once its first bytes are sent.
      const bool fresh = w.send_off == 0;
      const Clock::time_point at = fresh && !open ? rr::now() : t;
      ssize_t n = net::data::send(fd, buf_.get() + w.send_off, req_ - w.send_off, MSG_NOSIGNAL);
      if (n > 0) {
        if (fresh) {
          if (open) {
            const Clock::time_point due = sched_.due();
            count_send(counters, due, at, sched_.held(due));
            sched_.advance();
            w.push(at, due, 0);
          } else {
            w.push(at, at, 0);
          }
          ++w.started;
        }
        counters.bytes_sent.add(static_cast<uint64_t>(n));
        counters.send_calls.add(1);
        w.send_off += static_cast<uint32_t>(n);
        if (w.send_off == req_) {
          w.send_off = 0;
          only_fresh = w.count == 1;
        }
        progress = true;
      } else if (n < 0 && again(errno)) {
        send_blocked = true;
      } else if (n < 0 && errno == EINTR) {
        continue;
      } else {
        return fail("send failed", n < 0 ? errno : 0);
      }
    }
    // 2. A response to a request sent whole.
    if (only_fresh) {
      recv_blocked = true;
      // Go round again only to send the next request at once (a burst, or
      // a late schedule catching up); otherwise wait below.
      if (!(may_start && !w.full() && (!open || sched_.due() <= t))) progress = false;
    } else if (w.count > (w.send_off > 0 ? 1u : 0u)) {
      ssize_t n = net::data::recv(fd, in_ + w.recv_off, resp_ - w.recv_off, 0);
      if (n > 0) {
        counters.bytes_recv.add(static_cast<uint64_t>(n));
        counters.recv_calls.add(1);
        w.recv_off += static_cast<uint32_t>(n);
        if (w.recv_off == resp_) {
          w.recv_off = 0;
          record(histogram, w.oldest().from, rr::now());
          w.pop();
          ++done_;
          counters.transactions.add(1);
        }
        progress = true;
      } else if (n == 0) {
        return fail("the server closed the connection in the middle of a test", 0);
      } else if (again(errno)) {
        recv_blocked = true;
      } else if (errno == EINTR) {
        continue;
      } else {
        return fail("recv failed", errno);
      }
    }
    if (progress) continue;
    Wait wait = wait_read(fd);
    // An open loop keeps EPOLLIN whether or not an answer is due: a wait
    // for the next request's time alone would otherwise change the epoll
    // registration twice a transaction.
    wait.events = (recv_blocked || open ? 0x001u /*EPOLLIN*/ : 0u) |
                  (send_blocked ? 0x004u /*EPOLLOUT*/ : 0u);
    // The next request's time, unless it waits for room (an answer).
    if (open && run && !send_blocked && w.count < w.limit && (!quota_ || w.started < quota_))
      wait.deadline = sched_.due();
    return wait;
  }
}

// One buffer for requests and responses; with a fill the responses go past
// the request, so that every request keeps the fill's bytes.
TcpRrClientFlow::TcpRrClientFlow(net::Fd fd, uint32_t req, uint32_t resp, uint64_t quota,
                                 std::string_view fill)
    : fd_(std::move(fd)),
      buf_(std::make_unique<char[]>(fill.empty() ? std::max(req, resp) : size_t{req} + resp)),
      in_(buf_.get() + (fill.empty() ? 0 : req)),
      req_(req),
      resp_(resp),
      quota_(quota) {
  std::memset(buf_.get(), 'r', std::max(req, resp));
  fill_with(buf_.get(), req, fill);
}

Wait TcpRrClientFlow::step(PhaseRef phase, Clock::time_point now) noexcept {
  if (burst_.window) return step_burst(phase, now);
  const int fd = fd_.get();
  if (load(phase) == Phase::kAbort) return finished();
  // Blocking, whole messages: a send and a recv per transaction and little
  // else. Anything unusual (a part of a message, EINTR, the blocking
  // wake-up's EAGAIN, the end of the run phase) is left where it stands to
  // the state machine below; errors it would report are reported here.
  if (blocking_ && state_ == State::kSend && off_ == 0 && req_ > 0 && resp_ > 0) {
    if (t0_ == Clock::time_point{}) t0_ = now;
    while (load(phase) == Phase::kRun && !(quota_ && done_ >= quota_)) {
      ssize_t n = net::data::send(fd, buf_.get(), req_, MSG_NOSIGNAL);
      if (n > 0) {
        counters.bytes_sent.add(static_cast<uint64_t>(n));
        counters.send_calls.add(1);
      }
      if (n != static_cast<ssize_t>(req_)) {
        if (n > 0) off_ = static_cast<uint32_t>(n);
        if (n < 0 && !again(errno) && errno != EINTR) return fail("send failed", errno);
        break;
      }
      n = net::data::recv(fd, in_, resp_, 0);
      if (n > 0) {
        counters.bytes_recv.add(static_cast<uint64_t>(n));
        counters.recv_calls.add(1);
      }
      if (n != static_cast<ssize_t>(resp_)) {
        state_ = State::kRecv;
        if (n > 0) off_ = static_cast<uint32_t>(n);
        if (n == 0) return fail("the server closed the connection in the middle of a test", 0);
        if (n < 0 && !again(errno) && errno != EINTR) return fail("recv failed", errno);
        break;
      }
      const Clock::time_point t = rr::now();
      record(histogram, t0_, t);
      t0_ = t;
      now = t;
      ++done_;
      counters.transactions.add(1);
    }
  }
  for (;;) {
    if (load(phase) == Phase::kAbort) return finished();
    switch (state_) {
      case State::kSend: {
        if (off_ == 0) {
          if (load(phase) != Phase::kRun || (quota_ && done_ >= quota_)) {
            ::shutdown(fd, SHUT_WR);
            state_ = State::kAwaitEof;
            continue;
          }
          if (t0_ == Clock::time_point{}) t0_ = now;
        }
        ssize_t n = net::data::send(fd, buf_.get() + off_, req_ - off_, MSG_NOSIGNAL);
        if (n > 0) {
          counters.bytes_sent.add(static_cast<uint64_t>(n));
          counters.send_calls.add(1);
          off_ += static_cast<uint32_t>(n);
          if (off_ == req_) {
            off_ = 0;
            state_ = State::kRecv;
            // Non-blocking, the answer cannot be there yet: wait for it
            // rather than read to EAGAIN first.
            if (!blocking_) return wait_answer(fd);
          }
          continue;
        }
        if (n < 0 && again(errno)) return wait_write(fd);
        if (n < 0 && errno == EINTR) continue;
        return fail("send failed", n < 0 ? errno : 0);
      }
      case State::kRecv: {
        ssize_t n = net::data::recv(fd, in_ + off_, resp_ - off_, 0);
        if (n > 0) {
          counters.bytes_recv.add(static_cast<uint64_t>(n));
          counters.recv_calls.add(1);
          off_ += static_cast<uint32_t>(n);
          if (off_ == resp_) {
            // The end of one transaction is the start of the next: one clock
            // read per transaction.
            Clock::time_point t = rr::now();
            record(histogram, t0_, t);
            t0_ = t;
            now = t;
            off_ = 0;
            ++done_;
            counters.transactions.add(1);
            state_ = State::kSend;
          }
          continue;
        }
        if (n == 0) return fail("the server closed the connection in the middle of a test", 0);
        if (again(errno)) return wait_answer(fd);
        if (errno == EINTR) continue;
        return fail("recv failed", errno);
      }
      case State::kAwaitEof: {
        int err = 0;
        if (drain_to_eof(fd, counters, &err)) return finished();
        if (err) return fail("waiting for the server to finish", err);
        return wait_read(fd);
      }
    }
  }
}

// ---- TCP_RR server ----

TcpRrServerFlow::TcpRrServerFlow(net::Fd fd, uint32_t req, uint32_t resp)
    : fd_(std::move(fd)),
      buf_(std::make_unique<char[]>(std::max(req, resp))),
      req_(req),
      resp_(resp) {
  std::memset(buf_.get(), 's', std::max(req, resp));
}

Wait TcpRrServerFlow::step(PhaseRef phase, Clock::time_point) noexcept {
  const int fd = fd_.get();
  if (load(phase) == Phase::kAbort) return finished();
  // Blocking, whole messages: a recv and a send per transaction; anything
  // else (a part of a message, the client's EOF, EINTR, the blocking
  // wake-up's EAGAIN) goes on in the state machine below.
  if (blocking_ && !sending_ && off_ == 0 && req_ > 0 && resp_ > 0) {
    while (load(phase) != Phase::kAbort) {
      ssize_t n = net::data::recv(fd, buf_.get(), req_, 0);
      if (n > 0) {
        counters.bytes_recv.add(static_cast<uint64_t>(n));
        counters.recv_calls.add(1);
      }
      if (n != static_cast<ssize_t>(req_)) {
        if (n > 0) off_ = static_cast<uint32_t>(n);
        if (n < 0 && !again(errno) && errno != EINTR) return fail("recv failed", errno);
        break;  // EOF stays readable: the state machine sees it too
      }
      n = net::data::send(fd, buf_.get(), resp_, MSG_NOSIGNAL);
      if (n > 0) {
        counters.bytes_sent.add(static_cast<uint64_t>(n));
        counters.send_calls.add(1);
      }
      if (n != static_cast<ssize_t>(resp_)) {
        sending_ = true;
        if (n > 0) off_ = static_cast<uint32_t>(n);
        if (n < 0 && !again(errno) && errno != EINTR) return fail("send failed", errno);
        break;
      }
      counters.transactions.add(1);
    }
  }
  for (;;) {
    if (load(phase) == Phase::kAbort) return finished();
    if (!sending_) {
      ssize_t n = net::data::recv(fd, buf_.get() + off_, req_ - off_, 0);
      if (n > 0) {
        counters.bytes_recv.add(static_cast<uint64_t>(n));
        counters.recv_calls.add(1);
        off_ += static_cast<uint32_t>(n);
        if (off_ == req_) {
          off_ = 0;
          sending_ = true;
        }
        continue;
      }
      if (n == 0) {
        ::shutdown(fd, SHUT_WR);
        if (off_ != 0)
          return fail("the client closed the connection in the middle of a request", 0);
        return finished();
      }
      if (again(errno)) return wait_answer(fd);
      if (errno == EINTR) continue;
      return fail("recv failed", errno);
    }
    ssize_t n = net::data::send(fd, buf_.get() + off_, resp_ - off_, MSG_NOSIGNAL);
    if (n > 0) {
      counters.bytes_sent.add(static_cast<uint64_t>(n));
      counters.send_calls.add(1);
      off_ += static_cast<uint32_t>(n);
      if (off_ == resp_) {
        off_ = 0;
        sending_ = false;
        counters.transactions.add(1);
        // One request at a time, the next (or EOF) cannot come before the
        // client has read this answer: wait for it rather than read to
        // EAGAIN first. Pipelined, it may be here already, and an
        // edge-triggered wait would never see it come.
        if (!blocking_ && !pipelined) return wait_answer(fd);
      }
      continue;
    }
    if (n < 0 && again(errno)) return wait_write(fd);
    if (n < 0 && errno == EINTR) continue;
    return fail("send failed", n < 0 ? errno : 0);
  }
}
}  // namespace flowperf::engine
