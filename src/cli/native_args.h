// The native client's command line: the options' raw text (ClientArgs),
// the CLI11 options that fill it, and the TestSpec built from it. Running
// what it describes is cli/native_cli.cc's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "measure/confidence.h"
#include "spec/test_spec.h"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace flowperf::cli {

// Raw option text, converted and checked after CLI11 has parsed.
struct ClientArgs {
  std::string host;
  uint16_t port = 12865;
  std::string test = "TCP_STREAM";
  double duration = 10;
  std::string count, send_size, recv_size, local_buf, remote_buf, rate, rr = "1,1", unit = "a";
  uint32_t streams = 1, threads = 0;
  double interval = 0;
  bool nodelay = false, json = false, v4 = false, v6 = false, cpu = false, nic = false;
  bool json_stream = false, csv = false;  // --json-stream, --csv
  std::string html;                       // --html FILE
  std::string key;                        // --key FILE
  std::string tls_ca;                     // --tls-ca FILE
  uint32_t udp_rr_min_timeout_us = 50;
  // Per-end options: "V" (both ends), "L,R", "L," (the client only) or ",R"
  // (the server only).
  std::string cc, tos, priority, cpu_bind;
  bool keepalive = false, cork = false;
  uint32_t burst = 0;
  std::string open_rate, arrival = "fixed";  // --rate, --arrival
  uint64_t seed = 1;
  uint32_t max_outstanding = spec::TestSpec{}.max_outstanding;
  std::string probe_rate, probe_test = "TCP_RR";  // --probe, --probe-test
  double baseline = spec::TestSpec{}.probe_baseline_s;
  bool bidir = false;
  // Which options the command line gave (a default is not a choice).
  struct Given {
    bool host = false, length = false, count = false, send_size = false, recv_size = false,
         local_buf = false, remote_buf = false, rr = false, rate = false, cc = false,
         udp_rr_min_timeout = false, tos = false, priority = false, cpu_bind = false,
         streams = false;
  } given;
  uint32_t repeat = 0;            // --repeat: most runs; 0 = not asked
  std::string confidence;         // --confidence LEVEL[,WIDTH]
  std::optional<uint32_t> batch;  // not given: UDP_STREAM batches 32, other tests 1
  bool gso = false, gro = false, busy_poll = false, rst_close = false, sendfile = false;
  bool call_latency = false;
};

// Handles to the client's options whose absence means something.
struct ClientOptionHandles {
  CLI::Option *host, *length, *count, *send_size, *recv_size, *local_buf, *remote_buf, *rr, *rate,
      *cc, *udp_rr_min_timeout, *tos, *priority, *cpu_bind, *streams;
};

// The client's options (the defaults; `flowperf server` aside) on `app`,
// filling `c` as CLI11 parses.
ClientOptionHandles add_client_options(CLI::App& app, ClientArgs& c);
// After parsing: which of them the command line gave.
void note_given(ClientArgs& c, const ClientOptionHandles& h);
// The test the options describe, checked: a usage Error (exit 2) names the
// option that is wrong and says what to give.
spec::TestSpec build_spec(const ClientArgs& a);
// Whether -t names RRUL (any case): TCP_STREAM both ways with a latency probe.
bool is_rrul(const std::string& test);
// What --repeat and --confidence aim for.
measure::ConfidenceGoal repeat_goal(const ClientArgs& a);

}  // namespace flowperf::cli
