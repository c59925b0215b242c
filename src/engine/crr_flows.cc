// The TCP_CRR and TCP_CC flows: a connection per transaction (or, for
// TCP_CC, a connection and nothing on it), closed loop or open loop on the
// client, and the server that accepts and answers them. Declared in
// rr_flows.h with the TCP_RR flows.
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "engine/rr_flows.h"
#include "engine/rr_internal.h"
#include "net/data_calls.h"

namespace flowperf::engine {
namespace {

using rr::again;
using rr::drain_to_eof;
using rr::record;

// The first connection's TCP_MAXSEG, read once per flow (netperf's
// TRANSPORT_MSS for TCP_CRR).
[[gnu::always_inline]] inline void note_mss(int fd, uint32_t& mss) noexcept {
  if (mss != 0) [[likely]]
    return;
  int v = 0;
  socklen_t len = sizeof v;
  if (::getsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &v, &len) == 0 && v > 0)
    mss = static_cast<uint32_t>(v);
}

// A TCP_CRR (or TCP_CC) client's socket for its next connection: its
// options, bound to the source address when there is one, SO_LINGER 0 for
// --rst-close. -1 on failure, with `what` saying which step and errno set.
int crr_socket(const net::Address& server, const CrrOptions& o, bool any_options, bool blocking,
               const char*& what) noexcept {
  const int fd = net::data::socket(server.family(),
                                   SOCK_STREAM | SOCK_CLOEXEC | (blocking ? 0 : SOCK_NONBLOCK), 0);
  if (fd < 0) {
    what = errno == EMFILE || errno == ENFILE
               ? "socket() failed (out of file descriptors: lower --max-outstanding, or raise "
                 "ulimit -n)"
               : "socket() failed";
    return -1;
  }
  if (any_options) net::apply_socket_options(fd, o.socket);
  if (o.source.len > 0) {
    // The port comes with connect(), so binding the address does not tie
    // up a port per connection (netperf test -L).
    int one = 1;
    ::setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);
    if (::bind(fd, o.source.sa(), o.source.len) < 0) {
      const int err = errno;
      ::close(fd);
      errno = err;
      what = "cannot bind the data socket to its source address";
      return -1;
    }
  }
  if (o.rst_close) {
    static constexpr linger kRst{1, 0};
    net::data::setsockopt(fd, SOL_SOCKET, SO_LINGER, &kRst, sizeof kRst);
  }
  return fd;
}

}  // namespace

// ---- TCP_CRR client ----

CrrClientFlow::CrrClientFlow(net::Address server, CrrOptions opts, uint32_t req, uint32_t resp,
                             uint64_t quota, std::string_view fill)
    : server_(server),
      opts_(opts),
      buf_(std::make_unique<char[]>(fill.empty() ? std::max(req, resp) : size_t{req} + resp)),
      in_(buf_.get() + (fill.empty() ? 0 : req)),
      req_(req),
      resp_(resp),
      quota_(quota) {
  std::memset(buf_.get(), 'c', std::max(req, resp));
  fill_with(buf_.get(), req, fill);
  any_options_ = opts_.socket.any();
}

CrrClientFlow::~CrrClientFlow() {
  if (fd_ >= 0) ::close(fd_);
}

// Inline: once per transaction.
[[gnu::always_inline]] inline void CrrClientFlow::complete(Clock::time_point& now) noexcept {
  note_mss(fd_, mss_);
  close_fd(fd_);
  const Clock::time_point t = rr::now();
  record(histogram, t0_, t);
  now = t;
  t0_ = t;
  chained_ = true;
  ++done_;
  counters.transactions.add(1);
  state_ = State::kIdle;
}

Wait CrrClientFlow::step(PhaseRef phase, Clock::time_point now) noexcept {
  if (load(phase) == Phase::kAbort) {
    close_fd(fd_);
    return finished();
  }
  for (;;) {
    if (load(phase) == Phase::kAbort) {
      close_fd(fd_);
      return finished();
    }
    switch (state_) {
      case State::kIdle: {
        if (load(phase) != Phase::kRun || (quota_ && done_ >= quota_)) return finished();
        // Straight after a transaction, its end is this one's start (one
        // clock read per transaction).
        t0_ = chained_ ? t0_ : rr::now();
        chained_ = false;
        const char* what = nullptr;
        fd_ = crr_socket(server_, opts_, any_options_, blocking_, what);
        if (fd_ < 0) return fail(what, errno);
        if (blocking_) set_wake_timeouts(fd_);  // created blocking: only the timeouts
        counters.connects.add(1);
        if (net::data::connect(fd_, server_.sa(), server_.len) == 0) {
          state_ = after_connect();
          continue;
        }
        if (errno == EINPROGRESS || (blocking_ && again(errno))) {
          state_ = State::kConnecting;
          return wait_write(fd_);
        }
        int err = errno;
        close_fd(fd_);
        if (err == EADDRNOTAVAIL)
          return fail("connect failed (out of local ports: raise net.ipv4.ip_local_port_range)",
                      err);
        return fail("connect failed", err);
      }
      case State::kConnecting: {
        int soerr = 0;
        socklen_t l = sizeof soerr;
        ::getsockopt(fd_, SOL_SOCKET, SO_ERROR, &soerr, &l);
        if (soerr) {
          close_fd(fd_);
          return fail("connect failed", soerr);
        }
        state_ = after_connect();
        continue;
      }
      case State::kSend: {
        ssize_t n = net::data::send(fd_, buf_.get() + off_, req_ - off_, MSG_NOSIGNAL);
        if (n > 0) {
          counters.bytes_sent.add(static_cast<uint64_t>(n));
          counters.send_calls.add(1);
          off_ += static_cast<uint32_t>(n);
          if (off_ == req_) {
            off_ = 0;
            state_ = resp_ ? State::kRecv : State::kAwaitEof;
          }
          continue;
        }
        if (n < 0 && again(errno)) return wait_write(fd_);
        if (n < 0 && errno == EINTR) continue;
        int err = n < 0 ? errno : 0;
        close_fd(fd_);
        return fail("send failed", err);
      }
      case State::kRecv: {
        ssize_t n = net::data::recv(fd_, in_ + off_, resp_ - off_, 0);
        if (n > 0) {
          counters.bytes_recv.add(static_cast<uint64_t>(n));
          counters.recv_calls.add(1);
          off_ += static_cast<uint32_t>(n);
          if (off_ == resp_) {
            off_ = 0;
            if (opts_.rst_close) {
              complete(now);  // SO_LINGER 0: this close sends the RST
              continue;
            }
            state_ = State::kAwaitEof;
          }
          continue;
        }
        if (n < 0 && again(errno)) return wait_read(fd_);
        if (n < 0 && errno == EINTR) continue;
        int err = n < 0 ? errno : 0;
        close_fd(fd_);
        return fail(err ? "recv failed" : "the server closed the connection before responding",
                    err);
      }
      case State::kAwaitEof: {
        int err = 0;
        if (drain_to_eof(fd_, counters, &err)) {
          complete(now);
          continue;
        }
        if (err) {
          close_fd(fd_);
          return fail("waiting for the server to close", err);
        }
        return wait_read(fd_);
      }
    }
  }
}

// ---- TCP_CRR client, open loop ----

OpenCrrClientFlow::OpenCrrClientFlow(net::Address server, CrrOptions opts, uint32_t req,
                                     uint32_t resp, uint64_t quota, const OpenLoopPlan& plan,
                                     std::string_view fill)
    : server_(server),
      opts_(opts),
      any_options_(opts.socket.any()),
      buf_(std::make_unique<char[]>(fill.empty() ? std::max({req, resp, 1u}) : size_t{req} + resp)),
      in_(buf_.get() + (fill.empty() ? 0 : req)),
      req_(req),
      resp_(resp),
      quota_(quota),
      ep_(::epoll_create1(EPOLL_CLOEXEC)),
      limit_(std::max(plan.limit, 1u)) {
  std::memset(buf_.get(), 'c', std::max(req, resp));
  fill_with(buf_.get(), req, fill);
  sched_.plan(plan);
}

OpenCrrClientFlow::~OpenCrrClientFlow() { close_all(); }

void OpenCrrClientFlow::close_all() noexcept {
  for (Conn& c : conns_)
    if (c.fd >= 0) {
      ::close(c.fd);
      c.fd = -1;
    }
  in_flight_ = 0;
}

// The connection's end, or its failure: the slot goes back to the free list.
void OpenCrrClientFlow::release(Conn& c) noexcept {
  ::close(c.fd);  // leaves ep_ with it
  c.fd = -1;
  c.next_free = free_;
  free_ = &c;
  --in_flight_;
}

bool OpenCrrClientFlow::want(Conn& c, uint32_t events) noexcept {
  if (c.events == events) return true;
  epoll_event ev{};
  ev.events = events;
  ev.data.ptr = &c;
  if (::epoll_ctl(ep_.get(), c.events ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, c.fd, &ev) < 0) {
    fail("epoll_ctl failed on a connection", errno);
    return false;
  }
  c.events = events;
  return true;
}

bool OpenCrrClientFlow::start(Clock::time_point now) noexcept {
  Conn* c = free_;
  if (c) {
    free_ = c->next_free;
  } else {
    conns_.emplace_back();
    c = &conns_.back();
  }
  *c = Conn{};
  c->due = sched_.due();
  count_send(counters, c->due, now, sched_.held(c->due));
  sched_.advance();
  ++started_;
  ++in_flight_;
  const char* what = nullptr;
  c->fd = crr_socket(server_, opts_, any_options_, false, what);
  if (c->fd < 0) {
    const int err = errno;
    c->next_free = free_;
    free_ = c;
    --in_flight_;
    fail(what, err);
    return false;
  }
  counters.connects.add(1);
  if (net::data::connect(c->fd, server_.sa(), server_.len) == 0) {
    c->state = after_connect();
    return drive(*c);
  }
  if (errno == EINPROGRESS) return want(*c, EPOLLOUT);
  const int err = errno;
  release(*c);
  fail(err == EADDRNOTAVAIL
           ? "connect failed (out of local ports: raise net.ipv4.ip_local_port_range)"
           : "connect failed",
       err);
  return false;
}

bool OpenCrrClientFlow::drive(Conn& c) noexcept {
  for (;;) {
    switch (c.state) {
      case State::kConnecting: {
        int soerr = 0;
        socklen_t l = sizeof soerr;
        ::getsockopt(c.fd, SOL_SOCKET, SO_ERROR, &soerr, &l);
        if (soerr) {
          release(c);
          fail("connect failed", soerr);
          return false;
        }
        c.state = after_connect();
        continue;
      }
      case State::kSend: {
        const ssize_t n = net::data::send(c.fd, buf_.get() + c.off, req_ - c.off, MSG_NOSIGNAL);
        if (n > 0) {
          counters.bytes_sent.add(static_cast<uint64_t>(n));
          counters.send_calls.add(1);
          c.off += static_cast<uint32_t>(n);
          if (c.off == req_) {
            c.off = 0;
            c.state = resp_ ? State::kRecv : State::kAwaitEof;
          }
          continue;
        }
        if (n < 0 && again(errno)) return want(c, EPOLLOUT);
        if (n < 0 && errno == EINTR) continue;
        const int err = n < 0 ? errno : 0;
        release(c);
        fail("send failed", err);
        return false;
      }
      case State::kRecv: {
        const ssize_t n = net::data::recv(c.fd, in_ + c.off, resp_ - c.off, 0);
        if (n > 0) {
          counters.bytes_recv.add(static_cast<uint64_t>(n));
          counters.recv_calls.add(1);
          c.off += static_cast<uint32_t>(n);
          if (c.off == resp_) {
            c.off = 0;
            c.state = State::kAwaitEof;
            // --rst-close: the answer is the end; this close sends the RST.
            if (opts_.rst_close) break;
          }
          continue;
        }
        if (n < 0 && again(errno)) return want(c, EPOLLIN);
        if (n < 0 && errno == EINTR) continue;
        const int err = n < 0 ? errno : 0;
        release(c);
        fail(err ? "recv failed" : "the server closed the connection before responding", err);
        return false;
      }
      case State::kAwaitEof: {
        int err = 0;
        if (drain_to_eof(c.fd, counters, &err)) break;
        if (err) {
          release(c);
          fail("waiting for the server to close", err);
          return false;
        }
        return want(c, EPOLLIN);
      }
    }
    // The transaction is done: timed from when it was due.
    note_mss(c.fd, mss_);
    const Clock::time_point due = c.due;
    release(c);
    record(histogram, due, rr::now());
    counters.transactions.add(1);
    return true;
  }
}

Wait OpenCrrClientFlow::step(PhaseRef phase, Clock::time_point now) noexcept {
  if (!ep_) return fail("epoll_create1 failed", errno);
  if (!sched_.started()) sched_.start(now);
  for (;;) {
    if (load(phase) == Phase::kAbort) {
      close_all();
      return finished();
    }
    const bool run = load(phase) == Phase::kRun;
    if (!run && !unsent_counted_) {
      unsent_counted_ = true;
      count_unsent(counters, sched_, run_end());
    }
    const bool more = run && (!quota_ || started_ < quota_);
    // 1. Every transaction that is due, as far as the cap allows.
    if (more) {
      Clock::time_point t = rr::now();
      while (sched_.due() <= t && (!quota_ || started_ < quota_)) {
        if (in_flight_ >= limit_) {
          sched_.note_full(t);
          break;
        }
        if (!start(t)) return finished();
        t = rr::now();
      }
    }
    // 2. The connections that can move on.
    epoll_event ev[64];
    const int n = ::epoll_wait(ep_.get(), ev, 64, 0);
    for (int i = 0; i < n; ++i)
      if (!drive(*static_cast<Conn*>(ev[i].data.ptr))) return finished();
    if (n > 0) continue;  // slots freed, or more ready
    if (in_flight_ == 0 && !more) return finished();
    Wait w = wait_read(ep_.get());
    if (more && in_flight_ < limit_) w.deadline = sched_.due();
    return w;
  }
}

// ---- TCP_CRR server ----

CrrServerFlow::CrrServerFlow(int listener, CrrOptions opts, uint32_t req, uint32_t resp)
    : listener_(listener),
      opts_(opts),
      ep_(::epoll_create1(EPOLL_CLOEXEC)),
      buf_(std::make_unique<char[]>(std::max(req, resp))),
      req_(req),
      resp_(resp) {
  std::memset(buf_.get(), 's', std::max(req, resp));
  accepted_ = net::not_inherited_on_accept(opts_.socket);
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLEXCLUSIVE;
  ev.data.ptr = nullptr;  // nullptr marks the listener
  ::epoll_ctl(ep_.get(), EPOLL_CTL_ADD, listener_, &ev);
  for (int i = 0; i < 64; ++i) {
    conns_.emplace_back();
    conns_.back().next_free = free_;
    free_ = &conns_.back();
  }
}

CrrServerFlow::~CrrServerFlow() {
  for (auto& c : conns_)
    if (c.fd >= 0) ::close(c.fd);
}

void CrrServerFlow::close_conn(Conn* c) noexcept {
  net::data::close(c->fd);  // also leaves our epoll set
  c->fd = -1;
  c->next_free = free_;
  free_ = c;
  --open_;
}

void CrrServerFlow::accept_all() noexcept {
  for (;;) {
    int fd = net::data::accept4(listener_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;  // EAGAIN, or a transient error (ECONNABORTED, EMFILE): try later
    if (!free_) {
      try {
        conns_.emplace_back();  // rare: more connections at once than ever before
      } catch (...) {
        ::close(fd);
        continue;
      }
      free_ = &conns_.back();
      free_->next_free = nullptr;
    }
    Conn* c = free_;
    free_ = c->next_free;
    c->fd = fd;
    c->sending = req_ == 0;
    c->answered = c->polling_out = false;
    c->off = 0;
    ++open_;
    if (accepted_.any()) net::apply_socket_options(fd, accepted_);
    if (req_ == 0 && resp_ == 0) {  // TCP_CC: the accept is the transaction
      counters.transactions.add(1);
      counters.connects.add(1);
      close_conn(c);
      continue;
    }
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.ptr = c;
    ::epoll_ctl(ep_.get(), EPOLL_CTL_ADD, fd, &ev);
    serve(c);  // the request is often already there
  }
}

void CrrServerFlow::serve(Conn* c) noexcept {
  for (;;) {
    if (c->answered) {  // rst_close: until the client's RST (or end of stream)
      int err = 0;
      if (drain_to_eof(c->fd, counters, &err) || err) close_conn(c);
      return;
    }
    if (!c->sending) {
      ssize_t n = net::data::recv(c->fd, buf_.get() + c->off, req_ - c->off, 0);
      if (n > 0) {
        counters.bytes_recv.add(static_cast<uint64_t>(n));
        counters.recv_calls.add(1);
        c->off += static_cast<uint32_t>(n);
        if (c->off == req_) {
          c->off = 0;
          c->sending = true;
        }
        continue;
      }
      if (n < 0 && (again(errno) || errno == EINTR)) return;
      close_conn(c);  // EOF or error before a whole request: not a transaction
      return;
    }
    if (c->off == resp_) {
      counters.transactions.add(1);
      counters.connects.add(1);
      if (opts_.rst_close) {
        c->answered = true;
        if (c->polling_out) {
          epoll_event ev{};
          ev.events = EPOLLIN;
          ev.data.ptr = c;
          ::epoll_ctl(ep_.get(), EPOLL_CTL_MOD, c->fd, &ev);
        }
        continue;
      }
      close_conn(c);  // we close first: TIME_WAIT lands here, not on the client
      return;
    }
    ssize_t n = net::data::send(c->fd, buf_.get() + c->off, resp_ - c->off, MSG_NOSIGNAL);
    if (n > 0) {
      counters.bytes_sent.add(static_cast<uint64_t>(n));
      counters.send_calls.add(1);
      c->off += static_cast<uint32_t>(n);
      continue;
    }
    if (n < 0 && again(errno)) {
      epoll_event ev{};
      ev.events = EPOLLOUT;
      ev.data.ptr = c;
      ::epoll_ctl(ep_.get(), EPOLL_CTL_MOD, c->fd, &ev);
      c->polling_out = true;
      return;
    }
    if (n < 0 && errno == EINTR) continue;
    close_conn(c);
    return;
  }
}

void CrrServerFlow::set_mode(bool blocking) noexcept {
  blocking_ = blocking;
  // accept() then waits at most the blocking wake-up time (SO_RCVTIMEO),
  // and accepted sockets inherit it, so phase changes are seen in time.
  if (blocking) apply_mode(listener_, true);
}

Wait CrrServerFlow::step_blocking(PhaseRef phase) noexcept {
  for (;;) {
    const Phase p = load(phase);
    if (p == Phase::kAbort) return finished();
    if (p == Phase::kDrain) {  // done once no connection waits to be accepted
      pollfd pending{listener_, POLLIN, 0};
      if (::poll(&pending, 1, 0) <= 0) return finished();
    }
    const int fd = net::data::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;  // the wake-up timeout, or a transient error: look again
    if (accepted_.any()) net::apply_socket_options(fd, accepted_);
    bool whole = true;
    for (uint32_t off = 0; off < req_ && whole;) {
      ssize_t n = net::data::recv(fd, buf_.get() + off, req_ - off, 0);
      if (n > 0) {
        counters.bytes_recv.add(static_cast<uint64_t>(n));
        counters.recv_calls.add(1);
        off += static_cast<uint32_t>(n);
      } else if (n < 0 && (again(errno) || errno == EINTR) && load(phase) != Phase::kAbort) {
        continue;
      } else {
        whole = false;  // EOF or error before a whole request: not a transaction
      }
    }
    for (uint32_t off = 0; off < resp_ && whole;) {
      ssize_t n = net::data::send(fd, buf_.get() + off, resp_ - off, MSG_NOSIGNAL);
      if (n > 0) {
        counters.bytes_sent.add(static_cast<uint64_t>(n));
        counters.send_calls.add(1);
        off += static_cast<uint32_t>(n);
      } else if (n < 0 && (again(errno) || errno == EINTR) && load(phase) != Phase::kAbort) {
        continue;
      } else {
        whole = false;
      }
    }
    if (whole) {
      counters.transactions.add(1);
      counters.connects.add(1);
      if (opts_.rst_close) {
        // The client's RST ends the connection (recv fails; no TIME_WAIT on
        // either side); the wake-up timeout bounds the wait.
        int err = 0;
        drain_to_eof(fd, counters, &err);
      }
    }
    net::data::close(fd);  // otherwise we close first: TIME_WAIT lands here, not on the client
  }
}

Wait CrrServerFlow::step(PhaseRef phase, Clock::time_point) noexcept {
  if (blocking_) return step_blocking(phase);
  if (load(phase) == Phase::kAbort) return finished();
  epoll_event events[64];
  for (;;) {
    int n = net::data::epoll_wait(ep_.get(), events, 64, 0);
    if (n <= 0) break;
    for (int i = 0; i < n; ++i) {
      if (events[i].data.ptr == nullptr)
        accept_all();
      else
        serve(static_cast<Conn*>(events[i].data.ptr));
    }
    if (n < 64) break;
  }
  // The client stops opening connections before it asks us to drain, so in
  // drain we finish once the last open connection is done.
  if (load(phase) == Phase::kDrain && open_ == 0) {
    accept_all();
    if (open_ == 0) return finished();
  }
  return wait_read(ep_.get());
}
}  // namespace flowperf::engine
