// The UDP_RR flows: the client (one request at a time, or a first burst,
// each with a timeout that follows the measured round trip) and the server
// (answers each request to its source). The TCP ones are in rr_flows.cc
// and crr_flows.cc.
#include <linux/sockios.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <optional>

#include "engine/rr_flows.h"
#include "engine/rr_internal.h"
#include "net/data_calls.h"

namespace flowperf::engine {
namespace {

using rr::again;
using rr::count_received;
using rr::count_sent;
using rr::ns_between;

// The bits of a uint64_t that its first n bytes hold on this host (n <= 8).
constexpr uint64_t first_bytes_mask(uint32_t n) noexcept {
  if (n >= 8) return ~uint64_t{0};
  const uint64_t low = (uint64_t{1} << (8 * n)) - 1;
  return std::endian::native == std::endian::little ? low : ~(~uint64_t{0} >> (8 * n));
}

// Copies the first n (at most 8) bytes of src over dst, `mask` being
// first_bytes_mask(n); both hold at least 8 bytes. Fixed-size loads and
// stores: a byte loop or a memcpy of a run-time length becomes a libc call,
// and UDP_RR made three per transaction.
void copy_upto8(char* dst, const char* src, uint64_t mask) noexcept {
  uint64_t d, v;
  std::memcpy(&d, dst, 8);
  std::memcpy(&v, src, 8);
  d = (d & ~mask) | (v & mask);
  std::memcpy(dst, &d, 8);
}

}  // namespace

// ---- UDP_RR client ----

namespace {
// After a timeout with no answer (a loss, as far as the flow can tell), this
// many requests wait for their answers exactly (one system call more each)
// before blocking receives come back: a coarse wait costs up to a jiffy per
// lost datagram, the exact one a few microseconds per transaction, so
// blocking pays only while losses are rarer than about one in a thousand
// transactions. An answer that merely came late costs a coarse wait
// nothing, and does not count here.
constexpr uint32_t kPreciseAfterTimeout = 2048;
// Exact waits at the start, while the round trip estimate settles.
constexpr uint32_t kPreciseAtStart = 64;
// SO_RCVTIMEO for coarse waits (µs): one jiffy, whatever HZ is.
constexpr suseconds_t kCoarseWaitUs = 1000;
}  // namespace

UdpRrClientFlow::UdpRrClientFlow(net::Fd fd, uint32_t req, uint32_t resp, uint64_t quota,
                                 std::chrono::microseconds min_timeout, std::string_view fill)
    : fd_(std::move(fd)),
      out_(std::make_unique<char[]>(std::max<uint32_t>(req, 8))),  // copy_upto8 needs 8
      in_(std::make_unique<char[]>(std::max<uint32_t>(resp, 65536))),
      req_(req),
      resp_(resp),
      seq_bytes_(std::min<uint32_t>({req, resp, 8})),
      seq_mask_(first_bytes_mask(seq_bytes_)),
      quota_(quota) {
  rto_.min_ns = std::chrono::nanoseconds(min_timeout).count();
  std::memset(out_.get(), 'u', std::max<uint32_t>(req, 8));
  fill_with(out_.get(), req, fill);
}

void UdpRrClientFlow::set_mode(bool blocking) noexcept {
  Flow::set_mode(blocking);
  precise_left_ = kPreciseAtStart;
  rcvtimeo_set_ = false;
  if (blocking) {
    // The first SIOCGSTAMPNS turns on the socket's receive time stamps
    // (and fails: nothing received yet); arrival() reads them later.
    timespec stamp{};
    [[maybe_unused]] int r = ::ioctl(fd_.get(), SIOCGSTAMPNS, &stamp);
  }
}

Clock::time_point UdpRrClientFlow::arrival(Clock::time_point t) const noexcept {
  timespec stamp{}, real{};
  if (::ioctl(fd_.get(), SIOCGSTAMPNS, &stamp) != 0) return t;
  ::clock_gettime(CLOCK_REALTIME, &real);
  const Clock::time_point now = Clock::now();
  const int64_t age = (static_cast<int64_t>(real.tv_sec) - stamp.tv_sec) * 1'000'000'000 +
                      (real.tv_nsec - stamp.tv_nsec);
  if (age < 0) return t;  // the wall clock was stepped
  return std::min(t, now - std::chrono::nanoseconds(age));
}

void GivenUp::add(uint64_t seq, Clock::time_point from) noexcept {
  if (!ring_) {
    ring_.reset(new (std::nothrow) Entry[kSize]);
    if (!ring_) return;  // the answer, if it comes, is then a stray
  }
  ring_[next_] = {seq, from, true};
  next_ = (next_ + 1) % kSize;
}

std::optional<Clock::time_point> GivenUp::take(uint64_t got, uint64_t mask, uint64_t latest,
                                               uint64_t span) noexcept {
  if (!ring_) return std::nullopt;
  for (uint32_t k = 1; k <= kSize; ++k) {  // newest first
    Entry& e = ring_[(next_ + kSize - k) % kSize];
    if (e.live && latest - e.seq <= span && (e.seq & mask) == got) {
      e.live = false;
      return e.from;
    }
  }
  return std::nullopt;
}

void UdpRrClientFlow::give_up(uint64_t seq, Clock::time_point from, RttTimeout& rto) noexcept {
  counters.timeouts.add(1);
  rto.on_timeout();
  given_up_.add(seq, from);
}

void UdpRrClientFlow::count_late(int64_t rtt_ns, RttTimeout& rto) noexcept {
  counters.late.add(1);
  rto.on_late(rtt_ns);
  if (histogram) histogram->record(static_cast<uint64_t>(std::max<int64_t>(rtt_ns, 0)));
}

void UdpRrClientFlow::answer_given_up(uint64_t got, Clock::time_point t, RttTimeout& rto) noexcept {
  // The requests the sequence number's bytes tell apart: the latest, and
  // as many before it as those bytes hold other values.
  const uint64_t span = seq_bytes_ >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * seq_bytes_)) - 1;
  if (std::optional<Clock::time_point> from = given_up_.take(got, seq_mask_, seq_, span))
    count_late(ns_between(*from, t), rto);
  else
    counters.duplicates.add(1);
}

bool UdpRrClientFlow::use_coarse_wait() noexcept {
  if (!blocking_) return false;
  if (precise_left_ > 0) {
    --precise_left_;
    return false;
  }
  if (rto_.srtt8 == 0) return false;
  // The kernel keeps SO_RCVTIMEO in whole jiffies, rounded up: 1 ms is one
  // jiffy at any HZ (100-1000), a sleep that ends at the next tick, however
  // near, and no shorter value would wait less. So it is set once, whatever
  // the timeout: a wait may end before the deadline (a near tick, or a
  // timeout longer than a jiffy), and step() then checks the clock and
  // waits out the rest exactly. A silent peer or a phase change is seen
  // within a jiffy.
  if (!rcvtimeo_set_) {
    timeval tv{0, kCoarseWaitUs};
    if (::setsockopt(fd_.get(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0) return false;
    rcvtimeo_set_ = true;
  }
  ++coarse_waits_;
  return true;
}

// Coarse waits under way, right after an answer: whole transactions in a
// send and a blocking recv, with the flow's state in locals (the system
// calls would make the compiler reload members). Anything unusual (a
// timeout, a late or foreign answer, EINTR, a send error) is handed back to
// step() in the state its own loop would have reached; a failure is
// returned. Whole transactions reach the counters in batches (Batch).
std::optional<Wait> UdpRrClientFlow::run_coarse(PhaseRef phase) noexcept {
  const int fd = fd_.get();
  const uint64_t mask = seq_mask_;
  const uint32_t req = req_, cap = std::max<uint32_t>(resp_, 65536), seq_bytes = seq_bytes_;
  char* const out = out_.get();
  char* const in = in_.get();
  const uint64_t last = quota_ ? quota_ : ~uint64_t{0};  // transactions to stop at
  uint64_t seq = seq_, done = counters.transactions.get(), waits = 0;
  Clock::time_point t0 = t0_;
  RttTimeout rto = rto_;
  rr::Batch batch(t0, 1);
  // The request in flight's: the timeout now in force after its start.
  auto deadline = [&] { return t0 + std::chrono::nanoseconds(rto.timeout_ns()); };
  std::optional<Wait> failed;
  for (;;) {
    if (load(phase) != Phase::kRun || done >= last) break;
    copy_upto8(out, reinterpret_cast<const char*>(&++seq), mask);
    ssize_t n = net::data::send(fd, out, req, 0);
    if (n < 0) {
      const int err = errno;
      if (err == EINTR || again(err)) {
        --seq;  // step() sends it again
        break;
      }
      if (err != ENOBUFS && err != ECONNREFUSED) {
        failed = fail("send failed", err);
        break;
      }
      // Counted; step() waits for this request, which then times out.
      count_sent(counters, n);
      ++waits;
      waiting_ = true;
      coarse_ = true;
      deadline_ = deadline();
      break;
    }
    ++waits;
    n = net::data::recv(fd, in, cap, 0);
    if (n < 0) {
      const int err = errno;
      count_sent(counters, req);
      // step() goes on waiting for this request: coarsely after EINTR, on
      // the exact timer otherwise (it reads once more, then checks the clock).
      waiting_ = true;
      coarse_ = err == EINTR;
      deadline_ = deadline();
      if (err != EINTR && !again(err) && err != ECONNREFUSED) failed = fail("recv failed", err);
      break;
    }
    const Clock::time_point t = rr::now();
    uint64_t got = 0;
    if (static_cast<uint32_t>(n) >= seq_bytes) copy_upto8(reinterpret_cast<char*>(&got), in, mask);
    const int64_t rtt = ns_between(t0, t);
    if ((match_sequence && got != (seq & mask)) || (rto.outlasts(rtt) && arrival(t) > deadline())) {
      count_sent(counters, req);
      count_received(counters, n);
      if (match_sequence && got != (seq & mask)) {
        // The answer to a request we gave up on: step() waits on (coarsely)
        // for this one's.
        seq_ = seq;
        answer_given_up(got, t, rto);
        waiting_ = true;
        coarse_ = true;
        deadline_ = deadline();
      } else {
        // Came after the moment an exact timer gives up at: as step() counts
        // it, a timeout, then a late answer; the next request starts now.
        counters.timeouts.add(1);
        rto.on_timeout();
        count_late(rtt, rto);
        t0 = t;
      }
      break;
    }
    rto.on_rtt(rtt);
    if (histogram) histogram->record(static_cast<uint64_t>(std::max<int64_t>(rtt, 0)));
    batch.add(static_cast<uint64_t>(n));
    if (batch.due()) batch.publish(counters, req, t);
    ++done;
    t0 = t;
  }
  batch.flush(counters, req);
  seq_ = seq;
  rto_ = rto;
  coarse_waits_ += waits;
  // Unless a request is still out, t0_ is when the next one starts.
  chained_ = !waiting_;
  t0_ = t0;
  return failed;
}

// One request at a time. Its answer is waited for in one of two ways:
//  - exactly: the worker sleeps in ppoll (or epoll) until the socket is
//    readable or the timeout has passed, then recv; three system calls per
//    transaction. Always so in epoll mode, and in blocking mode at the
//    start and for kPreciseAfterTimeout requests after a timeout that
//    found no answer.
//  - coarsely (blocking mode, no recent loss): send, then a blocking
//    recv bounded by SO_RCVTIMEO; two system calls per transaction, as
//    netperf, but with a timeout. When that recv gives up, the clock
//    decides: past the deadline it is a timeout; before it, the rest of the
//    wait is exact. An answer the blocking recv returns after the deadline
//    counts as an exact wait would have counted it (timed out, then late).
Wait UdpRrClientFlow::step(PhaseRef phase, Clock::time_point now) noexcept {
  if (burst_.window) return step_burst(phase, now);
  const int fd = fd_.get();
  if (load(phase) == Phase::kAbort) return finished();
  if (coarse_ready()) {
    if (std::optional<Wait> w = run_coarse(phase)) return *w;
  }
  for (;;) {
    if (load(phase) == Phase::kAbort) return finished();
    if (!waiting_) {
      if (load(phase) != Phase::kRun || (quota_ && counters.transactions.get() >= quota_))
        return finished();
      ++seq_;
      copy_upto8(out_.get(), reinterpret_cast<const char*>(&seq_), seq_mask_);
      // Right after an answer, its arrival time starts this request too
      // (one clock read per transaction, as TCP_RR).
      t0_ = chained_ ? t0_ : rr::now();
      chained_ = false;
      ssize_t n = net::data::send(fd, out_.get(), req_, 0);
      if (n < 0) {
        if (errno == EINTR) continue;
        if (again(errno)) return wait_write(fd);
        if (errno != ENOBUFS && errno != ECONNREFUSED) return fail("send failed", errno);
      }
      count_sent(counters, n);
      deadline_ = t0_ + timeout();
      waiting_ = true;
      coarse_ = coarse_next();
      if (coarse_) continue;  // straight into a blocking recv: two system calls in all
      // The answer cannot be there yet: wait for it (or the timeout) rather
      // than read to EAGAIN first.
      Wait w = wait_read(fd);
      w.deadline = deadline_;
      return w;
    }
    ssize_t n = net::data::recv(fd, in_.get(), std::max<uint32_t>(resp_, 65536),
                                coarse_ ? 0 : MSG_DONTWAIT);
    if (n >= 0) {
      Clock::time_point t = rr::now();
      count_received(counters, n);
      uint64_t got = 0;
      if (static_cast<uint32_t>(n) >= seq_bytes_)
        copy_upto8(reinterpret_cast<char*>(&got), in_.get(), seq_mask_);
      const uint64_t want = seq_ & seq_mask_;
      if (match_sequence && got != want) {
        answer_given_up(got, t, rto_);  // the answer to a request we gave up on
        continue;
      }
      int64_t rtt = ns_between(t0_, t);
      if (coarse_ && t > deadline_ && arrival(t) > deadline_) {
        // A blocking recv gives up only at a jiffy boundary; this answer
        // came after the moment an exact timer gives up at, so it counts
        // as an exact wait counts it: a timeout, then a late answer. (One
        // that came in time but whose reader woke late is a transaction,
        // as it is after ppoll.) Late is not lost: the coarse wait cost
        // nothing extra, so blocking receives go on.
        counters.timeouts.add(1);
        rto_.on_timeout();
        count_late(rtt, rto_);
        waiting_ = false;
        continue;
      }
      rto_.on_rtt(rtt);
      if (histogram) histogram->record(static_cast<uint64_t>(std::max<int64_t>(rtt, 0)));
      counters.transactions.add(1);
      waiting_ = false;
      t0_ = t;
      chained_ = true;
      if (coarse_ready()) {
        if (std::optional<Wait> w = run_coarse(phase)) return *w;
      }
      continue;
    }
    int err = errno;
    if (err == EINTR) continue;
    if (!again(err) && err != ECONNREFUSED) return fail("recv failed", err);
    now = Clock::now();
    if (now >= deadline_) {
      give_up(seq_, t0_, rto_);
      if (blocking_) precise_left_ = kPreciseAfterTimeout;
      waiting_ = false;
      continue;
    }
    // Not yet (a coarse wait may end at the next jiffy, however near, and a
    // refused port ends it at once): the rest of the wait on the exact timer.
    coarse_ = false;
    Wait w = wait_read(fd);
    w.deadline = deadline_;
    return w;
  }
}

void UdpRrClientFlow::set_first_burst(uint32_t n) { burst_.reset(n); }

void UdpRrClientFlow::set_open_loop(const OpenLoopPlan& p) {
  // Answers are matched by as many bytes of the sequence number as the
  // smaller message holds: with more than half that range in flight, an
  // answer could be taken for an older request's. So fewer are in flight
  // (1-byte messages: 128), the rest held as by the cap.
  const uint64_t range = seq_bytes_ >= 8 ? ~uint64_t{0} : uint64_t{1} << (8 * seq_bytes_);
  burst_.reset_open(
      static_cast<uint32_t>(std::min<uint64_t>(p.limit, std::max<uint64_t>(range / 2, 1))));
  sched_.plan(p);
}

// A burst of UDP requests: up to n + 1 in flight. A response completes the
// request it names (by sequence number when matching; the oldest when not),
// and older requests it overtook count as timed out; the oldest request
// alone times out by the clock.
Wait UdpRrClientFlow::step_burst(PhaseRef phase, Clock::time_point now) noexcept {
  const int fd = fd_.get();
  RequestWindow& w = burst_;
  const uint64_t mask = seq_mask_;
  const bool open = sched_.on();
  if (open && !sched_.started()) sched_.start(now);
  bool send_blocked = false;
  for (;;) {
    if (load(phase) == Phase::kAbort) return finished();
    const bool run = load(phase) == Phase::kRun;
    if (open && !run && !unsent_counted_) {
      unsent_counted_ = true;
      count_unsent(counters, sched_, run_end());
    }
    // Open loop: a quota counts requests sent (a lost one is not sent again).
    const uint64_t begun =
        open ? counters.sched_intended.get() : counters.transactions.get() + w.count;
    bool may_start = run && (!quota_ || begun < quota_);
    if (w.count == 0 && !may_start) return finished();
    const Clock::time_point at = rr::now();
    if (open && may_start && sched_.due() > at) may_start = false;
    if (open && may_start && !send_blocked && w.full()) sched_.note_full(at);
    if (may_start && !w.full() && !send_blocked) {
      const uint64_t seq = seq_ + 1;
      copy_upto8(out_.get(), reinterpret_cast<const char*>(&seq), seq_mask_);
      ssize_t n = net::data::send(fd, out_.get(), req_, 0);
      if (n < 0) {
        if (errno == EINTR) continue;
        if (again(errno)) {
          send_blocked = true;
          continue;
        }
        if (errno != ENOBUFS && errno != ECONNREFUSED) return fail("send failed", errno);
      }
      count_sent(counters, n);
      seq_ = seq;
      if (open) {
        const Clock::time_point due = sched_.due();
        count_send(counters, due, at, sched_.held(due));
        sched_.advance();
        w.push(at, due, seq);
      } else {
        w.push(at, at, seq);
      }
      continue;
    }
    ssize_t n = net::data::recv(fd, in_.get(), std::max<uint32_t>(resp_, 65536), 0);
    if (n >= 0) {
      const Clock::time_point t = rr::now();
      count_received(counters, n);
      send_blocked = false;
      uint32_t k = 0;  // which request in flight this answers
      uint64_t got = 0;
      if (match_sequence) {
        if (static_cast<uint32_t>(n) >= seq_bytes_)
          copy_upto8(reinterpret_cast<char*>(&got), in_.get(), seq_mask_);
        while (k < w.count && (w.nth(k).seq & mask) != got) ++k;
      }
      if (k >= w.count) {
        // The answer to a request we gave up on; without sequence numbers
        // (a netserver peer) not one that can be told, so not timed.
        if (match_sequence)
          answer_given_up(got, t, rto_);
        else
          counters.late.add(1);
        continue;
      }
      for (; k > 0; --k) {  // overtaken: lost on the way
        give_up(w.oldest().seq, w.oldest().from, rto_);
        w.pop();
      }
      rto_.on_rtt(ns_between(w.oldest().at, t));
      rr::record(histogram, w.oldest().from, t);
      counters.transactions.add(1);
      w.pop();
      continue;
    }
    int err = errno;
    if (err == EINTR) continue;
    if (!again(err) && err != ECONNREFUSED) return fail("recv failed", err);
    Wait wait = wait_read(fd);
    if (send_blocked) wait.events |= 0x004u;  // EPOLLOUT
    if (w.count > 0) {
      // In an open loop a request waits up to 2 s: a stall of the path is
      // what it measures (a loss shows when a later request's answer
      // overtakes it, above).
      const Clock::time_point deadline =
          w.oldest().at + (open ? std::chrono::nanoseconds(RttTimeout::kMaxNs) : timeout());
      if (Clock::now() >= deadline) {
        give_up(w.oldest().seq, w.oldest().from, rto_);
        w.pop();
        continue;
      }
      wait.deadline = deadline;
    }
    // Open loop: the next request's time, unless it waits for room.
    if (open && run && !send_blocked && w.count < w.limit && (!quota_ || begun < quota_))
      wait.deadline = std::min(wait.deadline, sched_.due());
    return wait;
  }
}

// ---- UDP_RR server ----

UdpRrServerFlow::UdpRrServerFlow(net::Fd fd, uint32_t req, uint32_t resp)
    : fd_(std::move(fd)),
      in_(std::make_unique<char[]>(std::max<uint32_t>(req, 65536))),
      out_(std::make_unique<char[]>(std::max<uint32_t>(resp, 8))),  // copy_upto8 needs 8
      req_(req),
      resp_(resp) {
  std::memset(out_.get(), 'v', std::max<uint32_t>(resp, 8));
}

Wait UdpRrServerFlow::step(PhaseRef phase, Clock::time_point now) noexcept {
  const int fd = fd_.get();
  if (load(phase) == Phase::kAbort) return finished();
  bool draining = drain_.update(phase, now);
  const uint32_t copy = std::min<uint32_t>({req_, resp_, 8});
  const uint64_t mask = first_bytes_mask(copy);
  char* const in = in_.get();
  char* const out = out_.get();
  const uint32_t cap = std::max<uint32_t>(req_, 65536), resp = resp_;
  // Answered requests, added to the counters in batches (sized by pace
  // when the loop blocks).
  rr::Batch batch(now, blocking_ ? 1 : rr::Batch::kMost);
  for (;;) {
    if (batch.due()) {
      if (blocking_)
        batch.publish(counters, resp, rr::now());
      else
        batch.flush(counters, resp);
    }
    if (load(phase) == Phase::kAbort) break;
    sockaddr_storage from;  // recvfrom fills it in (fromlen says how much)
    socklen_t fromlen = sizeof from;
    // Draining, never block: the quiet period is timed by the worker.
    ssize_t n = net::data::recvfrom(fd, in, cap, draining ? MSG_DONTWAIT : 0,
                                    reinterpret_cast<sockaddr*>(&from), &fromlen);
    if (n >= 0) [[likely]] {
      if (n == 0 && end_on_empty) break;
      // Only the drain's quiet spell needs arrival times.
      if (draining) drain_.arrived(Clock::now());
      // The client's sequence number, as much of it as both messages hold.
      copy_upto8(
          out, in,
          static_cast<uint32_t>(n) >= copy ? mask : first_bytes_mask(static_cast<uint32_t>(n)));
      ssize_t m = net::data::sendto(fd, out, resp, 0, reinterpret_cast<sockaddr*>(&from), fromlen);
      if (m >= 0) {
        batch.add(static_cast<uint64_t>(n));  // a datagram in and one out: a transaction
      } else {
        count_received(counters, n);
        counters.send_errors.add(1);
      }
      continue;
    }
    int err = errno;
    if (err == EINTR) {  // woken: a phase change is why, as a rule
      draining = drain_.update(phase, Clock::now());
      continue;
    }
    batch.flush(counters, resp);
    if (!again(err) && err != ECONNREFUSED) return fail("recv failed", err);
    if (draining) return drain_.next(fd, counters.datagrams_recv.get());
    return wait_read(fd);
  }
  batch.flush(counters, resp);
  return finished();
}

}  // namespace flowperf::engine
