// Control messages of flowperf's own protocol: one struct per message, one
// encode/decode pair for all of them. docs/protocol.md draws the exchange:
//
//   client                                   server
//     │── Hello{versions} ────────────────────►│  version check, test limit
//     │   (a server with keys first challenges the client: auth/handshake.h)
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

#include "results/fields.h"
#include "results/measurements.h"
#include "spec/test_spec.h"

namespace flowperf::proto {

// 2: authentication (Hello's key name and nonce, Challenge, Auth, Welcome's
// proof) and a range of versions in Hello. A server or client speaks every
// version from the oldest to the newest; version 1 is 2 without authentication.
inline constexpr uint32_t kProtocolVersion = 3;
// The first version whose authenticated connections seal every frame after
// the handshake (proto/framing.h); a server with keys speaks no older.
inline constexpr uint32_t kSealedProtocolVersion = 3;
inline constexpr uint32_t kOldestProtocolVersion = 1;

class ProtocolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Hello {
  uint32_t version = kProtocolVersion;  // the newest the client speaks
  std::string software;
  uint32_t min_version = 0;   // the oldest it speaks; 0 (version 1's clients): only `version`
  std::string key_name = {};  // authenticating: the key's name, and
  std::string nonce = {};     // the client's nonce, hex
};
// A server that checks keys answers an authenticating Hello with the
// version agreed (which the proofs cover) and its nonce.
struct Challenge {
  uint32_t version = kProtocolVersion;
  std::string nonce;  // hex
};
// The client's proof that it knows the key's secret (hex).
struct Auth {
  std::string proof;
};
struct Welcome {
  uint32_t version = kProtocolVersion;
  std::string software;
  std::string hostname;
  std::string os;  // e.g. "Linux 6.1.0"
  std::string cpu_model;
  uint32_t cores = 0;
  double cpu_mhz = 0;
  std::string proof = {};  // after Auth: the server's proof (hex)
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
  results::SideResult side;
};
// Error codes: "version", "auth", "busy", "invalid_spec", "bad_message", "setup_failed",
// "timeout", "internal", "refused".
struct ErrorMsg {
  std::string code;
  std::string message;
};

// Each message's fields, listed once for encode and decode (Setup's spec
// and Results' side have codecs of their own; see messages.cc).
using results::Presence;

template <class V, results::Is<Hello> T>
void fields(V& v, T& m) {
  v("version", m.version);
  v("software", m.software);
  v("min_version", m.min_version, Presence::kOmitEmpty);
  v("key_name", m.key_name, Presence::kOmitEmpty);
  v("nonce", m.nonce, Presence::kOmitEmpty);
}
template <class V, results::Is<Challenge> T>
void fields(V& v, T& m) {
  v("version", m.version);
  v("nonce", m.nonce);
}
template <class V, results::Is<Auth> T>
void fields(V& v, T& m) {
  v("proof", m.proof);
}
template <class V, results::Is<Welcome> T>
void fields(V& v, T& m) {
  v("version", m.version);
  v("software", m.software);
  v("hostname", m.hostname, Presence::kOptional);
  v("os", m.os, Presence::kOptional);
  v("cpu_model", m.cpu_model, Presence::kOptional);
  v("cores", m.cores, Presence::kOptional);
  v("cpu_mhz", m.cpu_mhz, Presence::kOptional);
  v("proof", m.proof, Presence::kOmitEmpty);
}
template <class V, results::Is<SetupOk> T>
void fields(V& v, T& m) {
  v("tcp_port", m.tcp_port);
  v("udp_ports", m.udp_ports);
  v("cookie", m.cookie);
  v("threads", m.threads);
  v("sndbuf", m.sndbuf);
  v("rcvbuf", m.rcvbuf);
}
// A plain stop is written as its type alone: older servers read that.
template <class V, results::Is<Stop> T>
void fields(V& v, T& m) {
  v("abort", m.abort, Presence::kOmitEmpty);
  v("at_s", m.at_s, Presence::kOmitEmpty);
  v("sent", m.sent, Presence::kOmitEmpty);
}
template <class V, results::Is<ErrorMsg> T>
void fields(V& v, T& m) {
  v("code", m.code);
  v("message", m.message);
}
template <class V, class T>
requires results::Is<T, Start> || results::Is<T, Started> || results::Is<T, Quit>
void fields(V&, T&) {}

using Message = std::variant<Hello, Challenge, Auth, Welcome, Setup, SetupOk, Start, Started, Stop,
                             Quit, Results, ErrorMsg>;

std::string encode(const Message& m);
// The same text appended to `out` (a results message is written there flow by flow, so a frame
// can be built without a second copy of a body of many MB).
void encode_into(std::string& out, const Message& m);
// Throws ProtocolError for anything that is not a well-formed message.
Message decode(std::string_view body);
const char* message_name(const Message& m);

// A side's results as this protocol carries them (the body of a results
// message, less the flow-count hint). The user's --json is written by
// report/result_json.h, not by these.
nlohmann::json side_to_json(const results::SideResult& s);
results::SideResult side_from_json(const nlohmann::json& j);

}  // namespace flowperf::proto
