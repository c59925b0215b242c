// The request/response family: TCP_RR, TCP_CRR and UDP_RR, client and server
// sides. Every completed transaction's round trip goes into the flow's
// histogram (nanoseconds).
//
// TCP_RR client:  [SEND req ─► RECV resp]* ──(phase ≠ run)──► shutdown(WR) ─► wait EOF ─► done
// TCP_RR server:  [RECV req ─► SEND resp]* ──(EOF)──► shutdown(WR) ─► done
// TCP_CRR client: [connect ─► SEND req ─► RECV resp ─► wait EOF ─► close]*
//                 (the server closes first, so TIME_WAIT stays on its side and
//                 the client's ephemeral ports do not run out)
// TCP_CRR server: accept ─► RECV req ─► SEND resp ─► close, many at once
// TCP_CC:         the TCP_CRR flows with no request and no response: the
//                 client connects and waits for the server's close; the
//                 server accepts and closes at once
// UDP_RR client:  [SEND req(seq) ─► RECV resp(seq) or time out]*; the timeout
//                 follows the measured round trip (RFC 6298 style)
// UDP_RR server:  [RECV req ─► SEND resp to its source]* ─► drain ─► done
#pragma once

#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/flow.h"
#include "engine/open_loop.h"
#include "engine/udp_drain.h"
#include "net/fd.h"
#include "net/socket.h"

namespace flowperf::engine {

// The requests a client has in flight in a burst or an open loop, oldest
// first: when each was sent, when its latency counts from (the send, or in
// an open loop its intended time), and its sequence number (UDP), in a ring.
// A response completes the oldest, so every latency stays exact. A burst's
// ring is as long as the burst allows; an open loop's grows as requests pile
// up, up to its cap, so that 10,000 flows do not each hold their cap's worth.
struct RequestWindow {
  struct Sent {
    Clock::time_point at, from;
    uint64_t seq = 0;
  };
  std::unique_ptr<Sent[]> ring;
  uint32_t window = 0;  // the ring's length; 0: no burst, no open loop
  uint32_t limit = 0;   // requests in flight at most
  uint32_t head = 0, count = 0;
  uint64_t started = 0;                 // requests begun
  uint32_t send_off = 0, recv_off = 0;  // TCP: bytes of the request and response under way
  // A burst of `extra` requests beyond the first (0: none).
  void reset(uint32_t extra);
  // An open loop's: at most `most` in flight.
  void reset_open(uint32_t most);
  // Whether no request may be added (the ring grows first when it can).
  bool full() noexcept { return count >= limit || (count == window && !grow()); }
  void push(Clock::time_point at, Clock::time_point from, uint64_t seq) noexcept {
    ring[(head + count) % window] = {at, from, seq};
    ++count;
  }
  const Sent& oldest() const noexcept { return ring[head]; }
  const Sent& nth(uint32_t k) const noexcept { return ring[(head + k) % window]; }
  void pop() noexcept {
    head = (head + 1) % window;
    --count;
  }

 private:
  bool grow() noexcept;
};

class TcpRrClientFlow final : public Flow {
 public:
  // `fill`: the request's bytes, repeated (netperf -F); empty: our pattern.
  TcpRrClientFlow(net::Fd fd, uint32_t req, uint32_t resp, uint64_t quota,
                  std::string_view fill = {});
  Wait step(PhaseRef phase, Clock::time_point now) noexcept override;
  int initial_fd() const noexcept override { return fd_.get(); }
  // A burst sends and receives at once, so it never blocks in one of them.
  bool can_block() const noexcept override { return burst_.window == 0; }
  // netperf's first burst (-b n): up to n requests beyond the first in
  // flight. Call before the test starts; 0 (the default) is one at a time.
  void set_first_burst(uint32_t n);
  // Open loop (TestSpec::rate_tps): requests go out on this plan's schedule.
  // Call before the test starts.
  void set_open_loop(const OpenLoopPlan& p);

 private:
  Wait step_burst(PhaseRef phase, Clock::time_point now) noexcept;
  enum class State { kSend, kRecv, kAwaitEof };
  net::Fd fd_;
  std::unique_ptr<char[]> buf_;
  char* in_;  // where responses go: buf_ itself, or past the request when it has a fill
  uint32_t req_, resp_;
  uint64_t quota_;
  uint64_t done_ = 0;
  State state_ = State::kSend;
  uint32_t off_ = 0;
  Clock::time_point t0_{};
  RequestWindow burst_;
  Schedule sched_;
  bool unsent_counted_ = false;  // open loop: the requests never sent are counted
};

class TcpRrServerFlow final : public Flow {
 public:
  TcpRrServerFlow(net::Fd fd, uint32_t req, uint32_t resp);
  Wait step(PhaseRef phase, Clock::time_point now) noexcept override;
  int initial_fd() const noexcept override { return fd_.get(); }
  // The client keeps several requests in flight (a burst, an open loop).
  bool pipelined = false;

 private:
  net::Fd fd_;
  std::unique_ptr<char[]> buf_;
  uint32_t req_, resp_;
  bool sending_ = false;
  uint32_t off_ = 0;
};

// How TCP_CRR's (and TCP_CC's) connections are made and ended, besides the
// socket options.
struct CrrOptions {
  // Client: set on each new socket when any() (none asked for: no calls
  // per connection). Server: its listener has them and accepted sockets
  // inherit them, but for what net::not_inherited_on_accept() names, which
  // it sets on each accepted socket.
  net::SocketOptions socket;
  net::Address source;  // client: bound before connect when set (len > 0); port 0 = any
  // --rst-close: the client sets SO_LINGER 0 and closes as soon as the
  // answer is in (an RST; the server's end of stream is not waited for),
  // and the server, rather than closing first, waits for that RST.
  bool rst_close = false;
};

class CrrClientFlow final : public Flow {
 public:
  // `fill`: the request's bytes, repeated (netperf -F); empty: our pattern.
  CrrClientFlow(net::Address server, CrrOptions opts, uint32_t req, uint32_t resp, uint64_t quota,
                std::string_view fill = {});
  ~CrrClientFlow() override;
  Wait step(PhaseRef phase, Clock::time_point now) noexcept override;
  int initial_fd() const noexcept override { return -1; }
  uint32_t connection_mss() const noexcept override { return mss_; }
  void set_mode(bool blocking) noexcept override { blocking_ = blocking; }

 private:
  enum class State { kIdle, kConnecting, kSend, kRecv, kAwaitEof };
  // TCP_CC (no request, no response) goes straight to waiting for the close.
  State after_connect() const noexcept {
    return req_ ? State::kSend : resp_ ? State::kRecv : State::kAwaitEof;
  }
  net::Address server_;
  CrrOptions opts_;
  bool any_options_;  // whether opts_.socket asks for anything per connection
  // The connection is done with (closed): a transaction, timed to now.
  void complete(Clock::time_point& now) noexcept;
  std::unique_ptr<char[]> buf_;
  char* in_;  // where responses go: buf_ itself, or past the request when it has a fill
  uint32_t req_, resp_;
  uint64_t quota_;
  uint64_t done_ = 0;
  int fd_ = -1;
  State state_ = State::kIdle;
  uint32_t off_ = 0;
  Clock::time_point t0_{};
  bool chained_ = false;  // t0_ holds the last transaction's end: the next starts then
  uint32_t mss_ = 0;      // the first connection's TCP_MAXSEG (read once)
};

// An open-loop TCP_CRR (or TCP_CC) client (TestSpec::rate_tps): a new
// connection at each time its schedule gives, whether or not the earlier
// ones are done, at most `plan.limit` at once; each transaction's latency
// counts from its intended time. Its connections live in an epoll set of
// its own, which the worker waits on. Non-blocking only.
class OpenCrrClientFlow final : public Flow {
 public:
  OpenCrrClientFlow(net::Address server, CrrOptions opts, uint32_t req, uint32_t resp,
                    uint64_t quota, const OpenLoopPlan& plan, std::string_view fill = {});
  ~OpenCrrClientFlow() override;
  Wait step(PhaseRef phase, Clock::time_point now) noexcept override;
  int initial_fd() const noexcept override { return ep_.get(); }
  uint32_t connection_mss() const noexcept override { return mss_; }
  bool can_block() const noexcept override { return false; }
  void set_mode(bool) noexcept override {}

 private:
  enum class State : uint8_t { kConnecting, kSend, kRecv, kAwaitEof };
  // TCP_CC (no request, no response) goes straight to waiting for the close.
  State after_connect() const noexcept {
    return req_ ? State::kSend : resp_ ? State::kRecv : State::kAwaitEof;
  }
  struct Conn {
    int fd = -1;
    State state = State::kConnecting;
    uint32_t events = 0;  // registered in ep_
    uint32_t off = 0;
    Clock::time_point due{};
    Conn* next_free = nullptr;
  };
  // Opens the connection for the transaction due now. False: the flow failed.
  bool start(Clock::time_point now) noexcept;
  // Takes c as far as it goes without waiting. False: the flow failed.
  bool drive(Conn& c) noexcept;
  bool want(Conn& c, uint32_t events) noexcept;
  void release(Conn& c) noexcept;
  void close_all() noexcept;

  net::Address server_;
  CrrOptions opts_;
  bool any_options_;
  std::unique_ptr<char[]> buf_;
  char* in_;
  uint32_t req_, resp_;
  uint64_t quota_;
  uint64_t started_ = 0;
  net::Fd ep_;
  std::deque<Conn> conns_;  // stable addresses; grows while all are in use, up to the limit
  Conn* free_ = nullptr;
  uint32_t in_flight_ = 0, limit_;
  Schedule sched_;
  bool unsent_counted_ = false;
  uint32_t mss_ = 0;
};

// Serves TCP_CRR connections arriving on a listener. It keeps its own epoll
// set (listener plus open connections) and offers that set's descriptor to
// the worker, so it nests in the worker's loop like any other flow.
class CrrServerFlow final : public Flow {
 public:
  CrrServerFlow(int listener, CrrOptions opts, uint32_t req, uint32_t resp);
  ~CrrServerFlow() override;
  Wait step(PhaseRef phase, Clock::time_point now) noexcept override;
  int initial_fd() const noexcept override { return ep_.get(); }
  // Alone on its worker it serves one connection at a time with blocking
  // calls, as netserver does (no epoll set to keep up to date): accept,
  // read the request, send the response, close.
  bool can_block() const noexcept override { return true; }
  void set_mode(bool blocking) noexcept override;

 private:
  Wait step_blocking(PhaseRef phase) noexcept;
  struct Conn {
    int fd = -1;
    bool sending = false;
    bool answered = false;     // rst_close: the answer is sent; the client's RST ends it
    bool polling_out = false;  // registered for EPOLLOUT (the answer did not fit at once)
    uint32_t off = 0;
    Conn* next_free = nullptr;
  };
  void accept_all() noexcept;
  void serve(Conn* c) noexcept;
  void close_conn(Conn* c) noexcept;

  int listener_;  // owned by the session; this flow's alone (one listener per flow)
  CrrOptions opts_;
  net::SocketOptions accepted_;  // set on each accepted socket (net::not_inherited_on_accept)
  net::Fd ep_;
  std::unique_ptr<char[]> buf_;
  uint32_t req_, resp_;
  std::deque<Conn> conns_;  // stable addresses; grows only when all are busy
  Conn* free_ = nullptr;
  uint32_t open_ = 0;
};

// The UDP_RR client's timeout, following the measured round trip: TCP's
// estimator (RFC 6298) in fixed point, as the kernel keeps it. srtt8 is 8 x
// the smoothed round trip and rttvar4 4 x its mean deviation (ns), so the
// 1/8 and 1/4 gains are shifts. The timeout is the larger of srtt + 4 x
// rttvar and 2 x srtt, within [min_ns, 2 s]; 1 s until a round trip is
// measured. Plain integers, small enough for a tight loop to keep in locals.
//
// The timeout only decides when the next request goes out (an answer that
// comes later still counts, timed from its request), so it should outlast
// the round trip's tail, which the estimator's mean and deviation do not
// see: a path with rare stalls (a loopback's scheduler hiccups: 0.1-0.3%
// of round trips past 50 us) would time out on each. Late answers show that
// tail, as a spurious retransmission timeout shows TCP its own (RFC 3522):
// each raises a floor, tail_ns, to twice its round trip; a timeout right
// after an answer halves it, since a timeout with no answer to come is a
// loss the floor made the flow wait for, and a late answer raises it again.
// Timeouts in a row, with no answer between them, are one stall (or an
// outage), not many losses: as TCP's retransmission timer, each doubles the
// next request's timeout (backoff) until an answer comes. So a stall costs
// a few timeouts, about log2 of its length over the timeout, and its late
// answers then lift the floor past it; the floor falls back while timeouts
// are losses (a stall's 2 s floor is gone after 15 of them).
struct RttTimeout {
  static constexpr int64_t kMaxNs = 2'000'000'000, kFirstNs = 1'000'000'000;
  int64_t srtt8 = 0, rttvar4 = 0;
  int64_t min_ns = 0;
  int64_t tail_ns = 0;  // the floor late answers set
  int backoff = 0;      // timeouts since the last answer: the timeout's doublings
  void on_rtt(int64_t rtt_ns) noexcept {
    backoff = 0;
    const int64_t r = rtt_ns > 1 ? rtt_ns : 1;
    if (srtt8 == 0) {
      srtt8 = 8 * r;
      rttvar4 = 2 * r;  // deviation r / 2
    } else {
      const int64_t err = r - (srtt8 >> 3);
      srtt8 += err;
      rttvar4 += (err < 0 ? -err : err) - (rttvar4 >> 2);
    }
  }
  // A request was given up on.
  void on_timeout() noexcept {
    if (backoff == 0) tail_ns >>= 1;
    if (backoff < 31) ++backoff;
  }
  // An answer came rtt_ns after its request, past the timeout.
  void on_late(int64_t rtt_ns) noexcept {
    backoff = 0;
    const int64_t t = rtt_ns < kMaxNs / 2 ? 2 * rtt_ns : kMaxNs;
    tail_ns = t > tail_ns ? t : tail_ns;
  }
  int64_t timeout_ns() const noexcept {
    if (srtt8 == 0) return kFirstNs;
    const int64_t srtt = srtt8 >> 3;
    int64_t t = srtt + (rttvar4 > srtt ? rttvar4 : srtt);
    t = t < min_ns ? min_ns : t;
    t = t < tail_ns ? tail_ns : t;
    t = backoff == 0 ? t : (t >= (kMaxNs >> backoff) ? kMaxNs : t << backoff);
    return t > kMaxNs ? kMaxNs : t;
  }
  // Whether a round trip of rtt_ns outlasted the timeout. Most are within
  // 2 x srtt, which no timeout is shorter than (but for the 2 s cap): those
  // are told without computing it.
  bool outlasts(int64_t rtt_ns) const noexcept {
    const int64_t srtt2 = srtt8 >> 2;
    if (rtt_ns <= srtt2 && rtt_ns <= kMaxNs) return false;
    return rtt_ns > timeout_ns();
  }
};

// The requests a UDP_RR client gave up on lately, the newest kSize: each
// one's sequence number and the time its latency counts from, so that an
// answer that comes after all is timed from its own request. The ring is
// allocated at the first timeout (most flows never have one).
class GivenUp {
 public:
  static constexpr uint32_t kSize = 256;
  void add(uint64_t seq, Clock::time_point from) noexcept;
  // The time the request that an answer naming `got` (the sequence number's
  // bytes that the messages hold, `mask` its bits) counts from, and that
  // request forgotten: the newest such request among those at most `span`
  // requests before `latest` (older ones the bytes do not tell apart).
  // nullopt: none.
  std::optional<Clock::time_point> take(uint64_t got, uint64_t mask, uint64_t latest,
                                        uint64_t span) noexcept;

 private:
  struct Entry {
    uint64_t seq = 0;
    Clock::time_point from{};
    bool live = false;
  };
  std::unique_ptr<Entry[]> ring_;
  uint32_t next_ = 0;
};

class UdpRrClientFlow final : public Flow {
 public:
  // `fill`: the request's bytes after its sequence number, repeated from
  // the request's start (netperf -F); empty: our pattern.
  UdpRrClientFlow(net::Fd fd, uint32_t req, uint32_t resp, uint64_t quota,
                  std::chrono::microseconds min_timeout, std::string_view fill = {});
  Wait step(PhaseRef phase, Clock::time_point now) noexcept override;
  int initial_fd() const noexcept override { return fd_.get(); }
  // Alone on a worker (and not in a burst) it blocks in recv for its answer
  // while no timeout happened recently; see step().
  bool can_block() const noexcept override { return burst_.window == 0; }
  void set_mode(bool blocking) noexcept override;
  // The timeout in force now (for reports and tests): 1 s until a round
  // trip is measured.
  std::chrono::nanoseconds timeout() const noexcept {
    return std::chrono::nanoseconds(rto_.timeout_ns());
  }
  // Requests whose answer was waited for in a blocking recv (for tests;
  // read once the flow has finished).
  uint64_t coarse_waits() const noexcept { return coarse_waits_; }
  // false: any response answers the request in flight (netserver does not
  // echo the sequence number, so it cannot be checked). Default true.
  bool match_sequence = true;
  // netperf's first burst (-b n): up to n requests beyond the first in
  // flight; a response answers the oldest (by sequence when matching), and
  // the oldest times out alone. Call before the test starts.
  void set_first_burst(uint32_t n);
  // Open loop (TestSpec::rate_tps): requests go out on this plan's schedule.
  // Call before the test starts.
  void set_open_loop(const OpenLoopPlan& p);

 private:
  Wait step_burst(PhaseRef phase, Clock::time_point now) noexcept;
  // Blocking mode: whether the next request may wait for its answer in a
  // blocking recv (bounded by a coarse SO_RCVTIMEO, set on first use).
  bool use_coarse_wait() noexcept;
  // use_coarse_wait()'s steady state inline: coarse waits set up, no recent loss.
  bool coarse_next() noexcept {
    if (blocking_ && precise_left_ == 0 && rcvtimeo_set_) {
      ++coarse_waits_;
      return true;
    }
    return use_coarse_wait();
  }
  // Right after an answer, with coarse waits set up and no recent loss:
  // run_coarse() may take over.
  bool coarse_ready() const noexcept {
    return blocking_ && !waiting_ && chained_ && precise_left_ == 0 && rcvtimeo_set_;
  }
  std::optional<Wait> run_coarse(PhaseRef phase) noexcept;
  // When the datagram just received reached the socket (its kernel time
  // stamp), at the latest t, the time recv returned it.
  Clock::time_point arrival(Clock::time_point t) const noexcept;
  // The request numbered seq, whose latency counts from `from`, is given up
  // on. `rto`: the timeout in force (run_coarse() keeps it in a local).
  void give_up(uint64_t seq, Clock::time_point from, RttTimeout& rto) noexcept;
  // An answer came rtt_ns after its request, past that request's timeout.
  void count_late(int64_t rtt_ns, RttTimeout& rto) noexcept;
  // An answer at t naming `got`, not the request in flight: late, if it
  // answers one given up on lately; otherwise (a duplicate, or older than
  // GivenUp or the sequence number's bytes tell) counted in duplicates.
  void answer_given_up(uint64_t got, Clock::time_point t, RttTimeout& rto) noexcept;
  net::Fd fd_;
  std::unique_ptr<char[]> out_, in_;
  uint32_t req_, resp_;
  uint32_t seq_bytes_;  // how much of the sequence number fits in both messages
  uint64_t seq_mask_;   // the bits of a uint64_t those bytes hold
  uint64_t quota_;
  uint64_t seq_ = 0;
  bool waiting_ = false;
  bool coarse_ = false;        // the request in flight waits in a blocking recv
  uint32_t precise_left_ = 0;  // requests still to wait for with ppoll (exact timer)
  bool rcvtimeo_set_ = false;  // SO_RCVTIMEO set for coarse waits
  uint64_t coarse_waits_ = 0;
  Clock::time_point t0_{}, deadline_{};
  bool chained_ = false;  // t0_ holds the last answer's arrival: the next request starts then
  RttTimeout rto_;
  GivenUp given_up_;
  RequestWindow burst_;
  Schedule sched_;
  bool unsent_counted_ = false;  // open loop: the requests never sent are counted
};

class UdpRrServerFlow final : public Flow {
 public:
  UdpRrServerFlow(net::Fd fd, uint32_t req, uint32_t resp);
  Wait step(PhaseRef phase, Clock::time_point now) noexcept override;
  int initial_fd() const noexcept override { return fd_.get(); }
  // Alone on a worker it blocks in recvfrom (two system calls per
  // transaction); its only deadline, the end of the drain, is coarse.
  // netperf's end-of-test mark: a zero-length datagram ends the flow
  // unanswered. Off by default: an empty request is then answered.
  bool end_on_empty = false;
  void expect_datagrams(uint64_t n) noexcept override { drain_.expect(n); }
  bool wake_by_signal() const noexcept override { return true; }

 private:
  net::Fd fd_;
  std::unique_ptr<char[]> in_, out_;
  uint32_t req_, resp_;
  UdpDrain drain_;
};

}  // namespace flowperf::engine
