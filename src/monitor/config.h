// `flowperf monitor`'s configuration: targets, each with a schedule and the
// tests to run against it, read from YAML (docs/monitor.md). Every problem
// is reported as "FILE:LINE: FIELD: what is wrong" through usage_error, so
// a bad file at start is exit 2 and a bad reload keeps the old schedule.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "spec/test_spec.h"

namespace flowperf::monitor {

struct Test {
  spec::TestSpec spec;
  // Labels of its series: the test's name, the streams, and which way the
  // data goes from the monitor's side ("send", "receive", "both").
  std::string label_test, direction;
};

// Which protocol a target's server speaks, and so which client runs its
// tests: flowperf's own, netperf's (a netserver, 2.7), iperf3's (iperf3 -s)
// or qperf's (a qperf server). Each client returns the same TestResult, so
// the series are alike whichever it was.
enum class Protocol { kFlowperf, kNetperf, kIperf3, kQperf };
const char* protocol_name(Protocol p);
// The port its servers listen on unless told otherwise.
uint16_t default_port(Protocol p);
// Why a server of this protocol cannot run the test, in words for the
// config's reader; empty when it can.
std::string protocol_refuses(Protocol p, const spec::TestSpec& s);

struct Target {
  std::string name, host;
  Protocol protocol = Protocol::kFlowperf;
  uint16_t port = 12865;
  double every_s = 60;   // from the start of one round of tests to the next
  double jitter_s = -1;  // each round starts up to this much late; -1: every_s / 10
  double connect_timeout_s = 5;
  std::vector<Test> tests;
};

struct Config {
  std::string listen = "127.0.0.1:9464";  // HOST:PORT of /metrics and /healthz
  std::vector<Target> targets;
};

// Parses YAML text; `origin` names it in messages (the file's path).
Config parse_config(const std::string& text, const std::string& origin);
// Reads and parses a file.
Config load_config(const std::string& path);
// "2s", "500ms", "1.5m", "1h" or a bare number of seconds; nullopt when not
// a duration above 0.
std::optional<double> parse_duration(const std::string& text);
// "HOST:PORT" or "[V6]:PORT"; throws usage_error naming `what`.
std::pair<std::string, uint16_t> split_host_port(const std::string& text, const std::string& what);

}  // namespace flowperf::monitor
