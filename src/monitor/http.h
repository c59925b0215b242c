// The monitor's HTTP endpoint: GET /metrics and GET /healthz, nothing else.
// One thread and poll(): it sleeps until a connection or a deadline, so an
// idle monitor uses no CPU. Each connection gets a few seconds and a few KB
// for its request, one response, and is closed; at most kMaxClients are
// open at once (the oldest is dropped for a new one), so slow or garbage
// clients cannot hold it.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>

#include "net/fd.h"

namespace flowperf::monitor {

class HttpServer {
 public:
  // Body of /metrics, called per request.
  using Render = std::function<std::string()>;
  static constexpr size_t kMaxClients = 64;
  static constexpr size_t kMaxRequest = 8192;
  static constexpr int kClientTimeoutMs = 5000;

  // Binds host:port (port 0: the kernel picks); throws a runtime Error.
  HttpServer(const std::string& host, uint16_t port, Render render);
  ~HttpServer();  // stops the thread
  uint16_t port() const { return port_; }
  std::string address() const { return address_; }  // "127.0.0.1:9464", "[::1]:9464"
  void start();

 private:
  void run();
  net::Fd listen_;
  net::Fd wake_[2];  // a pipe: the destructor's stop
  uint16_t port_ = 0;
  std::string address_;
  Render render_;
  std::thread thread_;
};

// The response to one request's text (exposed for tests): status line,
// headers and body. `complete` is false while the request's head has not
// all arrived.
std::string http_response(const std::string& request, const HttpServer::Render& render,
                          bool* complete);

}  // namespace flowperf::monitor
