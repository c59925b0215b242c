// Unit tests for net::apply_socket_options (read back from real sockets
// with getsockopt), its failure report, and engine::socket_options(), the
// builder every end of every test takes its options from.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <string>

#include "engine/test_plan.h"
#include "net/fd.h"
#include "net/socket.h"
#include "spec/test_spec.h"
#include "support/net.h"

namespace flowperf::net {
namespace {

std::string get_cc(int fd) {
  char name[32] = {};
  socklen_t len = sizeof name;
  EXPECT_EQ(::getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name, &len), 0);
  return name;
}

Fd tcp_socket(int family = AF_INET) { return Fd(::socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0)); }

// TCP_CRR skips apply_socket_options() per connection when nothing is asked
// for: each option alone must count as something.
TEST(ApplySocketOptions, AnyIsTrueForEachOptionAlone) {
  EXPECT_FALSE(SocketOptions{}.any());
  auto with = [](auto set) {
    SocketOptions o;
    set(o);
    return o.any();
  };
  EXPECT_TRUE(with([](SocketOptions& o) { o.sndbuf = 65536; }));
  EXPECT_TRUE(with([](SocketOptions& o) { o.rcvbuf = 65536; }));
  EXPECT_TRUE(with([](SocketOptions& o) { o.nodelay = true; }));
  EXPECT_TRUE(with([](SocketOptions& o) { o.cork = true; }));
  EXPECT_TRUE(with([](SocketOptions& o) { o.tos = 0; }));
  EXPECT_TRUE(with([](SocketOptions& o) { o.priority = 0; }));
  EXPECT_TRUE(with([](SocketOptions& o) { o.keepalive = true; }));
  EXPECT_TRUE(with([](SocketOptions& o) { o.congestion = "reno"; }));
  EXPECT_TRUE(with([](SocketOptions& o) { o.mss = 1000; }));
  EXPECT_TRUE(with([](SocketOptions& o) { o.max_pacing_rate = 1000000; }));
  EXPECT_TRUE(with([](SocketOptions& o) { o.dont_fragment = true; }));
}

// iperf3's -M, --fq-rate and --dont-fragment, read back from the socket.
TEST(ApplySocketOptions, MssPacingAndDontFragmentReachTheSocket) {
  for (int family : {AF_INET, AF_INET6}) {
    SCOPED_TRACE(family == AF_INET ? "IPv4" : "IPv6");
    Fd fd = tcp_socket(family);
    ASSERT_TRUE(fd);
    SocketOptions o;
    o.mss = 1200;
    o.max_pacing_rate = 12500000;
    o.dont_fragment = true;
    // The address family decides which MTU option applies: bind first, as
    // connect_tcp() does before it applies the options.
    if (family == AF_INET6) {
      sockaddr_in6 a{};
      a.sin6_family = AF_INET6;
      a.sin6_addr = in6addr_loopback;
      ASSERT_EQ(::bind(fd.get(), reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    }
    const SocketOptionErrors e = apply_socket_options(fd.get(), o);
    EXPECT_FALSE(e.any()) << describe(e, o);
    EXPECT_EQ(testing::int_sockopt(fd.get(), IPPROTO_TCP, TCP_MAXSEG), 1200);
    uint64_t rate = 0;
    socklen_t len = sizeof rate;
    ASSERT_EQ(::getsockopt(fd.get(), SOL_SOCKET, SO_MAX_PACING_RATE, &rate, &len), 0);
    EXPECT_EQ(rate, 12500000u);
    if (family == AF_INET)
      EXPECT_EQ(testing::int_sockopt(fd.get(), IPPROTO_IP, IP_MTU_DISCOVER), IP_PMTUDISC_DO);
    else
      EXPECT_EQ(testing::int_sockopt(fd.get(), IPPROTO_IPV6, IPV6_MTU_DISCOVER), IPV6_PMTUDISC_DO);
  }
}

// connect_tcp() with a source address binds there first (iperf3 -B and --cport).
TEST(ConnectTcp, BindsTheSourceFirst) {
  const Address lo = resolve("127.0.0.1", 0, IpFamily::kV4, SOCK_STREAM).front();
  Fd listener = bind_socket(lo, SOCK_STREAM, 4);
  ASSERT_TRUE(listener);
  const Address to = local_address(listener.get());
  Fd probe = bind_socket(lo, SOCK_STREAM, 0);
  const uint16_t free_port = local_address(probe.get()).port();
  probe.reset();
  Address from = lo;
  from.set_port(free_port);
  int err = 0;
  Fd c = connect_tcp(to, std::chrono::steady_clock::now() + std::chrono::seconds(5), &err, nullptr,
                     nullptr, &from);
  ASSERT_TRUE(c) << err;
  EXPECT_EQ(local_address(c.get()).port(), free_port);
}

TEST(ApplySocketOptions, EveryOptionReachesTheSocket) {
  for (int family : {AF_INET, AF_INET6}) {
    SCOPED_TRACE(family == AF_INET ? "IPv4" : "IPv6");
    Fd fd = tcp_socket(family);
    ASSERT_TRUE(fd);
    SocketOptions o;
    o.sndbuf = 100000;
    o.rcvbuf = 120000;
    o.nodelay = o.cork = o.keepalive = true;
    o.tos = 0x20;
    o.priority = 3;
    o.congestion = "reno";
    const SocketOptionErrors e = apply_socket_options(fd.get(), o);
    EXPECT_FALSE(e.any()) << describe(e, o);
    EXPECT_GE(get_sndbuf(fd.get()), 100000);
    EXPECT_GE(get_rcvbuf(fd.get()), 120000);
    EXPECT_EQ(testing::int_sockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY), 1);
    EXPECT_EQ(testing::int_sockopt(fd.get(), IPPROTO_TCP, TCP_CORK), 1);
    EXPECT_EQ(testing::int_sockopt(fd.get(), SOL_SOCKET, SO_KEEPALIVE), 1);
    EXPECT_EQ(testing::int_sockopt(fd.get(), SOL_SOCKET, SO_PRIORITY), 3);
    if (family == AF_INET)
      EXPECT_EQ(testing::int_sockopt(fd.get(), IPPROTO_IP, IP_TOS), 0x20);
    else
      EXPECT_EQ(testing::int_sockopt(fd.get(), IPPROTO_IPV6, IPV6_TCLASS), 0x20);
    EXPECT_EQ(get_cc(fd.get()), "reno");
  }
}

// IP_TOS also sets SO_PRIORITY (from the TOS bits), so the order matters:
// with both asked for, the priority asked for is the one the socket has.
TEST(ApplySocketOptions, PriorityStandsWhateverTheTos) {
  for (int tos : {0x10, 0x20, 0xb8}) {
    Fd fd = tcp_socket();
    SocketOptions o;
    o.tos = tos;
    o.priority = 0;
    EXPECT_FALSE(apply_socket_options(fd.get(), o).any());
    EXPECT_EQ(testing::int_sockopt(fd.get(), SOL_SOCKET, SO_PRIORITY), 0) << tos;
    EXPECT_EQ(testing::int_sockopt(fd.get(), IPPROTO_IP, IP_TOS), tos);
  }
}

TEST(ApplySocketOptions, NothingAskedLeavesTheSocketAlone) {
  Fd fd = tcp_socket();
  const int tos = testing::int_sockopt(fd.get(), IPPROTO_IP, IP_TOS);
  const int prio = testing::int_sockopt(fd.get(), SOL_SOCKET, SO_PRIORITY);
  const std::string cc = get_cc(fd.get());
  EXPECT_FALSE(apply_socket_options(fd.get(), SocketOptions{}).any());
  EXPECT_EQ(testing::int_sockopt(fd.get(), IPPROTO_IP, IP_TOS), tos);
  EXPECT_EQ(testing::int_sockopt(fd.get(), SOL_SOCKET, SO_PRIORITY), prio);
  EXPECT_EQ(get_cc(fd.get()), cc);
  EXPECT_EQ(testing::int_sockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY), 0);
}

TEST(ApplySocketOptions, FailuresAreNamedAndTheRestStillSet) {
  Fd fd = tcp_socket();
  SocketOptions o;
  o.congestion = "nosuchcc";
  o.tos = 0x10;
  const SocketOptionErrors e = apply_socket_options(fd.get(), o);
  EXPECT_NE(e.congestion, 0);
  EXPECT_EQ(e.tos, 0);
  EXPECT_EQ(testing::int_sockopt(fd.get(), IPPROTO_IP, IP_TOS), 0x10);
  const std::string text = describe(e, o);
  EXPECT_EQ(text.rfind("cannot use congestion control 'nosuchcc': ", 0), 0u) << text;
  EXPECT_NE(text.find("this kernel has:"), std::string::npos) << text;
  try {
    apply_socket_options_or_throw(fd.get(), o, "the test socket");
    ADD_FAILURE() << "no error";
  } catch (const std::exception& ex) {
    EXPECT_EQ(
        std::string(ex.what()).rfind("cannot set up the test socket: cannot use congestion", 0), 0u)
        << ex.what();
  }
  // A TCP option on a UDP socket fails, named.
  Fd udp(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  SocketOptions tcp_only;
  tcp_only.cork = true;
  const SocketOptionErrors u = apply_socket_options(udp.get(), tcp_only);
  EXPECT_TRUE(u.any());
  EXPECT_EQ(describe(u, tcp_only).rfind("TCP_CORK: ", 0), 0u) << describe(u, tcp_only);
}

// ---- engine::socket_options: the spec's ends, TCP's options for TCP only ----

TEST(SocketOptionsFromSpec, EachEndGetsItsOwn) {
  spec::TestSpec s;
  s.test = spec::TestKind::kTcpCrr;
  s.local_sndbuf = 1000;
  s.local_rcvbuf = 2000;
  s.remote_sndbuf = 3000;
  s.remote_rcvbuf = 4000;
  s.nodelay = s.cork = s.keepalive = true;
  s.local = {"reno", 0x10, 1, 0, 0, ""};
  s.remote = {"cubic", 0x20, 2, 0, 0, ""};
  const SocketOptions l = engine::socket_options(s, spec::End::kLocal);
  const SocketOptions r = engine::socket_options(s, spec::End::kRemote);
  EXPECT_EQ(l.sndbuf, 1000);
  EXPECT_EQ(l.rcvbuf, 2000);
  EXPECT_EQ(r.sndbuf, 3000);
  EXPECT_EQ(r.rcvbuf, 4000);
  EXPECT_EQ(l.congestion, "reno");
  EXPECT_EQ(r.congestion, "cubic");
  EXPECT_EQ(l.tos, 0x10);
  EXPECT_EQ(r.tos, 0x20);
  EXPECT_EQ(l.priority, 1);
  EXPECT_EQ(r.priority, 2);
  for (const SocketOptions& o : {l, r}) EXPECT_TRUE(o.nodelay && o.cork && o.keepalive);
  EXPECT_FALSE(engine::socket_options(spec::TestSpec{}, spec::End::kLocal).any());
}

TEST(SocketOptionsFromSpec, UdpTestsGetNoTcpOptions) {
  spec::TestSpec s;
  s.test = spec::TestKind::kUdpRr;
  s.nodelay = s.cork = s.keepalive = true;
  s.local = {"reno", 0x10, 1, 0, 0, ""};
  const SocketOptions o = engine::socket_options(s, spec::End::kLocal);
  EXPECT_FALSE(o.nodelay || o.cork || o.keepalive);
  EXPECT_EQ(o.congestion, "");
  EXPECT_EQ(o.tos, 0x10);
  EXPECT_EQ(o.priority, 1);
}

}  // namespace
}  // namespace flowperf::net
