#include "session/server.h"

#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

#include "core/error.h"
#include "net/sys.h"
#include "session/dispatch.h"
#include "session/session.h"

namespace flowperf::session {

Server::Server(ServerConfig config) : config_(std::move(config)) {}

Server::~Server() { stop(); }

void Server::bind() {
  net::Address addr;
  if (config_.bind_host.empty() && config_.family == IpFamily::kAny) {
    // One dual-stack socket serves IPv4 and IPv6 clients; fall back to IPv4
    // where IPv6 is off.
    try {
      addr = net::resolve("::", config_.port, IpFamily::kV6, SOCK_STREAM).front();
      net::Fd fd(::socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0));
      if (!fd) throw runtime_error("no IPv6");
      int zero = 0, one = 1;
      ::setsockopt(fd.get(), IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
      ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
      if (::bind(fd.get(), addr.sa(), addr.len) == 0 && ::listen(fd.get(), 1024) == 0) {
        listener_ = std::move(fd);
      }
    } catch (const Error&) {
    }
    if (!listener_) {
      addr = net::resolve("0.0.0.0", config_.port, IpFamily::kV4, SOCK_STREAM).front();
      listener_ = net::bind_socket(addr, SOCK_STREAM);
    }
  } else {
    std::string host = config_.bind_host;
    if (host.empty()) host = config_.family == IpFamily::kV6 ? "::" : "0.0.0.0";
    addr = net::resolve(host, config_.port, config_.family, SOCK_STREAM).front();
    listener_ = net::bind_socket(addr, SOCK_STREAM);
  }
  address_ = net::local_address(listener_.get());
  port_ = address_.port();
  wake_.reset(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
}

void Server::serve() {
  while (!stopping_.load()) {
    pollfd fds[2] = {{listener_.get(), POLLIN, 0}, {wake_.get(), POLLIN, 0}};
    int r = ::poll(fds, 2, 1000);
    reap(false);
    if (r <= 0 || stopping_.load()) continue;
    if (!(fds[0].revents & POLLIN)) continue;
    net::Fd conn(::accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC));
    if (!conn) continue;  // the client gave up, or we are out of descriptors for now
    std::lock_guard<std::mutex> lock(mu_);
    sessions_.emplace_back();
    SessionSlot* slot = &sessions_.back();
    slot->control_fd = conn.get();
    slot->number = ++accepted_;
    slot->thread = std::thread(
        [this, slot, c = std::move(conn)]() mutable { run_session(slot, std::move(c)); });
  }
}

void Server::run_session(SessionSlot* slot, net::Fd control) {
  SessionContext ctx{&config_,      &active_,    &stopping_, [this] { request_stop(); },
                     &iperf3_desk_, slot->number};
  dispatch_control_connection(control.get(), ctx);
  {
    // Closed under the lock so stop() never shuts down a reused number.
    std::lock_guard<std::mutex> lock(mu_);
    slot->control_fd = -1;
    control.reset();
  }
  served_.fetch_add(1);
  slot->done.store(true);
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
