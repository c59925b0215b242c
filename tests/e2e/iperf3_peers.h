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
#include <utility>
#include <vector>

#include "support/paths.h"
#include "support/peers.h"
#include "support/ports.h"
#include "support/process.h"

namespace flowperf::testing {

using namespace std::chrono_literals;

inline const std::string kIperf3Personality = ::flowperf::testing::personality("iperf3");

enum class Side { kReal, kFlowperf };
inline const char* name(Side s) { return s == Side::kReal ? "iperf3" : "flowperf"; }
inline std::string binary(Side s) { return s == Side::kReal ? real_iperf3() : kIperf3Personality; }

// A server of either kind, ready (its banner printed) when constructed.
struct Iperf3Server {
  Iperf3Server(Side side, std::vector<std::string> extra = {})
      : Iperf3Server(binary(side), std::move(extra)) {}
  // Any iperf3 program (the real 3.21, say).
  Iperf3Server(const std::string& program, std::vector<std::string> extra = {})
      : port(free_port()) {
    std::vector<std::string> argv = {program, "-s", "-p", std::to_string(port), "--forceflush"};
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
