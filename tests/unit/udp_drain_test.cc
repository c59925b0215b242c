// The end of a UDP test on the receiving side. Once the sender has
// stopped, a UDP receiver cannot see an end of file: it waits for a quiet
// spell (50 ms) in case datagrams are still on the way. When the client
// says how many datagrams each flow sent (`stop.sent`), a receiver that has
// them all ends its drain at once, and one that lacks any still waits.
// The flows are stepped by hand here, with no worker, so nothing depends on
// timing: a step that returns a wait instead of "done" is the quiet spell.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "engine/rr_flows.h"
#include "engine/stream_flows.h"
#include "net/fd.h"
#include "support/net.h"

namespace flowperf::engine {
namespace {

// Sends n datagrams of `size` bytes, each starting with its sequence number.
void send_datagrams(int fd, uint64_t n, uint32_t size) {
  char buf[64] = {};
  ASSERT_LE(size, sizeof buf);
  for (uint64_t seq = 0; seq < n; ++seq) {
    std::memcpy(buf, &seq, sizeof seq);
    ASSERT_EQ(::send(fd, buf, size, 0), static_cast<ssize_t>(size));
  }
}

// Receives the server flow's answers so that its socket pair stays clean.
uint64_t drain_answers(int fd) {
  char buf[64];
  uint64_t n = 0;
  while (::recv(fd, buf, sizeof buf, MSG_DONTWAIT) >= 0) ++n;
  return n;
}

enum class Told { kNothing, kAll, kOneMore };

uint64_t expectation(Told told, uint64_t sent) { return told == Told::kAll ? sent : sent + 1; }

// Steps a receiving flow through a test of `sent` datagrams: the run phase
// takes them in, then the drain begins with the expectation set (or not).
// Says whether the first drain step finished the flow, and whether the
// machine stalled so long between the two steps that the quiet spell itself
// may have passed (a finish then proves nothing).
struct DrainStep {
  bool done = false;
  bool stalled = false;
};

DrainStep drain_ends_at_once(Flow& flow, Told told, uint64_t sent) {
  std::atomic<Phase> phase{Phase::kRun};
  flow.set_mode(false);  // non-blocking: a step reads what is queued and returns
  EXPECT_FALSE(flow.step(phase, Clock::now()).done);
  const Clock::time_point last_in = Clock::now();
  EXPECT_EQ(flow.counters.datagrams_recv.get(), sent);
  if (told != Told::kNothing) flow.expect_datagrams(expectation(told, sent));
  phase.store(Phase::kDrain);
  const bool done = flow.step(phase, Clock::now()).done;
  return {done, Clock::now() - last_in >= std::chrono::milliseconds(40)};
}

class UdpDrain : public ::testing::TestWithParam<Told> {};

TEST_P(UdpDrain, StreamReceiverEndsOnlyWhenEverythingSentIsIn) {
  net::Fd rx, tx;
  ASSERT_TRUE(testing::udp_pair(rx, tx));
  const int sender = tx.get();
  UdpRecvFlow flow(std::move(rx), 64);
  send_datagrams(sender, 5, 64);
  const DrainStep r = drain_ends_at_once(flow, GetParam(), 5);
  if (GetParam() == Told::kAll) {
    EXPECT_TRUE(r.done);
  } else if (!r.stalled) {
    EXPECT_FALSE(r.done) << "finished with a datagram still missing (or never announced)";
  }
}

TEST_P(UdpDrain, RrServerEndsOnlyWhenEveryRequestIsIn) {
  net::Fd server, client;
  ASSERT_TRUE(testing::udp_pair(server, client));
  const int c = client.get();
  UdpRrServerFlow flow(std::move(server), 8, 8);
  send_datagrams(c, 7, 8);
  const DrainStep r = drain_ends_at_once(flow, GetParam(), 7);
  if (GetParam() == Told::kAll) {
    EXPECT_TRUE(r.done);
  } else if (!r.stalled) {
    EXPECT_FALSE(r.done) << "finished with a datagram still missing (or never announced)";
  }
  EXPECT_EQ(flow.counters.transactions.get(), 7u);
  EXPECT_EQ(drain_answers(c), 7u);
}

INSTANTIATE_TEST_SUITE_P(Told, UdpDrain,
                         ::testing::Values(Told::kNothing, Told::kAll, Told::kOneMore),
                         [](const ::testing::TestParamInfo<Told>& i) {
                           return i.param == Told::kNothing ? std::string("NotTold")
                                  : i.param == Told::kAll   ? std::string("ToldAll")
                                                            : std::string("ToldOneMore");
                         });

}  // namespace
}  // namespace flowperf::engine
