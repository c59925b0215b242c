#include "monitor/http.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <vector>

#include "core/error.h"
#include "net/socket.h"

namespace flowperf::monitor {
namespace {

using Clock = std::chrono::steady_clock;

std::string reply(const char* status, const char* type, const std::string& body, bool head) {
  std::string r = std::string("HTTP/1.1 ") + status + "\r\nContent-Type: " + type +
                  "\r\nContent-Length: " + std::to_string(body.size()) +
                  "\r\nConnection: close\r\n\r\n";
  if (!head) r += body;
  return r;
}

struct Client {
  net::Fd fd;
  std::string in, out;
  size_t sent = 0;
  bool answering = false;
  Clock::time_point deadline;
};

}  // namespace

std::string http_response(const std::string& request, const HttpServer::Render& render,
                          bool* complete) {
  *complete = true;
  const auto eol = request.find("\r\n");
  const bool head_done = request.find("\r\n\r\n") != std::string::npos;
  if (eol == std::string::npos || !head_done) {
    if (request.size() < HttpServer::kMaxRequest) {
      *complete = false;
      return {};
    }
    return reply("431 Request Header Fields Too Large", "text/plain", "request too large\n", false);
  }
  const std::string line = request.substr(0, eol);
  const auto sp1 = line.find(' ');
  const auto sp2 = sp1 == std::string::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string::npos || line.compare(sp2 + 1, 5, "HTTP/") != 0)
    return reply("400 Bad Request", "text/plain", "not an HTTP request\n", false);
  const std::string method = line.substr(0, sp1);
  std::string path = line.substr(sp1 + 1, sp2 - sp1 - 1);
  if (auto q = path.find('?'); q != std::string::npos) path.resize(q);
  const bool head = method == "HEAD";
  if (method != "GET" && !head)
    return reply("405 Method Not Allowed", "text/plain", "GET /metrics or GET /healthz\n", false);
  if (path == "/metrics")
    return reply("200 OK", "text/plain; version=0.0.4; charset=utf-8", render(), head);
  if (path == "/healthz") return reply("200 OK", "text/plain", "ok\n", head);
  if (path == "/")
    return reply("200 OK", "text/plain", "flowperf monitor: see /metrics and /healthz\n", head);
  return reply("404 Not Found", "text/plain", "not found; try /metrics\n", head);
}

HttpServer::HttpServer(const std::string& host, uint16_t port, Render render)
    : render_(std::move(render)) {
  const auto addrs = net::resolve(host, port, IpFamily::kAny, SOCK_STREAM);
  listen_ = net::bind_socket(addrs.front(), SOCK_STREAM, 128);
  net::set_nonblocking(listen_.get(), true);
  const net::Address bound = net::local_address(listen_.get());
  port_ = bound.port();
  address_ = bound.to_string();
  int p[2];
  if (::pipe2(p, O_CLOEXEC | O_NONBLOCK) != 0) throw runtime_error("pipe: cannot make one");
  wake_[0] = net::Fd(p[0]);
  wake_[1] = net::Fd(p[1]);
}

HttpServer::~HttpServer() {
  if (thread_.joinable()) {
    [[maybe_unused]] ssize_t n = ::write(wake_[1].get(), "x", 1);
    thread_.join();
  }
}

void HttpServer::start() {
  thread_ = std::thread([this] { run(); });
}

void HttpServer::run() {
  std::vector<Client> clients;
  std::vector<pollfd> fds;
  char buf[4096];
  for (;;) {
    fds.clear();
    fds.push_back({wake_[0].get(), POLLIN, 0});
    fds.push_back({listen_.get(), POLLIN, 0});
    int timeout = -1;  // nothing open: sleep until a connection
    const auto now = Clock::now();
    for (const auto& c : clients) {
      fds.push_back({c.fd.get(), static_cast<short>(c.answering ? POLLOUT : POLLIN), 0});
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(c.deadline - now).count() + 1;
      timeout = timeout < 0 ? static_cast<int>(std::max<int64_t>(left, 0))
                            : std::min(timeout, static_cast<int>(std::max<int64_t>(left, 0)));
    }
    if (::poll(fds.data(), fds.size(), timeout) < 0 && errno != EINTR) return;
    if (fds[0].revents) return;  // stop
    const auto t = Clock::now();
    std::vector<bool> drop(clients.size(), false);
    for (size_t i = 0; i < clients.size(); ++i) {
      Client& c = clients[i];
      const short ev = fds[i + 2].revents;
      if (ev & (POLLERR | POLLNVAL)) {
        drop[i] = true;
        continue;
      }
      if (!c.answering && (ev & (POLLIN | POLLHUP))) {
        const ssize_t n = ::recv(c.fd.get(), buf, sizeof buf, 0);
        if (n <= 0) {
          if (n == 0 || (errno != EAGAIN && errno != EINTR)) drop[i] = true;
          continue;
        }
        c.in.append(buf, static_cast<size_t>(n));
        bool complete = false;
        std::string r;
        try {
          r = http_response(c.in, render_, &complete);
        } catch (const std::exception&) {
          complete = true;
          r = reply("500 Internal Server Error", "text/plain", "cannot render\n", false);
        }
        if (complete) {
          c.out = std::move(r);
          c.answering = true;
          ::shutdown(c.fd.get(), SHUT_RD);
        }
      } else if (c.answering && (ev & (POLLOUT | POLLHUP))) {
        const ssize_t n =
            ::send(c.fd.get(), c.out.data() + c.sent, c.out.size() - c.sent, MSG_NOSIGNAL);
        if (n > 0) c.sent += static_cast<size_t>(n);
        if ((n < 0 && errno != EAGAIN && errno != EINTR) || c.sent == c.out.size()) drop[i] = true;
      }
      if (t >= c.deadline) drop[i] = true;
    }
    std::vector<Client> kept;
    for (size_t i = 0; i < clients.size(); ++i)
      if (!drop[i]) kept.push_back(std::move(clients[i]));
    clients = std::move(kept);
    if (fds[1].revents & POLLIN) {
      for (;;) {
        const int fd = ::accept4(listen_.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) break;  // EAGAIN, or a connection gone already
        if (clients.size() >= kMaxClients) clients.erase(clients.begin());  // the oldest
        Client c;
        c.fd = net::Fd(fd);
        c.deadline = Clock::now() + std::chrono::milliseconds(kClientTimeoutMs);
        clients.push_back(std::move(c));
      }
    }
  }
}

}  // namespace flowperf::monitor
