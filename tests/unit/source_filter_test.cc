// net::accept_only_from: the kernel drops packets from other source
// addresses before a UDP socket queues them or a TCP listener answers their
// SYNs. 127.0.0.3 stands in for a stranger (all of 127/8 is loopback).
#include "net/source_filter.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "core/error.h"
#include "net/sys.h"

namespace flowperf::net {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

Address address(const std::string& host, uint16_t port = 0) {
  const IpFamily f = host.find(':') != std::string::npos ? IpFamily::kV6 : IpFamily::kV4;
  return resolve(host, port, f, SOCK_DGRAM).front();
}

// A UDP socket on host (port 0); "::" is dual-stack.
Fd udp_on(const std::string& host) {
  const Address a = address(host);
  Fd fd(::socket(a.family(), SOCK_DGRAM | SOCK_CLOEXEC, 0));
  EXPECT_TRUE(fd.valid());
  int zero = 0;
  if (a.family() == AF_INET6) ::setsockopt(fd.get(), IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
  EXPECT_EQ(::bind(fd.get(), a.sa(), a.len), 0) << host;
  return fd;
}

void send_from(const std::string& from, const std::string& to, uint16_t port,
               const std::string& what) {
  Fd s = udp_on(from);
  const Address dst = address(to, port);
  EXPECT_EQ(::sendto(s.get(), what.data(), what.size(), 0, dst.sa(), dst.len),
            static_cast<ssize_t>(what.size()))
      << from << " -> " << to;
}

// Every datagram that came: the last one sent ("last") is waited for, then
// the queue is emptied. Loopback keeps one sender's order, so whatever was
// sent before it and let in is queued ahead of it.
std::vector<std::string> received(int fd) {
  std::vector<std::string> got;
  for (auto end = Clock::now() + 2s; Clock::now() < end;) {
    char buf[64];
    const ssize_t n = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n >= 0) {
      got.emplace_back(buf, static_cast<size_t>(n));
      if (got.back() == "last") break;
    } else {
      sys::wait_readable(fd, Clock::now() + 100ms);
    }
  }
  std::sort(got.begin(), got.end());
  return got;
}

using Strings = std::vector<std::string>;

TEST(SourceFilter, UdpTakesDatagramsFromThePeerOnly) {
  Fd open = udp_on("127.0.0.1"), only = udp_on("127.0.0.1");
  accept_only_from(only.get(), address("127.0.0.1", 9));  // the port is not compared
  for (int fd : {open.get(), only.get()}) {
    send_from("127.0.0.3", "127.0.0.1", local_address(fd).port(), "stranger");
    send_from("127.0.0.1", "127.0.0.1", local_address(fd).port(), "last");
  }
  EXPECT_EQ(received(open.get()), (Strings{"last", "stranger"}));  // what the filter prevents
  EXPECT_EQ(received(only.get()), (Strings{"last"}));
}

TEST(SourceFilter, AnIpv4MappedPeerMatchesIpv4PacketsOnADualStackSocket) {
  Fd fd = udp_on("::");
  accept_only_from(fd.get(), address("::ffff:127.0.0.1"));
  const uint16_t port = local_address(fd.get()).port();
  send_from("127.0.0.3", "127.0.0.1", port, "stranger");
  send_from("::1", "::1", port, "ipv6");
  send_from("127.0.0.1", "127.0.0.1", port, "last");
  EXPECT_EQ(received(fd.get()), (Strings{"last"}));
}

TEST(SourceFilter, AnIpv6PeerMatchesItsAddressOnly) {
  Fd fd = udp_on("::");
  accept_only_from(fd.get(), address("::1"));
  const uint16_t port = local_address(fd.get()).port();
  send_from("127.0.0.1", "127.0.0.1", port, "ipv4");
  send_from("::1", "::1", port, "last");
  EXPECT_EQ(received(fd.get()), (Strings{"last"}));
}

TEST(SourceFilter, ATcpListenerNeverAnswersAStrangersSyn) {
  Fd listener = bind_socket(address("127.0.0.1"), SOCK_STREAM);
  accept_only_from(listener.get(), address("127.0.0.1"));
  const Address to = address("127.0.0.1", local_address(listener.get()).port());
  int err = 0;
  const Address stranger = address("127.0.0.3");
  Fd refused = connect_tcp(to, Clock::now() + 300ms, &err, nullptr, nullptr, &stranger);
  EXPECT_FALSE(refused.valid()) << "a connection from 127.0.0.3 was answered";
  Fd welcome = connect_tcp(to, Clock::now() + 2s, &err);
  EXPECT_TRUE(welcome.valid()) << err;
}

TEST(SourceFilter, AnAddressWithoutAFamilyIsRefused) {
  Fd fd = udp_on("127.0.0.1");
  EXPECT_THROW(accept_only_from(fd.get(), Address{}), Error);
}

}  // namespace
}  // namespace flowperf::net
