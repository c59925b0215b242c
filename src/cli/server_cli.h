// `flowperf server`: its options and the server it runs (session/server.h),
// with the limits of a server open to the public.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "auth/iperf3_users.h"

namespace flowperf::cli {

struct ServerArgs {
  uint16_t port = 12865;
  std::string bind;
  bool v4 = false, v6 = false, daemon = false, quiet = false;
  uint32_t max_tests = 100;
  double max_duration = 3600;
  double control_timeout = 10;
  uint16_t iperf3_port = 0;  // also listen here (iperf3's clients use 5201); 0: no
  std::string keys;          // --keys FILE
  std::string tls_cert, tls_key;
  std::vector<std::string> allow, deny;
  uint32_t max_per_source = 0, max_per_minute = 0, max_streams = 0, max_pending = 256;
  std::string max_rate;
  std::string max_buffer = "16M", max_memory = "256M";  // --max-buffer, --max-memory
  // iperf3's RSA authentication for iperf3 clients (iperf3 -s's options).
  std::string iperf3_private_key, iperf3_users;
  int iperf3_skew = auth::kIperf3DefaultSkewSeconds;
  bool iperf3_pkcs1 = false;  // --iperf3-use-pkcs1-padding
};

// Adds the `server` subcommand, its options writing into `sa`.
CLI::App* add_server_command(CLI::App& app, ServerArgs& sa);
// Runs the server until SIGINT/SIGTERM (or a client's allowed quit). Throws Error.
int run_server(const ServerArgs& a);

}  // namespace flowperf::cli
