// A UDP receiver alone on a worker blocks in its receive, and no peer ever
// ends a UDP stream: when the phase moves on, Side wakes that worker with a
// signal. Here the socket's receive timeout (the fallback wake-up) is
// taken away, so a flow that is not woken never ends; the test asserts
// that it ends, and only bounds the wait to keep a failure from hanging.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "engine/rr_flows.h"
#include "engine/stream_flows.h"
#include "engine/worker.h"
#include "net/fd.h"

namespace flowperf::engine {
namespace {

using namespace std::chrono_literals;

struct Udp {
  net::Fd server, client;  // client is connected to server
  int server_copy = -1;    // a second descriptor of the server's socket
};

Udp MakeUdp() {
  Udp u;
  u.server = net::Fd(::socket(AF_INET, SOCK_DGRAM, 0));
  u.client = net::Fd(::socket(AF_INET, SOCK_DGRAM, 0));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  EXPECT_EQ(::bind(u.server.get(), reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  EXPECT_EQ(::getsockname(u.server.get(), reinterpret_cast<sockaddr*>(&a), &len), 0);
  EXPECT_EQ(::connect(u.client.get(), reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  u.server_copy = ::dup(u.server.get());
  return u;
}

// Removes the receive timeout the worker set, then gives the worker time
// to finish the receive that still has it and enter one without.
void BlockForever(int fd) {
  timeval none{0, 0};
  ASSERT_EQ(::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &none, sizeof none), 0);
  std::this_thread::sleep_for(150ms);
}

// One flow alone on one worker (so it blocks), started.
std::unique_ptr<Side> Started(std::unique_ptr<Flow> flow) {
  std::vector<std::unique_ptr<Flow>> flows;
  flows.push_back(std::move(flow));
  auto side = std::make_unique<Side>(std::move(flows), 1);
  side->launch();
  side->go();
  return side;
}

// Drains, expecting `expected` datagrams in all; true when every flow ended.
bool DrainEnds(Side& side, Flow& flow, uint64_t expected, int client) {
  flow.expect_datagrams(expected);
  side.set_phase(Phase::kDrain);
  bool ended = side.wait_finished(Clock::now() + 10s);
  if (!ended) {  // not woken: a datagram gets it out of its receive for the join
    side.set_phase(Phase::kAbort);
    char c = 0;
    [[maybe_unused]] ssize_t n = ::send(client, &c, 1, 0);
  }
  side.join();
  return ended;
}

TEST(PhaseWake, UdpRrServerBlockedInRecvIsWoken) {
  Udp u = MakeUdp();
  auto owned = std::make_unique<UdpRrServerFlow>(std::move(u.server), 1, 1);
  UdpRrServerFlow& flow = *owned;
  auto side = Started(std::move(owned));
  // One transaction: the worker is in its blocking loop.
  char c = 1;
  ASSERT_EQ(::send(u.client.get(), &c, 1, 0), 1);
  ASSERT_EQ(::recv(u.client.get(), &c, 1, 0), 1);
  BlockForever(u.server_copy);
  EXPECT_TRUE(DrainEnds(*side, flow, 1, u.client.get()));
  EXPECT_EQ(flow.counters.transactions.get(), 1u);
  EXPECT_TRUE(flow.error.empty()) << flow.error;
  ::close(u.server_copy);
}

TEST(PhaseWake, UdpStreamReceiverBlockedInRecvIsWoken) {
  for (uint32_t batch : {1u, 32u}) {  // recv, recvmmsg
    SCOPED_TRACE(batch);
    Udp u = MakeUdp();
    auto owned = std::make_unique<UdpRecvFlow>(std::move(u.server), 2048, UdpBatching{batch});
    UdpRecvFlow& flow = *owned;
    auto side = Started(std::move(owned));
    char d[64] = {};
    ASSERT_EQ(::send(u.client.get(), d, sizeof d, 0), 64);
    for (int i = 0; i < 200 && flow.counters.datagrams_recv.get() == 0; ++i)
      std::this_thread::sleep_for(5ms);
    ASSERT_EQ(flow.counters.datagrams_recv.get(), 1u);
    BlockForever(u.server_copy);
    EXPECT_TRUE(DrainEnds(*side, flow, 1, u.client.get()));
    EXPECT_EQ(flow.counters.datagrams_recv.get(), 1u);
    ::close(u.server_copy);
  }
}

}  // namespace
}  // namespace flowperf::engine
