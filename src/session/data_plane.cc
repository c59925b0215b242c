#include "session/data_plane.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <thread>

#include "core/error.h"
#include "engine/test_plan.h"
#include "net/source_filter.h"
#include "net/sys.h"

namespace flowperf::session {

using spec::Protocol;
using spec::TestKind;
using Clock = std::chrono::steady_clock;

namespace {

net::Fd make_socket(const net::Address& addr, int type) {
  net::Fd fd(::socket(addr.family(), type | SOCK_CLOEXEC, 0));
  if (!fd) throw runtime_error("cannot create a data socket: " + net::sys::errno_text(errno));
  return fd;
}

void bind_or_throw(int fd, const net::Address& addr) {
  if (::bind(fd, addr.sa(), addr.len) < 0)
    throw runtime_error("cannot bind a data socket to " + addr.to_string() + ": " +
                        net::sys::errno_text(errno));
}

// netperf's data ports and addresses (test -P, -H, -L) travel in the spec,
// but flowperf's own protocol chooses its data sockets itself.
void refuse_netperf_endpoints(const spec::TestSpec& s, spec::End end) {
  const spec::SideOptions& o = s.side(end);
  if (o.data_port != 0 || !o.data_host.empty())
    throw usage_error(
        "a data port or data address for " +
        std::string(end == spec::End::kLocal ? "the client" : "the server") +
        " (netperf's test -P, -H, -L) is not carried by flowperf's own protocol; flowperf "
        "chooses its data ports itself");
}

}  // namespace

ServerDataPlane open_server_plane(const spec::TestSpec& s, const net::Address& local,
                                  unsigned threads, const net::Address& client,
                                  bool tcp_only_from_client) {
  ServerDataPlane p;
  refuse_netperf_endpoints(s, spec::End::kRemote);
  net::Address any = local;
  any.set_port(0);
  const net::SocketOptions options = engine::socket_options(s, spec::End::kRemote);
  const char* what = "the server's data socket";
  if (spec::info(s.test).protocol == Protocol::kUdp) {
    for (uint32_t i = 0; i < s.streams; ++i) {
      net::Fd fd = make_socket(any, SOCK_DGRAM);
      net::apply_socket_options_or_throw(fd.get(), options, what);
      bind_or_throw(fd.get(), any);
      net::accept_only_from(fd.get(), client);
      p.udp_ports.push_back(net::local_address(fd.get()).port());
      if (i == 0) {
        p.sndbuf = net::get_sndbuf(fd.get());
        p.rcvbuf = net::get_rcvbuf(fd.get());
      }
      p.udp.push_back(std::move(fd));
    }
    return p;
  }
  const size_t listeners = spec::info(s.test).connect_per_transaction ? std::max(1u, threads) : 1;
  net::Address addr = any;
  for (size_t i = 0; i < listeners; ++i) {
    net::Fd fd = make_socket(addr, SOCK_STREAM);
    int one = 1;
    ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (listeners > 1) ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEPORT, &one, sizeof one);
    // Accepted connections inherit the listener's options; the window must
    // be set before listen().
    net::apply_socket_options_or_throw(fd.get(), options, what);
    bind_or_throw(fd.get(), addr);
    if (tcp_only_from_client) net::accept_only_from(fd.get(), client);  // their SYNs
    if (::listen(fd.get(), 4096) < 0)
      throw runtime_error("cannot listen on a data socket: " + net::sys::errno_text(errno));
    if (i == 0) {
      addr = net::local_address(fd.get());
      p.tcp_port = addr.port();
      p.sndbuf = net::get_sndbuf(fd.get());
      p.rcvbuf = net::get_rcvbuf(fd.get());
    }
    // CRR servers accept from their event loops; the stream listener is
    // used with a deadline by accept_streams(). Both want non-blocking.
    net::set_nonblocking(fd.get(), true);
    p.listeners.push_back(std::move(fd));
  }
  return p;
}

std::vector<net::Fd> accept_streams(int listener, uint64_t cookie, uint32_t streams,
                                    Clock::time_point deadline, int control) {
  // Every connection is read side by side as its greeting arrives, so a
  // stray one that says nothing (or dribbles) holds up nothing: it is
  // dropped after its own few seconds, or when too many wait at once.
  const size_t max_waiting = size_t{streams} + 64;
  constexpr auto kGreetingWait = std::chrono::seconds(5);
  struct Waiting {
    net::Fd fd;
    Clock::time_point by;
    uint8_t greeting[kGreetingBytes] = {};
    size_t have = 0;
  };
  std::vector<net::Fd> out(streams);
  std::vector<Waiting> waiting;
  uint32_t have = 0;
  // Reads what has come of w's greeting; true when w is done with (taken
  // as a stream, or dropped: closed, or not ours).
  auto read_greeting = [&](Waiting& w) {
    const ssize_t n =
        ::recv(w.fd.get(), w.greeting + w.have, sizeof w.greeting - w.have, MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return false;
    if (n <= 0) return true;  // closed, or reset
    w.have += static_cast<size_t>(n);
    if (w.have < sizeof w.greeting) return false;
    uint64_t c;
    uint32_t index;
    std::memcpy(&c, w.greeting, 8);
    std::memcpy(&index, w.greeting + 8, 4);
    if (c == cookie && index < streams && !out[index]) {  // else not ours: dropped
      out[index] = std::move(w.fd);
      ++have;
    }
    return true;
  };
  while (have < streams) {
    const auto now = Clock::now();
    if (now >= deadline)
      throw runtime_error("only " + std::to_string(have) + " of " + std::to_string(streams) +
                          " data connections arrived in time");
    std::erase_if(waiting, [&](const Waiting& w) { return w.by <= now; });
    std::vector<pollfd> p = {{listener, POLLIN, 0}, {control, POLLRDHUP, 0}};
    for (const auto& w : waiting) p.push_back({w.fd.get(), POLLIN, 0});
    auto next = deadline;
    for (const auto& w : waiting) next = std::min(next, w.by);
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(next - now).count() + 1;
    // The control connection's close ends the wait: a client that gives up
    // must not hold the session until the deadline. Its messages are left
    // alone (Start may overtake the last data connection's handshake), so
    // only the peer's FIN is watched (POLLRDHUP).
    if (control < 0) p[1].fd = -1;
    const int r = ::poll(p.data(), p.size(), static_cast<int>(std::min<long long>(left, 1000)));
    if (r < 0 && errno != EINTR)
      throw runtime_error("cannot wait for data connections: " + net::sys::errno_text(errno));
    if (r <= 0) continue;
    if ((p[1].revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0)
      throw runtime_error("the client went away before opening its data connections");
    for (size_t i = 2; i < p.size(); ++i)
      if (p[i].revents != 0 && read_greeting(waiting[i - 2])) waiting[i - 2].by = now;
    if (p[0].revents == 0) continue;
    for (;;) {
      net::Fd fd(::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC));
      if (!fd) break;
      // Its greeting has most often come with it already.
      Waiting w{std::move(fd), std::min(deadline, Clock::now() + kGreetingWait)};
      if (read_greeting(w)) continue;
      if (waiting.size() >= max_waiting) waiting.erase(waiting.begin());
      waiting.push_back(std::move(w));
    }
  }
  return out;
}

std::vector<net::Fd> open_client_sockets(const spec::TestSpec& s, const net::Address& server,
                                         const proto::SetupOk& ok, Clock::time_point deadline) {
  std::vector<net::Fd> out;
  refuse_netperf_endpoints(s, spec::End::kLocal);
  const net::SocketOptions options = engine::socket_options(s, spec::End::kLocal);
  const char* what = "the client's data socket";
  if (spec::info(s.test).protocol == Protocol::kUdp) {
    if (ok.udp_ports.size() != s.streams)
      throw runtime_error("the server offered " + std::to_string(ok.udp_ports.size()) +
                          " UDP ports for " + std::to_string(s.streams) + " streams");
    for (uint32_t i = 0; i < s.streams; ++i) {
      net::Address a = server;
      a.set_port(ok.udp_ports[i]);
      net::Fd fd = make_socket(a, SOCK_DGRAM);
      net::apply_socket_options_or_throw(fd.get(), options, what);
      if (s.test == TestKind::kUdpStream) {
        int have = net::get_sndbuf(fd.get());
        if (s.effective_send_size() > static_cast<uint32_t>(have))
          throw usage_error("-m " + std::to_string(s.effective_send_size()) +
                            ": message too long: it is larger than the send socket buffer (" +
                            std::to_string(have) + " bytes); use a smaller -m or a larger -s");
      }
      if (::connect(fd.get(), a.sa(), a.len) < 0)
        throw runtime_error("cannot connect a UDP socket to " + a.to_string() + ": " +
                            net::sys::errno_text(errno));
      out.push_back(std::move(fd));
    }
    return out;
  }
  net::Address a = server;
  a.set_port(ok.tcp_port);
  if (spec::info(s.test).connect_per_transaction) {
    // The flows connect, and set the options on each connection without
    // looking back: whether the kernel takes them is found out here, once.
    net::Fd probe = make_socket(a, SOCK_STREAM);
    net::apply_socket_options_or_throw(probe.get(), options, what);
    return out;
  }
  for (uint32_t i = 0; i < s.streams; ++i) {
    int err = 0;
    net::SocketOptionErrors failed;
    net::Fd fd = net::connect_tcp(a, deadline, &err, &options, &failed);
    if (failed.any())
      throw runtime_error("cannot set up " + std::string(what) + ": " +
                          net::describe(failed, options));
    // Thousands of connections at once can overrun the server's accept
    // queue (a refusal when tcp_abort_on_overflow is set, EAGAIN when the
    // kernel is short of request slots): back off and try again while
    // there is time (a few seconds: a server that is gone stays refused).
    const auto give_up = std::min(deadline, Clock::now() + std::chrono::seconds(5));
    for (auto pause = std::chrono::milliseconds(1);
         !fd && (err == ECONNREFUSED || err == EAGAIN) && Clock::now() + pause < give_up;
         pause = std::min(pause * 2, std::chrono::milliseconds(100))) {
      std::this_thread::sleep_for(pause);
      fd = net::connect_tcp(a, deadline, &err, &options);
    }
    if (!fd)
      throw runtime_error("cannot open data connection " + std::to_string(i + 1) + " to " +
                          a.to_string() + ": " + net::sys::errno_text(err) +
                          (err == EMFILE ? " — raise the open-file limit (ulimit -n)"
                           : err == ETIMEDOUT
                               ? " — the control port answers but the data port does not: is a "
                                 "firewall dropping the server's data ports?"
                               : ""));
    uint8_t greeting[kGreetingBytes];
    std::memcpy(greeting, &ok.cookie, 8);
    std::memcpy(greeting + 8, &i, 4);
    if (net::sys::write_all(fd.get(), greeting, sizeof greeting, deadline) !=
        net::sys::IoStatus::kOk)
      throw runtime_error("cannot greet the server on data connection " + std::to_string(i + 1));
    out.push_back(std::move(fd));
  }
  return out;
}

}  // namespace flowperf::session
