// netperf's socket and CPU options, read back from the running processes
// rather than from anything flowperf prints: -Y (IP_TOS), -y (SO_PRIORITY),
// -S (SO_KEEPALIVE), test -C (TCP_CORK, netperf's end only) and -T (the
// CPU each end's data path runs on).
//
// While a test runs, the test process takes a duplicate of each of the
// peer's data sockets with pidfd_getfd(2) and asks the kernel with
// getsockopt(2); the CPU binding is each thread's Cpus_allowed_list in
// /proc. Three pairings, so that both directions of the wire are checked:
// flowperf's netperf against flowperf's netserver, flowperf's netperf
// against netperf 2.7's netserver (our request reaches a real server), and
// netperf 2.7 against flowperf's netserver (a real request reaches ours).
#include <gtest/gtest.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/syscall.h>

#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include "e2e/netperf_peers.h"
#include "support/net.h"
#include "support/paths.h"

namespace flowperf::testing {
namespace {

const std::string kDir = ::flowperf::testing::bin_dir();

// What the kernel says of one data socket.
struct SockOpts {
  int type = 0;  // SOCK_STREAM or SOCK_DGRAM
  int tos = -1, priority = -1, keepalive = -1, cork = -1;
};

// pid and its descendants (netserver 2.7 forks a child per test).
std::vector<pid_t> with_children(pid_t pid) {
  std::vector<pid_t> all = {pid};
  for (size_t i = 0; i < all.size(); ++i) {
    std::ifstream f("/proc/" + std::to_string(all[i]) + "/task/" + std::to_string(all[i]) +
                    "/children");
    for (pid_t c; f >> c;) all.push_back(c);
  }
  return all;
}

// The IP data sockets the processes hold: every connected TCP socket and
// every UDP socket, the control connection (either port `control`) and
// listeners left out.
std::vector<SockOpts> data_sockets(pid_t top, uint16_t control) {
  std::vector<SockOpts> found;
  for (pid_t pid : with_children(top))
    for_each_socket_of(pid, [&](int fd) {
      SockOpts s;
      s.type = int_sockopt(fd, SOL_SOCKET, SO_TYPE);
      const uint16_t me = local_port(fd), peer = peer_port(fd);
      const bool ip = me != 0;
      const bool connected = peer != 0;
      const bool control_conn = me == control || peer == control;
      const bool wanted =
          ip && !control_conn && ((s.type == SOCK_STREAM && connected) || s.type == SOCK_DGRAM);
      if (!wanted) return;
      sockaddr_storage a{};
      socklen_t al = sizeof a;
      const bool v6 =
          ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &al) == 0 && a.ss_family == AF_INET6;
      s.tos = v6 ? int_sockopt(fd, IPPROTO_IPV6, IPV6_TCLASS) : int_sockopt(fd, IPPROTO_IP, IP_TOS);
      s.priority = int_sockopt(fd, SOL_SOCKET, SO_PRIORITY);
      s.keepalive = int_sockopt(fd, SOL_SOCKET, SO_KEEPALIVE);
      if (s.type == SOCK_STREAM) s.cork = int_sockopt(fd, IPPROTO_TCP, TCP_CORK);
      found.push_back(s);
    });
  return found;
}

// The CPU lists the process's threads (and its children's) may run on.
std::set<std::string> thread_cpu_lists(pid_t top) {
  std::set<std::string> lists;
  for (pid_t pid : with_children(top)) {
    std::error_code ec;
    for (const auto& t :
         std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec)) {
      std::ifstream f(t.path() / "status");
      for (std::string line; std::getline(f, line);)
        if (line.rfind("Cpus_allowed_list:", 0) == 0) {
          std::istringstream in(line.substr(18));
          std::string v;
          in >> v;
          lists.insert(v);
        }
    }
  }
  return lists;
}

// What one end must show. A real netperf or netserver is held to what it
// does itself (`ours` false): its TOS and CPU binding. netperf 2.7 sets
// SO_PRIORITY before IP_TOS, and the TOS resets the priority, and
// netserver sets it on its listener only, which Linux does not pass on to
// the accepted connection: neither end keeps the priority asked for.
struct Want {
  int tos, priority;
  bool keepalive, cork;
  int cpu;
  bool ours = true;
};

// Both ends' sockets and CPU masks, sampled while the test runs: the first
// moment each end holds a data socket of the test's type, and every CPU
// list a thread of each end had at any sample. An end binds its thread to
// the CPU asked for only after it made the socket (a flake hunt caught the
// moment between, once in 20 runs under load), so the lists are sampled on
// until the CPU each end was asked for shows, or the test ends.
struct Seen {
  std::vector<SockOpts> client, server;
  std::set<std::string> client_cpus, server_cpus;
};

Seen watch(Process& client, pid_t server, uint16_t control, int type, int client_cpu,
           int server_cpu) {
  Seen seen;
  auto has_type = [type](const std::vector<SockOpts>& v) {
    return std::any_of(v.begin(), v.end(), [type](const SockOpts& s) { return s.type == type; });
  };
  const std::string want_client = std::to_string(client_cpu),
                    want_server = std::to_string(server_cpu);
  for (auto end = Clock::now() + 4s; Clock::now() < end; std::this_thread::sleep_for(50ms)) {
    if (!has_type(seen.client)) seen.client = data_sockets(client.pid(), control);
    if (!has_type(seen.server)) seen.server = data_sockets(server, control);
    seen.client_cpus.merge(thread_cpu_lists(client.pid()));
    seen.server_cpus.merge(thread_cpu_lists(server));
    if (has_type(seen.client) && has_type(seen.server) && seen.client_cpus.count(want_client) &&
        seen.server_cpus.count(want_server))
      break;
  }
  return seen;
}

void expect_end(const char* end, const std::vector<SockOpts>& socks,
                const std::set<std::string>& cpus, const Want& w, int type) {
  SCOPED_TRACE(end);
  size_t checked = 0;
  for (const auto& s : socks) {
    if (s.type != type) continue;
    ++checked;
    EXPECT_EQ(s.tos, w.tos);
    if (!w.ours) continue;
    EXPECT_EQ(s.priority, w.priority);
    if (type == SOCK_STREAM) {
      EXPECT_EQ(s.keepalive, w.keepalive ? 1 : 0);
      EXPECT_EQ(s.cork != 0, w.cork);
    }
  }
  EXPECT_GT(checked, 0u) << "no data socket was seen";
  const std::string cpu = std::to_string(w.cpu);
  EXPECT_TRUE(cpus.count(cpu)) << "no thread bound to CPU " << cpu << " alone";
}

// The two CPUs the ends are bound to: different ones where there are two.
std::pair<int, int> two_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (::sched_getaffinity(0, sizeof set, &set) == 0)
    for (int i = 0; i < CPU_SETSIZE; ++i)
      if (CPU_ISSET(i, &set)) cpus.push_back(i);
  if (cpus.empty()) return {0, 0};
  return {cpus.back(), cpus.front()};
}

// Runs `netperf_path` against the server (pid, port) with every option and
// checks both ends; `real_client`/`real_server` say which end is netperf
// 2.7's. The server's end is never corked: netperf's protocol cannot ask
// netserver for it.
void run_and_check(const std::string& netperf_path, pid_t server, uint16_t port, const char* test,
                   bool real_client, bool real_server) {
  const auto [lcpu, rcpu] = two_cpus();
  const bool tcp = std::string(test) == "TCP_STREAM";
  std::vector<std::string> argv = {netperf_path,
                                   "-H",
                                   "127.0.0.1",
                                   "-p",
                                   std::to_string(port),
                                   "-t",
                                   test,
                                   "-l",
                                   "3",
                                   "-P",
                                   "0",
                                   "-Y",
                                   "0x20,0x48",
                                   "-y",
                                   "3,5",
                                   "-T",
                                   std::to_string(lcpu) + "," + std::to_string(rcpu)};
  if (tcp) argv.insert(argv.end(), {"-S", "--", "-C"});
  SCOPED_TRACE(netperf_path + " " + test);
  Process client(argv);
  const int type = tcp ? SOCK_STREAM : SOCK_DGRAM;
  Seen seen = watch(client, server, port, type, lcpu, rcpu);
  Outcome o = client.wait(30s);
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
  expect_end("netperf's end", seen.client, seen.client_cpus,
             {0x20, 3, tcp, /*cork=*/tcp, lcpu, !real_client}, type);
  expect_end("netserver's end", seen.server, seen.server_cpus,
             {0x48, 5, tcp, /*cork=*/false, rcpu, !real_server}, type);
}

bool can_take_fds() {
  const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, ::getpid(), 0));
  if (pidfd < 0) return false;
  const int fd = static_cast<int>(::syscall(SYS_pidfd_getfd, pidfd, 0, 0));
  ::close(pidfd);
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

#define REQUIRE_PIDFD()                                               \
  if (!can_take_fds())                                                \
    GTEST_SKIP() << "pidfd_getfd(2) is not available (Linux >= 5.6, " \
                    "and ptrace rights over the test's children)";

TEST(NetperfReadBack, FlowperfNetperfAgainstFlowperfNetserver) {
  REQUIRE_PIDFD();
  Netserver server(kDir + "/netserver");
  ASSERT_NE(server.port(), 0);
  for (const char* test : {"TCP_STREAM", "UDP_RR"})
    run_and_check(kDir + "/netperf", server.pid(), server.port(), test, false, false);
}

TEST(NetperfReadBack, FlowperfNetperfAgainstRealNetserver) {
  REQUIRE_PIDFD();
  REQUIRE_PEER();
  Netserver server;
  ASSERT_NE(server.port(), 0);
  for (const char* test : {"TCP_STREAM", "UDP_RR"})
    run_and_check(kDir + "/netperf", server.pid(), server.port(), test, false, true);
}

TEST(NetperfReadBack, RealNetperfAgainstFlowperfNetserver) {
  REQUIRE_PIDFD();
  REQUIRE_PEER();
  Netserver server(kDir + "/netserver");
  ASSERT_NE(server.port(), 0);
  for (const char* test : {"TCP_STREAM", "UDP_RR"})
    run_and_check(real_netperf(), server.pid(), server.port(), test, true, false);
}

// -A travels in the request, for a real netserver to align its buffers: a
// listener in this process reads the request flowperf's netperf sends and
// decodes it.
TEST(NetperfReadBack, RemoteAlignmentIsSentInTheRequest) {
  auto request_for = [](std::vector<std::string> extra) -> std::optional<np::OmniRequest> {
    net::Fd listener(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (::bind(listener.get(), reinterpret_cast<sockaddr*>(&a), len) != 0 ||
        ::listen(listener.get(), 1) != 0 ||
        ::getsockname(listener.get(), reinterpret_cast<sockaddr*>(&a), &len) != 0)
      return std::nullopt;
    std::vector<std::string> argv = {
        kDir + "/netperf", "-H", "127.0.0.1", "-p", std::to_string(ntohs(a.sin_port)), "-l", "1"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    Process client(argv);
    std::optional<np::OmniRequest> got;
    pollfd p{listener.get(), POLLIN, 0};
    if (::poll(&p, 1, 10000) == 1) {
      net::Fd conn(::accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
      np::Frame f{};
      if (conn &&
          net::sys::read_exact(conn.get(), f.data(), f.size(), Clock::now() + 10s) ==
              net::sys::IoStatus::kOk &&
          np::classify_request(np::decode_header(f).type) == np::RequestKind::kOmni)
        got = np::decode_omni_request(f);
    }  // closed: the client fails, which is all it can do now
    client.wait(10s);
    return got;
  };
  auto asked = request_for({"-A", "64,128"});
  ASSERT_TRUE(asked);
  EXPECT_EQ(asked->send_alignment, 64u);
  EXPECT_EQ(asked->recv_alignment, 128u);
  auto plain = request_for({});
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->send_alignment, 8u);  // netperf's default
  EXPECT_EQ(plain->recv_alignment, 8u);
}

}  // namespace
}  // namespace flowperf::testing
