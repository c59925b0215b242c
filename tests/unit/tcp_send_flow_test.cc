// The TCP sender flow on a real loopback connection: with --sendfile the
// bytes on the wire come from its in-memory file, not its user buffer (the
// test writes a marker into the file the flow reads and finds it at the
// receiver), and the books are the same as with send().
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <string>

#include "engine/stream_flows.h"
#include "net/fd.h"

namespace flowperf::engine {
namespace {

// A connected loopback TCP pair: {sender, receiver}.
std::pair<net::Fd, net::Fd> Connected() {
  net::Fd listener(::socket(AF_INET, SOCK_STREAM, 0));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  EXPECT_EQ(::bind(listener.get(), reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  EXPECT_EQ(::listen(listener.get(), 1), 0);
  EXPECT_EQ(::getsockname(listener.get(), reinterpret_cast<sockaddr*>(&a), &len), 0);
  net::Fd client(::socket(AF_INET, SOCK_STREAM, 0));
  EXPECT_EQ(::connect(client.get(), reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  net::Fd server(::accept(listener.get(), nullptr, nullptr));
  EXPECT_TRUE(server.valid());
  return {std::move(client), std::move(server)};
}

// Steps the flow (non-blocking socket) while reading everything the peer
// gets, until the flow has shut down its side; returns what was read.
std::string SendAll(TcpSendFlow& flow, int peer) {
  std::atomic<Phase> phase{Phase::kRun};
  std::string got;
  char buf[65536];
  for (int turns = 0; turns < 100000; ++turns) {
    Wait w = flow.step(phase, Clock::now());
    EXPECT_TRUE(flow.error.empty()) << flow.error;
    if (w.done) break;
    pollfd p{peer, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    ssize_t n = ::recv(peer, buf, sizeof buf, 0);
    if (n > 0) got.append(buf, static_cast<size_t>(n));
    if (n == 0) {  // the flow's end of stream: answer with ours, as a receiver does
      ::shutdown(peer, SHUT_WR);
    }
  }
  return got;
}

TEST(TcpSendFlow, SendfileSendsTheFileNotTheBuffer) {
  auto [tx, rx] = Connected();
  constexpr uint32_t kSize = 4096;
  TcpSendFlow flow(std::move(tx), kSize, 3 * kSize, /*from_file=*/true);
  flow.set_mode(false);
  ASSERT_GE(flow.source_fd(), 0);
  // The flow's user buffer holds 'a'..'z'; the marker is only in the file.
  const char marker[] = "FROM-THE-FILE";
  ASSERT_EQ(::pwrite(flow.source_fd(), marker, sizeof marker - 1, 0),
            static_cast<ssize_t>(sizeof marker - 1));
  std::string got = SendAll(flow, rx.get());
  ASSERT_EQ(got.size(), 3u * kSize);
  // Every call sends from the start of the file, so the marker leads each send.
  for (uint32_t off = 0; off < got.size(); off += kSize)
    EXPECT_EQ(got.compare(off, sizeof marker - 1, marker), 0) << "at " << off;
  EXPECT_EQ(flow.counters.bytes_sent.get(), 3u * kSize);
  EXPECT_EQ(flow.counters.send_calls.get(), 3u);
}

TEST(TcpSendFlow, WithoutSendfileTheBufferIsSent) {
  auto [tx, rx] = Connected();
  TcpSendFlow flow(std::move(tx), 1000, 2500);
  flow.set_mode(false);
  EXPECT_EQ(flow.source_fd(), -1);
  std::string got = SendAll(flow, rx.get());
  ASSERT_EQ(got.size(), 2500u);  // the last send is cut to the quota
  EXPECT_EQ(got.substr(0, 3), "abc");
  EXPECT_EQ(flow.counters.bytes_sent.get(), 2500u);
}

TEST(TcpSendFlow, SendfileCutsTheLastSendToTheQuota) {
  auto [tx, rx] = Connected();
  TcpSendFlow flow(std::move(tx), 1000, 2500, /*from_file=*/true);
  flow.set_mode(false);
  std::string got = SendAll(flow, rx.get());
  ASSERT_EQ(got.size(), 2500u);
  EXPECT_EQ(got.substr(2000, 3), "abc");  // the file holds the same pattern
  EXPECT_EQ(flow.counters.bytes_sent.get(), 2500u);
}

// A fill file's bytes (netperf -F) are what is sent, repeated, from the
// buffer or from the sendfile file alike.
TEST(TcpSendFlow, FillBytesAreSent) {
  for (bool from_file : {false, true}) {
    SCOPED_TRACE(from_file ? "sendfile" : "send");
    auto [tx, rx] = Connected();
    TcpSendFlow flow(std::move(tx), 1000, 2000, from_file, "0123456");
    flow.set_mode(false);
    std::string got = SendAll(flow, rx.get());
    ASSERT_EQ(got.size(), 2000u);
    std::string want;
    while (want.size() < 1000) want += "0123456";
    want.resize(1000);
    EXPECT_EQ(got, want + want);
  }
}

TEST(FillWith, RepeatsThePatternOrLeavesTheBufferAlone) {
  char buf[10];
  std::memset(buf, 'x', sizeof buf);
  fill_with(buf, sizeof buf, "");
  EXPECT_EQ(std::string(buf, sizeof buf), "xxxxxxxxxx");
  fill_with(buf, 9, "abcd");
  EXPECT_EQ(std::string(buf, sizeof buf), "abcdabcdax");
}

}  // namespace
}  // namespace flowperf::engine
