// What the iperf3 end-to-end tests share: where the real iperf3 is
// (Debian's 3.12, which scripts/setup.sh installs), servers of either kind
// on a free port, a client run with -J read back as JSON. As in the other
// end-to-end tests, nothing here asserts speed.
#pragma once

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "e2e/process.h"

namespace flowperf::testing {

using namespace std::chrono_literals;

inline const std::string kIperf3Personality = std::string(FLOWPERF_BIN_DIR) + "/iperf3";

inline std::string real_iperf3() {
  const char* p = std::getenv("IPERF3_PEER");
  return p && *p ? p : "/usr/bin/iperf3";
}
inline bool have_real_iperf3() { return ::access(real_iperf3().c_str(), X_OK) == 0; }

// In CI a missing iperf3 fails the test: setup installs it.
#define REQUIRE_IPERF3()                                                              \
  if (!have_real_iperf3()) {                                                          \
    if (std::getenv("CI")) FAIL() << "no real iperf3 at " << real_iperf3();           \
    GTEST_SKIP() << "no real iperf3 at " << real_iperf3() << " (apt install iperf3)"; \
  }

// A port nothing listens on now (TCP and UDP), for a server to take.
inline uint16_t free_port() {
  for (int tries = 0; tries < 50; ++tries) {
    int t = ::socket(AF_INET6, SOCK_STREAM, 0);
    sockaddr_in6 a{};
    a.sin6_family = AF_INET6;
    a.sin6_addr = in6addr_any;
    socklen_t len = sizeof a;
    ::bind(t, reinterpret_cast<sockaddr*>(&a), sizeof a);
    ::getsockname(t, reinterpret_cast<sockaddr*>(&a), &len);
    const uint16_t port = ntohs(a.sin6_port);
    int u = ::socket(AF_INET6, SOCK_DGRAM, 0);
    const bool udp_free = ::bind(u, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    ::close(t);
    ::close(u);
    if (udp_free) return port;
  }
  return 0;
}

enum class Side { kReal, kFlowperf };
inline const char* name(Side s) { return s == Side::kReal ? "iperf3" : "flowperf"; }
inline std::string binary(Side s) { return s == Side::kReal ? real_iperf3() : kIperf3Personality; }

// A server of either kind, ready (its banner printed) when constructed.
struct Iperf3Server {
  Iperf3Server(Side side, std::vector<std::string> extra = {}) : port(free_port()) {
    std::vector<std::string> argv = {binary(side), "-s", "-p", std::to_string(port),
                                     "--forceflush"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    proc = std::make_unique<Process>(argv);
    auto line = proc->read_line(10s);
    for (int i = 0; line && line->find("Server listening") == std::string::npos && i < 5; ++i)
      line = proc->read_line(10s);
    ready = line.has_value();
  }
  uint16_t port;
  std::unique_ptr<Process> proc;
  bool ready = false;
};

inline Outcome run_client(Side side, uint16_t port, std::vector<std::string> args,
                          std::chrono::milliseconds limit = 60s) {
  std::vector<std::string> argv = {binary(side), "-c", "127.0.0.1", "-p", std::to_string(port)};
  argv.insert(argv.end(), args.begin(), args.end());
  Process p(argv);
  return p.wait(limit);
}

inline nlohmann::json parse_json(const std::string& text) {
  return nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
}

}  // namespace flowperf::testing
