#include "session/server.h"

#include <fmt/format.h>
#include <netinet/in.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

#include "core/error.h"
#include "net/sys.h"
#include "proto/framing.h"
#include "session/dispatch.h"
#include "session/session.h"

namespace flowperf::session {
namespace {

// An error message sent without waiting (the accept loop never blocks): it
// is small, and a client that does not read it loses only the reason.
void send_now(int fd, const proto::ErrorMsg& e) {
  const std::string body = proto::encode(e);
  const auto head = proto::make_header(static_cast<uint32_t>(body.size()));
  std::string frame(head.begin(), head.end());
  frame += body;
  [[maybe_unused]] auto r = ::send(fd, frame.data(), frame.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
}

}  // namespace

void log_line(const ServerConfig& c, const std::string& line) {
  if (!c.log) return;
  std::fprintf(c.log, "%s\n", line.c_str());
  std::fflush(c.log);
}

Server::Server(ServerConfig config)
    : config_(std::move(config)),
      sources_(config_.max_tests_per_source, config_.max_tests_per_minute) {}

Server::~Server() { stop(); }

net::Fd Server::listen_on(uint16_t port) {
  if (config_.bind_host.empty() && config_.family == IpFamily::kAny) {
    // One dual-stack socket serves IPv4 and IPv6 clients; fall back to IPv4
    // where IPv6 is off.
    try {
      const net::Address addr = net::resolve("::", port, IpFamily::kV6, SOCK_STREAM).front();
      net::Fd fd(::socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0));
      if (!fd) throw runtime_error("no IPv6");
      int zero = 0, one = 1;
      ::setsockopt(fd.get(), IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
      ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
      if (::bind(fd.get(), addr.sa(), addr.len) == 0 && ::listen(fd.get(), 1024) == 0) return fd;
    } catch (const Error&) {
    }
    return net::bind_socket(net::resolve("0.0.0.0", port, IpFamily::kV4, SOCK_STREAM).front(),
                            SOCK_STREAM);
  }
  std::string host = config_.bind_host;
  if (host.empty()) host = config_.family == IpFamily::kV6 ? "::" : "0.0.0.0";
  return net::bind_socket(net::resolve(host, port, config_.family, SOCK_STREAM).front(),
                          SOCK_STREAM);
}

void Server::bind() {
  if (1 + config_.more_ports.size() > Intake::kMaxListeners)
    throw usage_error(fmt::format("a server listens on at most {} ports", Intake::kMaxListeners));
  listeners_.push_back(listen_on(config_.port));
  for (uint16_t port : config_.more_ports) listeners_.push_back(listen_on(port));
  for (const net::Fd& l : listeners_) addresses_.push_back(net::local_address(l.get()));
  address_ = addresses_.front();
  port_ = address_.port();
  wake_.reset(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
}

void Server::serve() {
  // A flowperf client closed unclaimed is told why, as a session would tell it.
  auto farewell = [](int fd, std::span<const uint8_t> first, Intake::Drop why) {
    if (!proto::looks_like_flowperf(first.data(), first.size())) return;
    proto::ErrorMsg e =
        why == Intake::Drop::kTimedOut
            ? proto::ErrorMsg{"timeout", "no control message arrived in time"}
        : why == Intake::Drop::kHungUp
            ? proto::ErrorMsg{"bad_message", "the connection closed inside its first message"}
            : proto::ErrorMsg{"busy", "too many connections were waiting to be served; try again"};
    send_now(fd, e);
  };
  std::vector<int> listening;
  for (const net::Fd& l : listeners_) listening.push_back(l.get());
  Intake intake(std::move(listening), wake_.get(), config_.max_pending, config_.control_timeout_s,
                farewell);
  Intake::Counts shown;
  std::chrono::steady_clock::time_point quiet_until{};
  while (!stopping_.load()) {
    auto arrivals = intake.wait(std::chrono::milliseconds(1000));
    reap(false);
    if (stopping_.load()) break;
    for (auto& a : arrivals) admit(std::move(a));
    // Connections closed at the door for lack of room, said once a turn.
    const Intake::Counts& c = intake.counts();
    if (c.evicted != shown.evicted)
      door_log(
          fmt::format("closed {} idle control connections: more than {} were waiting "
                      "(--max-pending) for their first bytes",
                      c.evicted - shown.evicted, config_.max_pending));
    // Said at most every 10 s: a server short of descriptors pauses again
    // each time it tries (Intake::kAcceptPause).
    if (c.paused != shown.paused && std::chrono::steady_clock::now() >= quiet_until) {
      door_log(
          "out of file descriptors (ulimit -n, or the system's): not accepting connections "
          "for a moment at a time; those waiting stay queued");
      quiet_until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    }
    shown = c;
  }
}

std::string unauthenticated_protocol(const ServerConfig& c, const ProtocolRow& row) {
  const bool keys = !c.keys.empty(), rsa = c.iperf3.auth.has_value(),
             passphrase = !c.netperf_passphrase.empty();
  if (!keys && !rsa && !passphrase) return "";
  const bool flowperf =
      row.serve == serve_control_connection || row.serve == serve_tls_control_connection;
  // flowperf's own clients are refused under -Z by their session, which
  // can tell them why in their protocol.
  if (flowperf && (keys || passphrase)) return "";
  if (row.serve == serve_iperf3_connection && rsa) return "";
  if (row.serve == serve_netperf_connection && passphrase) return "";
  std::string asked;
  for (auto [on, what] :
       {std::pair{keys, "flowperf's keys (--keys)"}, std::pair{rsa, "iperf3's RSA tokens"},
        std::pair{passphrase, "netperf's passphrase (-Z)"}})
    if (on) asked += (asked.empty() ? "" : ", ") + std::string(what);
  return fmt::format("this server requires authentication ({}), which {} clients cannot give here",
                     asked, row.name);
}

void Server::admit(Intake::Arrival a) {
  const std::string who = a.peer ? a.peer->to_string() : "?";
  const bool flowperf = a.row->serve == serve_control_connection;
  // A flowperf client is told why in its protocol; the others are closed
  // (none of their protocols can carry a reason before the test).
  auto refuse = [&](const char* code, const std::string& why) {
    door_log(fmt::format("refused {} ({} client): {}", who, a.row->name, why));
    if (flowperf) send_now(a.fd.get(), proto::ErrorMsg{code, why});
  };
  if (a.peer && !config_.access.empty()) {
    if (std::string why = refusal(config_.access, *a.peer); !why.empty())
      return refuse("refused", why);
  }
  // A source that keeps failing to authenticate waits (AuthFailures).
  if (a.peer) {
    if (std::string why = auth_failures_.refusal(*a.peer, std::chrono::steady_clock::now());
        !why.empty())
      return refuse("refused", why);
  }
  // Any authentication set up covers every protocol: a client of a
  // protocol that cannot show what the server asks for is refused.
  if (const std::string why = unauthenticated_protocol(config_, *a.row); !why.empty())
    return refuse("refused", why);
  std::lock_guard<std::mutex> lock(mu_);
  // Threads are for tests and their short set-up: beyond this many, the
  // server is busy (a client that holds a set-up open costs a thread only
  // until its control timeout).
  const size_t max_sessions = size_t{config_.max_tests} + config_.max_pending;
  if (sessions_.size() >= max_sessions)
    return refuse("busy", fmt::format("server busy ({} connections being served) — try again "
                                      "later",
                                      sessions_.size()));
  sessions_.emplace_back();
  SessionSlot* slot = &sessions_.back();
  slot->control_fd = a.fd.get();
  slot->number = a.number;
  slot->thread =
      std::thread([this, slot, c = std::move(a.fd), row = a.row, by = a.first_message_by,
                   peer = a.peer]() mutable { run_session(slot, std::move(c), row, by, peer); });
}

void Server::run_session(SessionSlot* slot, net::Fd control, const ProtocolRow* row,
                         Intake::Clock::time_point first_message_by, std::optional<IpAddr> peer) {
  SessionContext ctx{&config_,      &active_,    &stopping_, [this] { request_stop(); },
                     &iperf3_desk_, slot->number};
  ctx.first_message_by = first_message_by;
  ctx.sources = &sources_;
  ctx.peer = peer;
  ctx.memory = &memory_;
  ctx.auth_failures = &auth_failures_;
  serve_claimed(*row, control.get(), ctx);
  {
    // Closed under the lock so stop() never shuts down a reused number.
    std::lock_guard<std::mutex> lock(mu_);
    slot->control_fd = -1;
    control.reset();
  }
  served_.fetch_add(1);
  slot->done.store(true);
}

void Server::door_log(const std::string& line) {
  if (!config_.log) return;
  constexpr uint32_t kLinesPerSecond = 10;
  const auto now = std::chrono::steady_clock::now();
  if (now - door_log_second_ >= std::chrono::seconds(1)) {
    if (door_log_dropped_ > 0)
      std::fprintf(config_.log, "flowperf server: (%u more refusals in the last second)\n",
                   door_log_dropped_);
    door_log_second_ = now;
    door_log_lines_ = door_log_dropped_ = 0;
  }
  if (door_log_lines_++ >= kLinesPerSecond) {
    ++door_log_dropped_;
    return;
  }
  std::fprintf(config_.log, "flowperf server: %s\n", line.c_str());
  std::fflush(config_.log);
}

void Server::reap(bool all) {
  std::list<SessionSlot> finished;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = sessions_.begin(); it != sessions_.end();) {
      auto next = std::next(it);
      if (all || it->done.load()) finished.splice(finished.end(), sessions_, it);
      it = next;
    }
  }
  for (auto& s : finished)
    if (s.thread.joinable()) s.thread.join();
}

void Server::start_background() {
  background_ = std::thread([this] { serve(); });
}

void Server::request_stop() {
  stopping_.store(true);
  if (wake_) {
    uint64_t one = 1;
    [[maybe_unused]] auto r = ::write(wake_.get(), &one, sizeof one);
  }
}

void Server::stop() {
  request_stop();
  if (background_.joinable()) background_.join();
  {
    // Wake sessions blocked on their control connection.
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& s : sessions_)
      if (s.control_fd >= 0) ::shutdown(s.control_fd, SHUT_RDWR);
  }
  reap(true);
}

}  // namespace flowperf::session
