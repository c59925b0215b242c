// The UDP_RR client flow against a scripted peer in process: its wait for
// an answer (a blocking recv when alone on a worker, ppoll or epoll
// otherwise) must keep the books exact whatever the peer does: answer at
// once, answer too late, or fall silent. No timing is asserted beyond
// "finishes at all" (speed is bench/'s business).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <thread>
#include <vector>

#include "engine/rr_flows.h"
#include "engine/worker.h"
#include "net/fd.h"

namespace flowperf::engine {
namespace {

using namespace std::chrono_literals;

// What the peer does with request number seq: answer after this long, or
// never (a negative delay).
using Policy = std::function<std::chrono::microseconds(uint64_t seq)>;
constexpr std::chrono::microseconds kNever{-1};

// A UDP peer on one end of a socket pair, answering each 8-byte request
// with its sequence number, when and whether the policy says.
class Peer {
 public:
  Peer(net::Fd fd, Policy policy) : fd_(std::move(fd)), policy_(std::move(policy)) {
    thread_ = std::thread([this] { run(); });
  }
  ~Peer() { stop(); }
  void stop() {
    stop_.store(true);
    if (thread_.joinable()) thread_.join();
  }
  uint64_t answered() const { return answered_.load(); }

 private:
  void run() {
    std::multimap<Clock::time_point, uint64_t> held;  // answers due later
    while (!stop_.load()) {
      Clock::time_point now = Clock::now();
      while (!held.empty() && held.begin()->first <= now) {
        answer(held.begin()->second);
        held.erase(held.begin());
      }
      int ms = 10;
      if (!held.empty())
        ms = static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(
                                  std::max(held.begin()->first - now, Clock::duration::zero()))
                                  .count());
      pollfd p{fd_.get(), POLLIN, 0};
      if (::poll(&p, 1, std::min(ms, 10)) <= 0) continue;
      uint64_t seq = 0;
      ssize_t n = ::recv(fd_.get(), &seq, sizeof seq, MSG_DONTWAIT);
      if (n < 0) continue;
      auto d = policy_(seq);
      if (d == std::chrono::microseconds::zero())
        answer(seq);
      else if (d > std::chrono::microseconds::zero())
        held.emplace(Clock::now() + d, seq);
    }
  }
  void answer(uint64_t seq) {
    if (::send(fd_.get(), &seq, sizeof seq, 0) == sizeof seq) answered_.fetch_add(1);
  }

  net::Fd fd_;
  Policy policy_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> answered_{0};
  std::thread thread_;
};

// Two UDP sockets on 127.0.0.1 connected to each other.
bool udp_pair(int sv[2]) {
  sockaddr_in a[2]{};
  for (int i = 0; i < 2; ++i) {
    sv[i] = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    a[i].sin_family = AF_INET;
    a[i].sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a[i];
    if (sv[i] < 0 || ::bind(sv[i], reinterpret_cast<sockaddr*>(&a[i]), sizeof a[i]) != 0 ||
        ::getsockname(sv[i], reinterpret_cast<sockaddr*>(&a[i]), &len) != 0)
      return false;
  }
  return ::connect(sv[0], reinterpret_cast<sockaddr*>(&a[1]), sizeof a[1]) == 0 &&
         ::connect(sv[1], reinterpret_cast<sockaddr*>(&a[0]), sizeof a[0]) == 0;
}

struct Pair {
  std::unique_ptr<Peer> peer;
  UdpRrClientFlow* flow = nullptr;
};

// n flows (each with its own peer) on one worker: one flow is driven alone
// (blocking recv), several share an epoll loop (exact timers only).
class UdpRrFlowTest : public ::testing::TestWithParam<int> {
 protected:
  void start(Policy policy, uint64_t quota, std::chrono::microseconds min_timeout = 50us) {
    std::vector<std::unique_ptr<Flow>> flows;
    for (int i = 0; i < GetParam(); ++i) {
      int sv[2];
      ASSERT_TRUE(udp_pair(sv));
      pairs_.push_back({std::make_unique<Peer>(net::Fd(sv[1]), policy), nullptr});
      auto f = std::make_unique<UdpRrClientFlow>(net::Fd(sv[0]), 8, 8, quota, min_timeout);
      pairs_.back().flow = f.get();
      flows.push_back(std::move(f));
    }
    side_ = std::make_unique<Side>(std::move(flows), 1);
    side_->launch();
    side_->go();
  }
  // Ends the test (when asked) and waits for every flow; the bound only
  // guards against a hang.
  void finish(bool drain) {
    if (drain) side_->set_phase(Phase::kDrain);
    ASSERT_TRUE(side_->wait_finished(Clock::now() + 30s));
    side_->join();
  }
  // The books every flow must keep: each request completed or timed out;
  // each answer received completed its request or came late, and only a
  // request that timed out can be answered late.
  void expect_exact_books() {
    for (auto& p : pairs_) {
      p.peer->stop();
      const FlowCounters& c = p.flow->counters;
      EXPECT_TRUE(p.flow->error.empty()) << p.flow->error;
      EXPECT_EQ(c.datagrams_sent.get(), c.transactions.get() + c.timeouts.get());
      EXPECT_EQ(c.datagrams_recv.get(), c.transactions.get() + c.late.get());
      EXPECT_EQ(c.duplicates.get(), 0u) << "an answer matched no request given up on";
      EXPECT_LE(c.late.get(), c.timeouts.get());
      EXPECT_LE(c.datagrams_recv.get(), p.peer->answered());
    }
  }
  bool alone() const { return GetParam() == 1; }

  std::vector<Pair> pairs_;
  std::unique_ptr<Side> side_;
};

// A timeout of at least a second: nothing times out, however loaded the
// machine, so the flow alone on its worker blocks in recv for its answers
// from its 65th request on (SO_RCVTIMEO is a jiffy, far shorter than the
// timeout: the waits that end at a tick go on exactly).
TEST_P(UdpRrFlowTest, AnswersAtOnceCompleteEveryTransaction) {
  start([](uint64_t) { return std::chrono::microseconds::zero(); }, 5000, 1'000'000us);
  finish(false);
  expect_exact_books();
  for (auto& p : pairs_) {
    EXPECT_EQ(p.flow->counters.transactions.get(), 5000u);
    EXPECT_EQ(p.flow->counters.timeouts.get(), 0u);
    EXPECT_EQ(p.flow->coarse_waits(), alone() ? 5000u - 64 : 0u);
  }
}

// The peer answers 3000 requests, then never again: the flow, blocking in
// recv by then, times out every later request and still ends when asked.
TEST_P(UdpRrFlowTest, SilentPeerCountsTimeoutsAndEndsWhenAsked) {
  start([](uint64_t seq) { return seq <= 3000 ? std::chrono::microseconds::zero() : kNever; }, 0);
  // Until the peer has fallen silent and some requests have timed out.
  const auto give_up = Clock::now() + 30s;
  for (auto& p : pairs_)
    while (p.flow->counters.timeouts.get() < 3 && Clock::now() < give_up)
      std::this_thread::sleep_for(1ms);
  finish(true);
  expect_exact_books();
  for (auto& p : pairs_) {
    const FlowCounters& c = p.flow->counters;
    EXPECT_LE(c.transactions.get(), 3000u);
    EXPECT_GE(c.timeouts.get(), 3u);
  }
}

// Every 1000th request is answered 2 ms late, long after the timeout the
// round trip gives (tens of microseconds here; alone on its worker, the
// flow is usually blocked in recv when such an answer comes, before its
// coarse SO_RCVTIMEO ends), while the others are answered at once. The
// first delayed request times out and its answer counts as late, never as
// a transaction, but its round trip is in the histogram, from its request's
// send; that answer raises the timeout's floor to twice its round trip
// (over 4 ms), so the later delayed requests are waited for: transactions
// of 2 ms. Either way every delayed answer is in the histogram at 2 ms or
// more. A busy machine adds timeouts of its own (a stall past the floor),
// each of which doubles the floor: a few, never one per delayed request.
TEST_P(UdpRrFlowTest, LateAnswersAreTimedFromTheirRequestAndRaiseTheFloor) {
  start(
      [](uint64_t seq) {
        return seq % 1000 == 0 ? std::chrono::microseconds(2'000) : std::chrono::microseconds(0);
      },
      8000);
  finish(false);
  expect_exact_books();
  for (size_t i = 0; i < pairs_.size(); ++i) {
    const FlowCounters& c = pairs_[i].flow->counters;
    EXPECT_EQ(c.transactions.get(), 8000u);
    EXPECT_GE(c.timeouts.get(), 1u);
    EXPECT_GE(c.late.get(), 1u);
    // Requests 1000 to 7000 were sent and answered while the flow ran (it
    // completed 8000 transactions, so it sent at least request 8000).
    EXPECT_LT(c.timeouts.get(), 7u) << "each delayed request timed out: the floor did not rise";
    const measure::Histogram* h = side_->flow_histogram(i);
    ASSERT_NE(h, nullptr);
    EXPECT_EQ(h->count(), c.transactions.get() + c.late.get());
    uint64_t slow = 0;                          // samples of 2 ms or more
    for (const auto& b : h->nonzero_buckets())  // a bucket's width below 2 ms
      if (measure::Histogram::bucket_high(b.index) >= 2'000'000) slow += b.count;
    EXPECT_GE(slow, 7u);
    EXPECT_GE(pairs_[i].flow->timeout(), 4ms);
  }
}

std::string driver_name(const ::testing::TestParamInfo<int>& p) {
  return p.param == 1 ? "AloneBlocking" : "EpollShared";
}

INSTANTIATE_TEST_SUITE_P(Drivers, UdpRrFlowTest, ::testing::Values(1, 2), driver_name);

}  // namespace
}  // namespace flowperf::engine
