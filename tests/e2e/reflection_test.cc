// No reflection, through every front end's server, unauthenticated: a UDP
// test's data socket answers only the address of its control connection,
// and iperf3's UDP stream hello is taken only from it. A datagram from
// 127.0.0.2 (another host, as far as the server can tell) to the data port
// of a running UDP_RR or udp_lat test gets no answer, where before it got
// the full response size back (a 0-byte request, a 60,000-byte answer); an
// iperf3 reverse UDP test cannot be aimed at 127.0.0.2 by a hello from it.
#include <arpa/inet.h>
#include <dirent.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "net/fd.h"
#include "proto/iperf3_wire.h"
#include "support/net.h"
#include "support/paths.h"
#include "support/ports.h"
#include "support/process.h"

namespace flowperf::testing {
namespace {

using namespace std::chrono_literals;

// The local ports of the UDP sockets process `pid` holds (from its
// descriptors' inodes and /proc/net/udp{,6}).
std::set<uint16_t> udp_ports_of(pid_t pid) {
  std::set<std::string> inodes;
  const std::string fds = "/proc/" + std::to_string(pid) + "/fd";
  if (DIR* d = ::opendir(fds.c_str())) {
    while (dirent* e = ::readdir(d)) {
      char target[128];
      const ssize_t n = ::readlink((fds + "/" + e->d_name).c_str(), target, sizeof target - 1);
      if (n <= 0) continue;
      const std::string t(target, static_cast<size_t>(n));
      if (t.rfind("socket:[", 0) == 0) inodes.insert(t.substr(8, t.size() - 9));
    }
    ::closedir(d);
  }
  std::set<uint16_t> ports;
  for (const char* table : {"/proc/net/udp", "/proc/net/udp6"}) {
    std::ifstream f(table);
    std::string line;
    std::getline(f, line);  // the header
    while (std::getline(f, line)) {
      std::istringstream in(line);
      std::string sl, local, remote, st, queues, tr, retr, uid, timeout, inode;
      in >> sl >> local >> remote >> st >> queues >> tr >> retr >> uid >> timeout >> inode;
      if (!inodes.contains(inode)) continue;
      const size_t colon = local.rfind(':');
      if (colon == std::string::npos) continue;
      ports.insert(static_cast<uint16_t>(std::stoul(local.substr(colon + 1), nullptr, 16)));
    }
  }
  return ports;
}

// A UDP socket bound to `from` (an address on lo).
net::Fd udp_from(const char* from) {
  net::Fd fd(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  ::inet_pton(AF_INET, from, &a.sin_addr);
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) return net::Fd();
  return fd;
}

bool send_to(int fd, uint16_t port, const void* data, size_t n) {
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(port);
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return ::sendto(fd, data, n, 0, reinterpret_cast<sockaddr*>(&to), sizeof to) ==
         static_cast<ssize_t>(n);
}

// Bytes that arrive on fd within `wait` (0 when none).
size_t answer_within(int fd, std::chrono::milliseconds wait) {
  pollfd p{fd, POLLIN, 0};
  if (::poll(&p, 1, static_cast<int>(wait.count())) <= 0) return 0;
  char buf[65536];
  const ssize_t n = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT);
  return n > 0 ? static_cast<size_t>(n) : 0;
}

struct Front {
  std::string name;
  std::vector<std::string> server, client;  // "PORT" stands for the port
};

std::vector<std::string> with_port(std::vector<std::string> argv, const std::string& port) {
  for (auto& a : argv)
    if (a == "PORT") a = port;
  return argv;
}

class UdpAnswersOnlyItsClient : public ::testing::TestWithParam<Front> {};

TEST_P(UdpAnswersOnlyItsClient, ADatagramFromAnotherAddressGetsNoAnswer) {
  const Front& f = GetParam();
  const std::string port = std::to_string(free_port());
  Process server(with_port(f.server, port));
  ASSERT_TRUE(wait_accepting(static_cast<uint16_t>(std::stoi(port)))) << "the server did not start";
  const std::set<uint16_t> before = udp_ports_of(server.pid());
  Process client(with_port(f.client, port));
  // The test's data socket: a UDP socket the server holds now and did not
  // before the client came.
  std::set<uint16_t> data;
  for (int i = 0; i < 100 && data.empty(); ++i) {
    std::this_thread::sleep_for(50ms);
    for (uint16_t p : udp_ports_of(server.pid()))
      if (!before.contains(p)) data.insert(p);
  }
  ASSERT_FALSE(data.empty()) << "no UDP data socket appeared on the server";
  net::Fd stranger = udp_from("127.0.0.2");
  ASSERT_TRUE(stranger) << "cannot bind to 127.0.0.2";
  const char request[1] = {'x'};
  for (uint16_t p : data) {
    SCOPED_TRACE("data port " + std::to_string(p));
    for (int i = 0; i < 3; ++i) ASSERT_TRUE(send_to(stranger.get(), p, request, 0));
    ASSERT_TRUE(send_to(stranger.get(), p, request, sizeof request));
    EXPECT_EQ(answer_within(stranger.get(), 1000ms), 0u)
        << "the server answered a host that is not its client";
  }
  const Outcome o = client.wait(60s);
  EXPECT_EQ(o.exit_code, 0) << "the client's own test was disturbed: " << o.out << o.err;
}

INSTANTIATE_TEST_SUITE_P(
    Fronts, UdpAnswersOnlyItsClient,
    ::testing::Values(Front{"flowperf",
                            {flowperf_bin(), "server", "-p", "PORT", "-B", "127.0.0.1"},
                            {flowperf_bin(), "-H", "127.0.0.1", "-p", "PORT", "-t", "UDP_RR", "-l",
                             "4", "-r", "1,60000"}},
                      Front{"netperf",
                            {personality("netserver"), "-D", "-L", "127.0.0.1", "-p", "PORT"},
                            {personality("netperf"), "-H", "127.0.0.1", "-p", "PORT", "-t",
                             "UDP_RR", "-l", "4", "-P", "0"}},
                      Front{"qperf",
                            {personality("qperf"), "-lp", "PORT"},
                            {personality("qperf"), "127.0.0.1", "-lp", "PORT", "-t", "4",
                             "udp_lat"}}),
    [](const ::testing::TestParamInfo<Front>& i) { return i.param.name; });

namespace ip = proto::iperf3;

// The state byte an iperf3 server sends next on fd (-999: none).
int state_of(int fd) {
  int8_t s = 0;
  return ::recv(fd, &s, 1, MSG_WAITALL) == 1 ? s : -999;
}

// A raw iperf3 client's control connection to port, past its parameters
// (`p`): the server has said CREATE_STREAMS and waits for the streams.
// Invalid when the server answered otherwise.
net::Fd iperf3_test_waiting_for_streams(uint16_t port, const ip::Params& p, std::string* cookie) {
  net::Fd control = connect_loopback(port, std::chrono::seconds(10));
  *cookie = ip::make_cookie();
  if (!control ||
      ::send(control.get(), cookie->data(), cookie->size(), MSG_NOSIGNAL) !=
          static_cast<ssize_t>(cookie->size()) ||
      state_of(control.get()) != ip::kParamExchange)
    return net::Fd();
  const std::string json = ip::encode_params(p);
  const auto len = ip::length_prefix(static_cast<uint32_t>(json.size()));
  if (::send(control.get(), len.data(), len.size(), MSG_NOSIGNAL) != 4 ||
      ::send(control.get(), json.data(), json.size(), MSG_NOSIGNAL) !=
          static_cast<ssize_t>(json.size()) ||
      state_of(control.get()) != ip::kCreateStreams)
    return net::Fd();
  return control;
}

// iperf3 has no data port of its own for UDP: each stream says hello to the
// server's port, and the socket that heard it is connected to the sender.
// A hello from 127.0.0.2 while a reverse UDP test waits for its streams
// must not be taken (the test would send its datagrams there); the
// client's own hello, from 127.0.0.1, is answered.
TEST(Iperf3UdpHello, OnlyFromTheControlConnectionsAddress) {
  const uint16_t port = free_port();
  Process server({personality("iperf3"), "-s", "-p", std::to_string(port)});
  ASSERT_TRUE(wait_accepting(port));
  ip::Params p;
  p.udp = true;
  p.reverse = true;
  p.time = 2;
  p.len = 1000;
  p.bandwidth = 1000000;
  std::string cookie;
  net::Fd control = iperf3_test_waiting_for_streams(port, p, &cookie);
  ASSERT_TRUE(control) << "the server did not ask for the streams";
  net::Fd stranger = udp_from("127.0.0.2");
  ASSERT_TRUE(stranger);
  ASSERT_TRUE(send_to(stranger.get(), port, ip::kUdpHello, sizeof ip::kUdpHello));
  EXPECT_EQ(answer_within(stranger.get(), 1000ms), 0u) << "a stranger's hello was taken";
  net::Fd own = udp_from("127.0.0.1");
  ASSERT_TRUE(send_to(own.get(), port, ip::kUdpHello, sizeof ip::kUdpHello));
  EXPECT_EQ(answer_within(own.get(), 5000ms), sizeof ip::kUdpReply)
      << "the client's own hello was not answered";
  // The stranger gets none of the test's datagrams either.
  EXPECT_EQ(answer_within(stranger.get(), 500ms), 0u);
}

// iperf3's TCP data connections open with the test's cookie, which goes
// over the wire in the clear: one from another address than the control
// connection's is refused as a stray (a reverse test would otherwise send
// its data to whoever saw the cookie), and the client's own is taken.
TEST(Iperf3DataConnection, OnlyFromTheControlConnectionsAddress) {
  const uint16_t port = free_port();
  Process server({personality("iperf3"), "-s", "-p", std::to_string(port)});
  ASSERT_TRUE(wait_accepting(port));
  ip::Params p;
  p.reverse = true;
  p.time = 1;
  p.len = 1000;
  std::string cookie;
  net::Fd control = iperf3_test_waiting_for_streams(port, p, &cookie);
  ASSERT_TRUE(control) << "the server did not ask for the streams";
  // From 127.0.0.2, with the right cookie: refused as iperf3 refuses a
  // stray stream, and closed.
  net::Fd stranger(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in from{};
  from.sin_family = AF_INET;
  ::inet_pton(AF_INET, "127.0.0.2", &from.sin_addr);
  ASSERT_EQ(::bind(stranger.get(), reinterpret_cast<sockaddr*>(&from), sizeof from), 0);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(port);
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::connect(stranger.get(), reinterpret_cast<sockaddr*>(&to), sizeof to), 0);
  ASSERT_EQ(::send(stranger.get(), cookie.data(), cookie.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(cookie.size()));
  timeval tv{5, 0};
  ::setsockopt(stranger.get(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  EXPECT_EQ(state_of(stranger.get()), ip::kAccessDenied);
  // The client's own, from 127.0.0.1: taken, and the test starts.
  net::Fd own = connect_loopback(port, 5s);
  ASSERT_TRUE(own);
  ASSERT_EQ(::send(own.get(), cookie.data(), cookie.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(cookie.size()));
  EXPECT_EQ(state_of(control.get()), ip::kTestStart);
}

}  // namespace
}  // namespace flowperf::testing
