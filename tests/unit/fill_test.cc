// A fill file's bytes (TestSpec::fill_file, netperf -F) are what the
// client's flows send: every request of TCP_RR (also after responses have
// come into the same flow) and UDP_RR, and every UDP_STREAM datagram, past
// the bytes each protocol keeps for itself (sequence numbers, time stamps).
// The flows run on a real Side against a scripted peer on a socket pair.
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "engine/rr_flows.h"
#include "engine/stream_flows.h"
#include "engine/worker.h"
#include "net/fd.h"

namespace flowperf::engine {
namespace {

using namespace std::chrono_literals;

std::pair<net::Fd, net::Fd> Pair(int type) {
  int sv[2];
  EXPECT_EQ(::socketpair(AF_UNIX, type | SOCK_CLOEXEC, 0, sv), 0);
  return {net::Fd(sv[0]), net::Fd(sv[1])};
}

// `pattern` repeated over n bytes.
std::string Repeated(const std::string& pattern, size_t n) {
  std::string s;
  while (s.size() < n) s += pattern;
  s.resize(n);
  return s;
}

// Runs one flow on a side of its own until it finishes (or 10 s pass).
void RunAlone(std::unique_ptr<Flow> flow) {
  std::vector<std::unique_ptr<Flow>> flows;
  flows.push_back(std::move(flow));
  Side side(std::move(flows), 1);
  side.launch();
  side.go();
  EXPECT_TRUE(side.wait_finished(Clock::now() + 10s));
  side.set_phase(Phase::kAbort);
  side.join();
  EXPECT_EQ(side.flows()[0]->error, "");
}

TEST(Fill, EveryTcpRrRequestCarriesTheFill) {
  auto [client, peer] = Pair(SOCK_STREAM);
  constexpr uint32_t kReq = 8, kResp = 5;
  std::vector<std::string> requests;
  std::thread answer([&, fd = peer.get()] {
    for (;;) {
      char req[kReq];
      size_t got = 0;
      while (got < kReq) {
        ssize_t n = ::recv(fd, req + got, kReq - got, 0);
        if (n <= 0) {  // the client's end of the test: answer with ours
          ::shutdown(fd, SHUT_WR);
          return;
        }
        got += static_cast<size_t>(n);
      }
      requests.emplace_back(req, kReq);
      if (::send(fd, "ZZZZZ", kResp, MSG_NOSIGNAL) != kResp) return;
    }
  });
  RunAlone(std::make_unique<TcpRrClientFlow>(std::move(client), kReq, kResp, 3, "PQR"));
  ::shutdown(peer.get(), SHUT_RDWR);
  answer.join();
  ASSERT_EQ(requests.size(), 3u);
  for (const auto& r : requests) EXPECT_EQ(r, "PQRPQRPQ");
}

TEST(Fill, UdpRrRequestsCarryTheFillPastTheSequenceNumber) {
  auto [client, peer] = Pair(SOCK_DGRAM);
  constexpr uint32_t kReq = 20, kResp = 8;
  std::vector<std::string> requests;
  std::atomic<bool> done{false};
  // Answers until the client is done: a request whose answer came after
  // its (short) timeout is sent again, so three transactions may take more
  // than three requests on a slow machine (a sanitizer build).
  std::thread answer([&, fd = peer.get()] {
    while (!done.load()) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      char req[64];
      ssize_t n = ::recv(fd, req, sizeof req, 0);
      if (n <= 0) return;
      requests.emplace_back(req, static_cast<size_t>(n));
      ::send(fd, req, kResp, 0);  // echoes the sequence number
    }
  });
  RunAlone(
      std::make_unique<UdpRrClientFlow>(std::move(client), kReq, kResp, 3, 50us, "0123456789"));
  done.store(true);
  answer.join();
  ASSERT_GE(requests.size(), 3u);
  const std::string want = Repeated("0123456789", kReq);
  for (const auto& r : requests) {
    ASSERT_EQ(r.size(), kReq);
    EXPECT_EQ(r.substr(8), want.substr(8));  // the first 8 bytes: the sequence number
  }
}

TEST(Fill, UdpStreamDatagramsCarryTheFillPastTheHeader) {
  auto [client, peer] = Pair(SOCK_DGRAM);
  constexpr uint32_t kSize = 40;
  RunAlone(
      std::make_unique<UdpSendFlow>(std::move(client), kSize, 4 * kSize, 0, UdpBatching{2}, "abc"));
  const std::string want = Repeated("abc", kSize);
  int datagrams = 0;
  char buf[128];
  for (ssize_t n; (n = ::recv(peer.get(), buf, sizeof buf, MSG_DONTWAIT)) > 0; ++datagrams) {
    ASSERT_EQ(n, kSize);
    EXPECT_EQ(std::string(buf + kUdpHeaderBytes, kSize - kUdpHeaderBytes),
              want.substr(kUdpHeaderBytes));
  }
  EXPECT_EQ(datagrams, 4);
}

}  // namespace
}  // namespace flowperf::engine
