// qperf 0.4.11's wire protocol for its socket tests (facts in
// ../shared/protocols/qperf-wire.md). Control messages have no framing:
// each side knows from the sequence what comes next and reads an exact
// byte count. Integers are little-endian whatever the host.
//
//   client                                   server (port 19765)
//     ── connect ─────────────────────────────►
//     ── Request (200 B) ─────────────────────►   ver 0.4, test index
//     ◄──────────────── CONF (256 B) ──────────   conf: then both close
//     ◄──────────────── data port (u32, 4 B) ──   socket tests
//     ── data connect (TCP) / connect() (UDP) ─►
//     ◄─── "synchronization before test" ─────►   27 B, both ways
//     ══ data phase, unframed, `time` s ══════►
//     ◄──────────────── STAT (256 B) ──────────
//     ── "synchronization after test" (26 B) ─►
//
// quit: Request, then the 27-byte sync both ways; the server exits 0.
// Errors, either way: '?' as TCP urgent data, the text in-band (no NUL,
// no newline, at most 255 bytes), then shutdown(SHUT_WR).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace flowperf::proto::qperf {

inline constexpr uint16_t kDefaultPort = 19765;
inline constexpr size_t kRequestBytes = 200;
inline constexpr size_t kRequestHeadBytes = 6;  // the server checks these first
inline constexpr size_t kPortBytes = 4;
inline constexpr size_t kStatBytes = 256;
inline constexpr size_t kConfBytes = 256;
inline constexpr size_t kConfField = 64;
inline constexpr size_t kMaxErrorText = 255;
inline constexpr uint16_t kVerMajor = 0, kVerMinor = 4, kVerIncr = 11;
inline constexpr std::string_view kSyncBefore = "synchronization before test";
inline constexpr std::string_view kSyncAfter = "synchronization after test";
inline constexpr char kErrorMark = '?';

// Test numbers: indices into Debian's server's test table.
enum class Index : uint16_t {
  kConf = 0,
  kQuit = 1,
  kRdsBw = 2,
  kRdsLat = 3,
  kSctpBw = 4,
  kSctpLat = 5,
  kSdpBw = 6,
  kSdpLat = 7,
  kTcpBw = 8,
  kTcpLat = 9,
  kUdpBw = 10,
  kUdpLat = 11,
};
// Debian's build knows indices below this (RDMA tests 12-32).
inline constexpr uint16_t kIndexCount = 33;
// The test's name as qperf names it ("tcp_bw"); "rdma test N" above udp_lat.
std::string index_name(uint16_t index);

// Client -> server, 200 bytes: the remote side's values.
struct Request {
  uint16_t ver_maj = kVerMajor, ver_min = kVerMinor, ver_inc = kVerIncr;
  uint16_t req_index = 0;
  uint32_t access_recv = 0, affinity = 0, alt_port = 0, flip = 0;
  uint32_t msg_size = 0, mtu_size = 0, no_msgs = 0, poll_mode = 0;
  uint32_t port = 0, rd_atomic = 0, sl = 0, sock_buf_size = 0;
  uint32_t src_path_bits = 0, time = 0, timeout = 0, use_cm = 0;
  std::array<char, 64> id{}, static_rate{};
  friend bool operator==(const Request&, const Request&) = default;
};

using RequestBytes = std::array<uint8_t, kRequestBytes>;
RequestBytes encode_request(const Request& r);
// What the first six bytes say: a qperf request of a version we speak, of
// another version (the server answers "upgrade qperf ..."), or not qperf.
enum class HeadMatch { kYes, kOtherVersion, kNo, kNeedMore };
HeadMatch match_head(std::span<const uint8_t> first);
// Decodes all 200 bytes. Throws ProtocolError when the version is not 0.4
// (with qperf's "upgrade qperf on ..." text) or the bytes are short.
// The index is not checked here (the server answers "bad request index").
Request decode_request(std::span<const uint8_t> bytes);
// qperf's text for a version mismatch, naming the side with the older one.
std::string version_mismatch_text(uint16_t peer_maj, uint16_t peer_min, uint16_t peer_inc);

std::array<uint8_t, kPortBytes> encode_port(uint32_t port);
// Throws ProtocolError unless 1-65535.
uint16_t decode_port(std::span<const uint8_t> bytes);

// Server -> client after the test, 256 bytes.
struct Stat {
  uint32_t no_cpus = 0, no_ticks = 0, max_cqes = 0;
  // [0]: times() ticks; [1..8]: /proc/stat's cpu line (user, nice, system,
  // idle, iowait, irq, softirq, steal).
  std::array<uint64_t, 9> time_s{}, time_e{};
  struct Ustat {
    uint64_t bytes = 0, msgs = 0, errs = 0;
    friend bool operator==(const Ustat&, const Ustat&) = default;
  };
  Ustat s, r, rem_s, rem_r;
  friend bool operator==(const Stat&, const Stat&) = default;
  // The server's test time, from time_e[0] - time_s[0]; 0 when none.
  double seconds() const;
};
std::array<uint8_t, kStatBytes> encode_stat(const Stat& s);
// Throws ProtocolError when short or no_ticks is 0.
Stat decode_stat(std::span<const uint8_t> bytes);

// conf's answer: four NUL-terminated 64-byte strings.
struct Conf {
  std::string node, cpu, os, qperf;
  friend bool operator==(const Conf&, const Conf&) = default;
};
// Each field is cut to 63 bytes and NUL-padded.
std::array<uint8_t, kConfBytes> encode_conf(const Conf& c);
// Byte 63 of each field is taken as NUL whatever it holds (the bytes after
// a field's NUL are garbage in qperf's own). Throws ProtocolError when short.
Conf decode_conf(std::span<const uint8_t> bytes);

// The error text as it travels: printable ASCII, no newline, at most 255
// bytes (anything else becomes '?'; longer text is cut).
std::string error_text_for_wire(std::string_view text);

}  // namespace flowperf::proto::qperf
