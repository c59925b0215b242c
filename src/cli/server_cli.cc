#include "cli/server_cli.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <thread>

#include "auth/iperf3_rsa.h"
#include "auth/iperf3_users.h"
#include "auth/keys.h"
#include "cli/daemon.h"
#include "cli/signals.h"
#include "core/error.h"
#include "core/units.h"
#include "core/version.h"
#include "net/tls.h"
#include "proto/messages.h"
#include "session/access_policy.h"
#include "session/server.h"

namespace flowperf::cli {
namespace {

// CLI::Range lets NaN through (every comparison with NaN is false), and
// "inf" past a range is no better: a finite number within [lo, hi].
CLI::Validator finite_range(double lo, double hi) {
  return CLI::Validator(
      [lo, hi](std::string& in) -> std::string {
        double v = 0;
        if (!CLI::detail::lexical_cast(in, v) || !std::isfinite(v) || v < lo || v > hi)
          return fmt::format("Value {} not in range {} to {}", in, lo, hi);
        return {};
      },
      fmt::format("FLOAT in [{} - {}]", lo, hi));
}

}  // namespace

// --iperf3-rsa-private-key and --iperf3-authorized-users: both or neither;
// the key and the file are read now, so mistakes show at start-up.
static std::optional<session::Iperf3Auth> iperf3_auth(const ServerArgs& a) {
  if (a.iperf3_private_key.empty() && a.iperf3_users.empty()) {
    if (a.iperf3_pkcs1)
      throw usage_error(
          "--iperf3-use-pkcs1-padding is for the tokens --iperf3-rsa-private-key opens: give "
          "--iperf3-rsa-private-key and --iperf3-authorized-users too");
    return std::nullopt;
  }
  if (a.iperf3_private_key.empty() || a.iperf3_users.empty())
    throw usage_error(
        "iperf3 authentication needs both --iperf3-rsa-private-key and "
        "--iperf3-authorized-users");
  session::Iperf3Auth out;
  out.private_key = std::make_shared<const auth::RsaKey>(
      auth::load_rsa_private_key(a.iperf3_private_key, "--iperf3-rsa-private-key"));
  auth::load_iperf3_users(a.iperf3_users, "--iperf3-authorized-users");
  out.users_path = a.iperf3_users;
  out.skew_threshold_s = a.iperf3_skew;
  out.padding = a.iperf3_pkcs1 ? auth::RsaPadding::kPkcs1 : auth::RsaPadding::kOaep;
  return out;
}

int run_server(const ServerArgs& a) {
  if (a.v4 && a.v6) throw usage_error("-4 and -6 exclude each other: choose one");
  session::ServerConfig c;
  c.port = a.port;
  c.bind_host = a.bind;
  c.family = a.v4 ? IpFamily::kV4 : a.v6 ? IpFamily::kV6 : IpFamily::kAny;
  c.max_tests = a.max_tests;
  c.max_duration_s = a.max_duration;
  c.control_timeout_s = a.control_timeout;
  if (!a.keys.empty()) c.keys = auth::load_server_keys(a.keys);
  if (a.tls_cert.empty() != a.tls_key.empty())
    throw usage_error(std::string(a.tls_cert.empty() ? "--tls-key" : "--tls-cert") +
                      " needs its pair: give --tls-cert FILE and --tls-key FILE together");
  if (!a.tls_cert.empty()) c.tls = net::TlsContext::server(a.tls_cert, a.tls_key);
  for (const auto& n : a.allow) c.access.allow.push_back(session::parse_cidr(n, "--allow"));
  for (const auto& n : a.deny) c.access.deny.push_back(session::parse_cidr(n, "--deny"));
  c.max_tests_per_source = a.max_per_source;
  c.max_tests_per_minute = a.max_per_minute;
  c.max_streams = a.max_streams;
  c.max_pending = a.max_pending;
  if (!a.max_rate.empty()) {
    std::string why;
    auto v = core::parse_rate_bps(a.max_rate, &why);
    if (!v || *v == 0)
      throw usage_error("--max-rate " + a.max_rate + ": " +
                        (why.empty() ? "give a rate above 0 in bits/s (K, M, G suffixes)" : why));
    c.max_rate_bps = *v;
  }
  auto bytes = [](const std::string& option, const std::string& text) {
    std::string why;
    auto v = core::parse_size(text, &why);
    if (!v)
      throw usage_error(
          option + " " + text + ": " +
          (why.empty() ? "give a size in bytes (K, M, G suffixes), 0 for none" : why));
    return *v;
  };
  c.max_buffer_bytes = bytes("--max-buffer", a.max_buffer);
  c.max_memory_bytes = bytes("--max-memory", a.max_memory);
  c.iperf3.auth = iperf3_auth(a);
  c.log = a.quiet ? nullptr : stdout;
  if (a.daemon) {
    // Detach: the parent returns once the child has its own session.
    detach("--daemon");
    c.log = nullptr;
  }
  block_termination_signals();
  // A second port that every protocol is served on too (iperf3's clients
  // look for 5201 unless told otherwise), by the same server: its limits
  // count tests once, whichever port they came to.
  if (a.iperf3_port) c.more_ports.push_back(a.iperf3_port);
  session::Server server(c);
  server.bind();
  if (c.log) {
    std::string how = c.tls ? "; over TLS" : "";
    if (!c.keys.empty()) how += fmt::format("; clients authenticate ({} keys)", c.keys.size());
    std::fprintf(c.log, "flowperf server %s listening on %s (control protocol %u-%u)%s\n", kVersion,
                 server.address().to_string().c_str(), proto::kOldestProtocolVersion,
                 proto::kProtocolVersion, how.c_str());
    if (c.iperf3.auth)
      std::fprintf(c.log, "flowperf server: iperf3 clients authenticate (RSA token, users in %s)\n",
                   c.iperf3.auth->users_path.c_str());
    if (a.iperf3_port)
      std::fprintf(c.log, "flowperf server: iperf3 clients also on %s\n",
                   server.addresses().back().to_string().c_str());
    std::fflush(c.log);
  }
  // SIGINT/SIGTERM arrive on this thread only; serve() runs in the
  // foreground until they do (or a client's allowed quit request).
  std::thread signals([&server] {
    wait_for_termination();
    server.request_stop();
  });
  signals.detach();
  server.serve();
  server.stop();
  return 0;
}

CLI::App* add_server_command(CLI::App& app, ServerArgs& sa) {
  CLI::App* server = app.add_subcommand("server", "serve tests from flowperf clients");
  server->add_option("-p,--port", sa.port, "control port")->capture_default_str();
  server->add_option("-B,--bind", sa.bind, "address to listen on (default: all)");
  server->add_flag("-4", sa.v4, "IPv4 only");
  server->add_flag("-6", sa.v6, "IPv6 only");
  server->add_flag("-d,--daemon", sa.daemon, "detach and run in the background");
  server->add_flag("-q,--quiet", sa.quiet, "no log line per test");
  server->add_option("--max-tests", sa.max_tests, "tests run at once before clients are refused")
      ->capture_default_str()
      ->check(CLI::Range(1u, 100000u));
  server->add_option("--max-duration", sa.max_duration, "longest test allowed, seconds")
      ->capture_default_str()
      ->check(finite_range(1, 31536000));
  server
      ->add_option("--control-timeout", sa.control_timeout,
                   "longest wait for a client's next control message outside a test, seconds")
      ->capture_default_str()
      ->check(finite_range(0.1, 3600));
  server->add_option("--keys", sa.keys,
                     "clients must authenticate with a key from this file (`NAME SECRET` per "
                     "line, readable only by its owner); other protocols' clients are refused");
  server->add_option("--tls-cert", sa.tls_cert,
                     "flowperf clients must speak TLS (client --tls-ca): this PEM certificate "
                     "chain, with --tls-key");
  server->add_option("--tls-key", sa.tls_key, "the PEM private key of --tls-cert");
  server
      ->add_option("--allow", sa.allow,
                   "only these source networks may connect (CIDR, e.g. 192.0.2.0/24; repeat "
                   "or list with commas)")
      ->delimiter(',');
  server->add_option("--deny", sa.deny, "refuse these source networks (CIDR; wins over --allow)")
      ->delimiter(',');
  server->add_option("--max-tests-per-source", sa.max_per_source,
                     "tests one source address (an IPv6 /64) may run at once; 0: no limit");
  server->add_option("--max-tests-per-minute", sa.max_per_minute,
                     "tests one source address (an IPv6 /64) may start a minute; 0: no limit");
  server->add_option("--max-streams", sa.max_streams, "most streams (-P) a test may ask for");
  server->add_option("--max-rate", sa.max_rate,
                     "UDP tests must ask -b of at most this many bits/s (K, M, G suffixes); the "
                     "server also paces its own TCP sending to it");
  server
      ->add_option("--max-buffer", sa.max_buffer,
                   "largest buffer a test's stream may ask of the server: a message or a socket "
                   "buffer (K, M, G suffixes; 0: no limit)")
      ->capture_default_str();
  server
      ->add_option("--max-memory", sa.max_memory,
                   "buffers all running tests may hold together, counted before a test starts "
                   "(K, M, G suffixes; 0: no limit)")
      ->capture_default_str();
  server
      ->add_option("--max-pending", sa.max_pending,
                   "connections waiting to say which protocol they speak, held at once (no "
                   "thread each); beyond it the oldest is closed")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1000000u));
  server->add_option("--iperf3-rsa-private-key", sa.iperf3_private_key,
                     "iperf3 clients must send a token (iperf3 --username) made with this "
                     "key's public half (PEM), for a user in --iperf3-authorized-users");
  server->add_option("--iperf3-authorized-users", sa.iperf3_users,
                     "iperf3's users file: `USERNAME,SHA256HEX` lines, the hash of "
                     "\"{USERNAME}PASSWORD\"");
  server
      ->add_option("--iperf3-time-skew-threshold", sa.iperf3_skew,
                   "largest difference between an iperf3 token's time and this server's clock, "
                   "seconds")
      ->capture_default_str()
      ->check(CLI::Range(1, 86400 * 365));
  server->add_flag("--iperf3-use-pkcs1-padding", sa.iperf3_pkcs1,
                   "open iperf3 tokens padded with PKCS#1 v1.5, as clients before iperf3 3.17 "
                   "send them (default: OAEP, as 3.17 and later)");
  server
      ->add_option("--iperf3-port", sa.iperf3_port,
                   "also listen on this port (iperf3 clients use 5201); every protocol is "
                   "served on both")
      ->check(CLI::Range(1, 65535));
  return server;
}

}  // namespace flowperf::cli
