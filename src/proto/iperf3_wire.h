// iperf3's control protocol (facts: ../shared/protocols/iperf3-wire.md,
// checked against iperf3 3.12). One TCP port carries the control connection
// and every TCP data connection; UDP streams use the same port number.
//
//   client                                   server
//   cookie (37 bytes) ───────────────────►
//                     ◄─────────────────── 9 PARAM_EXCHANGE   (busy: 0xFF)
//   u32 len + parameter JSON ────────────►
//                     ◄─────────────────── 10 CREATE_STREAMS  (0xFE code errno: failed)
//   per stream: TCP connect + cookie, or UDP "9876" ◄─► "6789"
//                     ◄─────────────────── 1 TEST_START, 2 TEST_RUNNING
//   ...data; the client's timer or count decides the end...
//   4 TEST_END ──────────────────────────►
//                     ◄─────────────────── 13 EXCHANGE_RESULTS
//   u32 len + client results ────────────►
//                     ◄─────────────────── u32 len + server results, 14 DISPLAY_RESULTS
//   16 IPERF_DONE ───────────────────────►
//
// Every integer is big-endian. This file holds the messages as plain
// structs and their encodings; the conversations are in session/.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace flowperf::proto::iperf3 {

// The state bytes (one signed byte each).
enum State : int8_t {
  kTestStart = 1,
  kTestRunning = 2,
  kTestEnd = 4,
  kParamExchange = 9,
  kCreateStreams = 10,
  kServerTerminate = 11,
  kClientTerminate = 12,
  kExchangeResults = 13,
  kDisplayResults = 14,
  kIperfDone = 16,
  kAccessDenied = -1,  // busy server, or a data connection with a wrong cookie
  kServerError = -2,   // followed by int32 code and (usually) int32 errno
};

inline constexpr size_t kCookieBytes = 37;  // 36 characters and a NUL
inline constexpr uint16_t kDefaultPort = 5201;
// The UDP stream handshake: the client's hello, the server's reply, and the
// reply older servers send (which clients accept too).
inline constexpr uint8_t kUdpHello[4] = {0x39, 0x38, 0x37, 0x36};        // "9876"
inline constexpr uint8_t kUdpReply[4] = {0x36, 0x37, 0x38, 0x39};        // "6789"
inline constexpr uint8_t kUdpLegacyReply[4] = {0xb1, 0x68, 0xde, 0x3a};  // 987654321 LE
// The largest JSON message read from a peer (3.12 has no limit; results
// grow with the stream count and a server's text output).
inline constexpr uint32_t kMaxJson = 4u << 20;
// The largest parameters a server reads (iperf3 3.18 and later refuse more
// than 8 KiB too): they come before the token is checked.
inline constexpr uint32_t kMaxParams = 8u << 10;
// The largest results a server reads from a client: a few hundred bytes a
// stream.
inline uint32_t max_client_results(int streams) {
  return 64u * 1024 + 1024u * static_cast<uint32_t>(std::clamp(streams, 0, 1 << 16));
}
// SERVER_ERROR codes whose meaning a client prints.
inline constexpr int32_t kErrSetBuf = 141;         // "socket buffer size not set correctly"
inline constexpr int32_t kErrSetMss = 123;         // "unable to set TCP/SCTP MSS"
inline constexpr int32_t kErrAuth = 142;           // "test authorization failed" (no errno)
inline constexpr int32_t kErrSetCongestion = 134;  // "unable to set TCP_CONGESTION"
inline constexpr int32_t kErrSetTos = 125;         // "unable to set IP TOS"
inline constexpr int32_t kErrRecvParams = 114;     // "unable to receive parameters from client"
inline constexpr int32_t kErrCreateStream = 200;   // "unable to create a new stream"
// 3.20's --server-max-duration refused the test (no errno follows).
inline constexpr int32_t kErrMaxDuration = 37;
// 3.21: the server's timer (time + omit + 40 s) ended the test.
inline constexpr int32_t kErrDurationExpired = 160;

// A fresh cookie: 36 characters of a-z2-7 from the kernel's random source,
// then a NUL.
std::string make_cookie();
// Whether these are (the first bytes of) a cookie: a-z2-7, and the 37th a
// NUL. For a server telling a new iperf3 connection from other protocols.
enum class CookieMatch { kYes, kNo, kNeedMore };
CookieMatch match_cookie(std::span<const uint8_t> first);

// The client's parameters (§6). Flags are set by a key's presence, as 3.12
// reads them: "reverse":false still means reverse.
struct Params {
  bool udp = false;
  int omit = 0;
  std::optional<int> server_affinity;
  int time = 0;  // seconds; 0 with num or blockcount
  uint64_t num = 0, blockcount = 0;
  int mss = 0;  // "MSS"; 0: not sent
  bool nodelay = false;
  int parallel = 1;
  bool reverse = false, bidirectional = false;
  uint32_t window = 0;  // 0: not sent
  uint32_t len = 0;
  uint64_t bandwidth = 0;  // 0: not sent
  uint64_t fqrate = 0;
  uint32_t pacing_timer = 1000;
  uint32_t burst = 0;
  std::optional<int> tos;  // "TOS"
  int flowlabel = 0;
  std::string title, extra_data, congestion;
  bool get_server_output = false, udp_counters_64bit = false, repeating_payload = false,
       zerocopy = false, dont_fragment = false;
  std::string authtoken;
  std::string client_version = "3.12";

  bool operator==(const Params&) const = default;
};

// The compact JSON 3.12's client sends, its keys in 3.12's order (§6.1).
std::string encode_params(const Params& p);
// Reads parameters as a 3.12 server does (unknown keys ignored, numbers
// given as strings taken). Throws ProtocolError when the JSON cannot be
// read or lacks what a test needs.
Params decode_params(std::string_view json);

// One stream in a results message (§8).
struct StreamResult {
  int id = 0;
  uint64_t bytes = 0;
  int64_t retransmits = -1;  // TCP sender's count; -1 otherwise
  double jitter = 0;         // seconds
  int64_t errors = 0;        // UDP receiver: lost datagrams
  int64_t packets = 0;       // UDP: sent, or the receiver's highest sequence number
  double start_time = 0, end_time = 0;

  bool operator==(const StreamResult&) const = default;
};

struct Results {
  double cpu_util_total = 0, cpu_util_user = 0, cpu_util_system = 0;
  int sender_has_retransmits = -1;  // 1 TCP sender, 0 UDP sender, -1 receives only
  std::optional<std::string> congestion_used;
  std::optional<std::string> server_output_text;
  std::optional<std::string> server_output_json;  // the object's JSON text
  std::vector<StreamResult> streams;

  bool operator==(const Results&) const = default;
};

// We send -1 as -1 (iperf3 3.14 and later do; 3.12 accepts it) and read
// both -1 and 3.12's 18446744073709551615 as -1.
std::string encode_results(const Results& r);
Results decode_results(std::string_view json);

// A JSON message on the wire: u32 big-endian length, then the body.
std::array<uint8_t, 4> length_prefix(uint32_t n);
uint32_t read_length(const uint8_t* four);

// Stream ids as iperf3 numbers them: 1, 3, 4, 5, ... (no 2).
inline int stream_id(uint32_t index) { return index == 0 ? 1 : static_cast<int>(index) + 2; }

// What a SERVER_ERROR code means, in iperf3's words ("" when unknown).
std::string server_error_text(int32_t code);

// A state byte's name as iperf3's sources call it ("PARAM_EXCHANGE"), or
// "state N" for one it does not have.
std::string state_name(int8_t state);

}  // namespace flowperf::proto::iperf3
