// Control messages of flowperf's own protocol: one struct per message, one
// encode/decode pair for all of them. docs/protocol.md draws the exchange:
//
//   client                                   server
//     │── Hello{version} ─────────────────────►│  version check, test limit
//     │◄──────────────── Welcome | Error ──────│
//     │── Setup{spec} ────────────────────────►│  validate, open data sockets
//     │◄──────── SetupOk{ports, cookie} | Error│
//     │══ data connections (TCP: cookie+index) ═►│
//     │── Start ──────────────────────────────►│  all data connections present?
//     │◄──────────────── Started | Error ──────│
//     │   ...both sides run the workload...    │
//     │── Stop ───────────────────────────────►│  server drains, then reports
//     │◄──────────────── Results{side} ────────│
//     └── close                                │
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "engine/results.h"
#include "spec/test_spec.h"

namespace flowperf::proto {

inline constexpr uint32_t kProtocolVersion = 1;

class ProtocolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Hello {
  uint32_t version = kProtocolVersion;
  std::string software;
};
struct Welcome {
  uint32_t version = kProtocolVersion;
  std::string software;
  std::string hostname;
  std::string os;  // e.g. "Linux 6.1.0"
  std::string cpu_model;
  uint32_t cores = 0;
  double cpu_mhz = 0;
};
struct Setup {
  spec::TestSpec spec;
};
struct SetupOk {
  uint16_t tcp_port = 0;            // TCP tests: where to connect
  std::vector<uint16_t> udp_ports;  // UDP tests: one port per stream
  uint64_t cookie = 0;              // first 8 bytes of every TCP data connection
  uint32_t threads = 0;             // server worker threads
  int32_t sndbuf = 0, rcvbuf = 0;   // server data socket buffers in effect
};
struct Start {};
struct Started {};
// Ends the test. `abort`: the client gave up draining (its data path
// stalled), so the server should not wait for in-flight data either, and
// counts its flows' time up to `at_s` seconds after its start.
// `sent` (UDP tests): per stream, the datagrams the client's flow sent (that
// its kernel accepted). A server flow that has received them all ends its
// drain at once instead of waiting for a quiet spell; empty: unknown.
struct Stop {
  bool abort = false;
  double at_s = 0;
  std::vector<uint64_t> sent = {};
};
// Sent instead of Setup: asks the server to exit (qperf's `quit`). Servers
// refuse it unless started with remote quit allowed.
struct Quit {};
struct Results {
  engine::SideResult side;
};
// Error codes: "version", "busy", "invalid_spec", "bad_message", "setup_failed",
// "timeout", "internal".
struct ErrorMsg {
  std::string code;
  std::string message;
};

using Message =
    std::variant<Hello, Welcome, Setup, SetupOk, Start, Started, Stop, Quit, Results, ErrorMsg>;

std::string encode(const Message& m);
// The same text appended to `out` (a results message is written there flow by flow, so a frame
// can be built without a second copy of a body of many MB).
void encode_into(std::string& out, const Message& m);
// Throws ProtocolError for anything that is not a well-formed message.
Message decode(std::string_view body);
const char* message_name(const Message& m);

// Histograms and results travel as JSON; exposed for --json output too.
nlohmann::json histogram_to_json(const measure::Histogram& h);
measure::Histogram histogram_from_json(const nlohmann::json& j);
nlohmann::json side_to_json(const engine::SideResult& s);
// The parts of side_to_json(): one flow, and everything but "flows".
nlohmann::json flow_to_json(const engine::FlowResult& f);
nlohmann::json side_head_to_json(const engine::SideResult& s);
nlohmann::json interval_to_json(const engine::IntervalSample& iv);
nlohmann::json cpu_to_json(const measure::CpuUsage& c);
nlohmann::json nic_to_json(const measure::NicUsage& n);
nlohmann::json tcp_info_to_json(const net::TcpInfo& t);
measure::CpuUsage cpu_from_json(const nlohmann::json& j);
engine::SideResult side_from_json(const nlohmann::json& j);

}  // namespace flowperf::proto
