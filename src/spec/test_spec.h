// TestSpec: a plain description of one test, as every front end produces it
// and as it travels to the server. validate() is pure and reports every
// problem at once, so a user fixes a command line in one go.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/ip_family.h"

namespace flowperf::spec {

// TCP_CC: a connection per transaction and no data (connect, then the
// server closes); its request/response sizes are only reported, as netperf
// reports them.
enum class TestKind { kTcpStream, kTcpMaerts, kUdpStream, kTcpRr, kTcpCrr, kUdpRr, kTcpCc };
enum class Protocol { kTcp, kUdp };
enum class Workload { kStream, kRr };  // bulk transfer, or request/response
// How an open-loop test's requests are spaced (TestSpec::rate_tps).
enum class Arrival { kFixed, kPoisson };

// Facts about a named test: which engine family runs it and who sends.
struct TestInfo {
  TestKind kind;
  const char* name;  // canonical upper-case name, e.g. "TCP_STREAM"
  Protocol protocol;
  Workload workload;
  bool client_sends;             // stream tests: the client is the sender
  bool connect_per_transaction;  // TCP_CRR, TCP_CC
  const char* title;             // what the test measures, for headers
};

const TestInfo& info(TestKind kind);
// TCP_CC carries no data: its transactions are connections alone.
inline bool carries_data(TestKind kind) { return kind != TestKind::kTcpCc; }
const std::vector<TestInfo>& all_tests();
// Case-insensitive lookup of a test name ("tcp_rr", "TCP_RR").
std::optional<TestKind> parse_test_name(std::string_view name);
// "fixed", "poisson" (as --arrival takes them and JSON shows them).
const char* arrival_name(Arrival a);
std::optional<Arrival> parse_arrival(std::string_view name);

inline constexpr uint32_t kMaxUdpPayloadV4 = 65507;
inline constexpr uint32_t kMaxUdpPayloadV6 = 65527;
inline constexpr uint32_t kMaxMessage = 1u << 30;  // one send/recv call, TCP
inline constexpr uint32_t kMaxStreams = 100000;
// UDP_STREAM batching: datagrams per sendmmsg/recvmmsg call.
inline constexpr uint32_t kMaxBatch = 256;
inline constexpr uint32_t kDefaultUdpStreamBatch = 32;  // the native CLI's default
// UDP GSO: segments the kernel accepts in one send (UDP_MAX_SEGMENTS is 64
// on kernels before 6.11, 128 after).
inline constexpr uint32_t kMaxGsoSegments = 64;

// UDP datagrams that fill a 1500-byte Ethernet frame without fragments.
inline constexpr uint32_t kUdpDefaultSizeV4 = 1472, kUdpDefaultSizeV6 = 1452;

// The options of one end's data sockets and data path (the client's is
// TestSpec::local, the server's TestSpec::remote).
struct SideOptions {
  // TCP congestion control (-K, --cc; netperf test -K); empty: the system
  // default.
  std::string cc;
  // IP_TOS (IPv4) / IPV6_TCLASS (IPv6), 0-255 (--tos, netperf -Y); -1: leave
  // the system's alone.
  int tos = -1;
  // SO_PRIORITY (--priority, netperf -y); -1: leave alone. Above 6 needs
  // CAP_NET_ADMIN.
  int priority = -1;
  // The CPU the data path's worker threads run on (--cpu-bind, netperf -T);
  // -1: any.
  int cpu = -1;
  // netperf's wire only (test -P lport,rport; test -L / -H): the data
  // socket's own port (0: ephemeral) and address (empty: the control
  // connection's, or the wildcard). flowperf's own protocol picks its data
  // ports itself and refuses a spec that sets these.
  uint16_t data_port = 0;
  std::string data_host;

  bool operator==(const SideOptions&) const = default;
};

// Which end of a test: the client (local) or the server (remote).
enum class End { kLocal, kRemote };

// The datagram header UDP stream flows write and read: flowperf's, iperf3's
// (sequence numbers of 32 bits, or with --udp-counters-64bit 64), or none
// (qperf's datagrams carry nothing but their length: no loss, order or
// jitter is tracked).
enum class UdpHeader { kFlowperf, kIperf3, kIperf3Wide, kNone };

struct WireOptions {
  // UDP_RR client: an answer must echo its request's sequence number
  // (netserver answers with its own bytes: false).
  bool match_sequence = true;
  // UDP server flows: a zero-length datagram ends the flow (netperf's
  // end-of-test mark).
  bool end_on_empty = false;
  UdpHeader udp_header = UdpHeader::kFlowperf;
  // Paced UDP senders: datagrams sent back to back per turn (iperf3 -b R/N).
  uint32_t udp_burst = 0;
  // Stream receivers read through every byte they receive (qperf's access_recv).
  bool touch_received = false;
  bool operator==(const WireOptions&) const = default;
};

struct TestSpec {
  TestKind test = TestKind::kTcpStream;
  IpFamily ip_family = IpFamily::kAny;

  // Stream tests: bytes per send call (-m) and per receive call (-M). Zero
  // means the default for the protocol (see effective_send_size()).
  uint32_t send_size = 0;
  uint32_t recv_size = 0;
  // Request/response sizes (-r).
  uint32_t request_size = 1;
  uint32_t response_size = 1;

  // Socket buffers, 0 = the system default (-s local, -S remote).
  uint32_t local_sndbuf = 0, local_rcvbuf = 0;
  uint32_t remote_sndbuf = 0, remote_rcvbuf = 0;
  bool nodelay = false;  // -D

  uint64_t rate_bps = 0;  // -b, UDP stream pacing; 0 = as fast as possible

  double duration_s = 10.0;  // -l, used when count == 0
  uint64_t count = 0;        // -n: bytes (stream) or transactions (rr), whole test
  uint32_t streams = 1;      // -P
  uint32_t threads = 0;      // worker threads per side; 0 = min(streams, cores)
  double interval_s = 0;     // -i, 0 = no interval reports

  // UDP_RR: smallest per-transaction timeout, microseconds (the timeout
  // itself follows the measured round trip).
  uint32_t udp_rr_min_timeout_us = 50;

  // Each end's data sockets and data path: `local` is the client's (the end
  // the front end runs on), `remote` the server's.
  SideOptions local, remote;
  // SO_KEEPALIVE on both ends' TCP data sockets (--keepalive, netperf -S).
  bool keepalive = false;
  // TCP_CORK on the TCP data sockets (--cork: both ends; netperf test -C:
  // netperf's end only, as its protocol cannot ask netserver for it).
  bool cork = false;
  // TCP_RR and UDP_RR: requests the client keeps in flight beyond the first
  // (--burst, netperf test -b); 0: one at a time.
  uint32_t burst = 0;
  // Open loop (--rate): TCP_RR and UDP_RR send requests on a schedule, this
  // many a second in all (spread over the streams), whether or not earlier
  // answers came; each latency counts from the request's intended send
  // time, so a stall costs every request that waited behind it (no
  // coordinated omission). 0: closed loop, the next request after the
  // answer. Gaps are equal (kFixed; the streams' schedules interleave) or
  // exponential (kPoisson, from `seed`, each stream its own sequence).
  double rate_tps = 0;
  Arrival arrival = Arrival::kFixed;
  uint64_t seed = 1;
  // Open loop: requests one stream keeps in flight at most. A request due
  // while that many wait for answers is sent as soon as one comes, still
  // timed from its intended time, and is counted as held by the cap.
  uint32_t max_outstanding = 1000;
  // Latency under load (--probe): a stream test also runs a request/response
  // probe, `probe_test` (TCP_RR or UDP_RR, 1 byte each way) open loop at
  // this many requests a second on a connection of its own to the same
  // server, first alone for `probe_baseline_s` (idle), then while the
  // streams run (loaded). 0: no probe. The client runs the probe as tests
  // of their own; a server sees two ordinary tests.
  double probe_rate_tps = 0;
  double probe_baseline_s = 2;
  TestKind probe_test = TestKind::kTcpRr;
  // TCP_STREAM and TCP_MAERTS (--bidir): the other direction at the same
  // time, as many streams again on connections of their own (the client
  // runs TCP_MAERTS beside TCP_STREAM, or the other way round, as a second
  // test to the same server; a server never sees this flag set).
  bool bidir = false;
  // A file whose bytes, repeated, fill the client's send buffers (netperf
  // -F); empty: flowperf's own pattern. Only ever read on the client: a
  // server never reads a file a client names.
  std::string fill_file;

  // Modes that trade realism for speed. Each is off (1, false) unless asked
  // for, and is named in the text header and in the JSON spec.
  //
  // UDP_STREAM: datagrams per system call on both ends (--batch): the
  // sender uses sendmmsg, the receiver recvmmsg. 1 = send/recv per datagram.
  uint32_t batch = 1;
  // UDP_STREAM: the sender hands the kernel `batch` datagrams as one UDP GSO
  // buffer (UDP_SEGMENT); every datagram still carries its own sequence
  // number and is still received as a datagram of its own.
  bool gso = false;
  // UDP_STREAM: the receiver takes GRO-coalesced buffers (UDP_GRO) and splits
  // them itself. On loopback, with gso, a GSO buffer then reaches the
  // receiver whole: no per-datagram work is left in the kernel at all.
  bool gro = false;
  // Workers spin on non-blocking sockets instead of sleeping in the kernel
  // (--busy-poll): lower latency, one busy CPU per worker thread.
  bool busy_poll = false;
  // TCP_CRR: the client ends each connection with an RST (SO_LINGER 0) as
  // soon as the answer is in (--rst-close), as neper's tcp_crr does: no FIN
  // from either side, no wait for the server's close, no TIME_WAIT.
  bool rst_close = false;
  // TCP_STREAM and TCP_MAERTS: the sending end sends with sendfile(2) from
  // an in-memory file holding one send's worth of data (--sendfile, netperf's
  // TCP_SENDFILE, iperf3's -Z): the kernel takes the file's pages by
  // reference instead of copying a user buffer into the socket.
  bool sendfile = false;
  // Stream tests: each send (receive) call's time, from its first try until
  // the kernel took (gave) the data, goes in the latency histogram
  // (--call-latency; netperf's latency selectors of a stream test). TCP:
  // both ends' calls; UDP_STREAM: the sender's.
  bool call_latency = false;
  // How the flows speak on the wire where a personality's protocol differs
  // from flowperf's own (its session sets them; flowperf's protocol keeps
  // the defaults and never sends them).
  WireOptions wire;

  // The default UDP size is kUdpDefaultSizeV4; a client that finds it
  // talks IPv6 sets kUdpDefaultSizeV6 explicitly.
  uint32_t effective_send_size() const;
  uint32_t effective_recv_size() const;
  // Bytes the server sends per call (MAERTS) or expects (STREAM).
  uint32_t remote_send_size() const { return effective_send_size(); }

  const SideOptions& side(End end) const { return end == End::kLocal ? local : remote; }
  bool operator==(const TestSpec&) const = default;
};

// Every problem with the spec, each one line that names the option and what
// is accepted. Empty when the spec is runnable. `here` is the end this
// process plays: its CPU binding must be one of the CPUs this process may
// run on (the only thing validate() asks the system); the other end's is
// checked there.
std::vector<std::string> validate(const TestSpec& spec, End here = End::kLocal);

// Whether this process may run on `cpu` (sched_getaffinity).
bool cpu_usable(int cpu);

// Limits of the data-path options.
inline constexpr uint32_t kMaxBurst = 1u << 20;
// Open loop: at most this many transactions a second, and requests in flight per stream.
inline constexpr double kMaxRateTps = 1e8;
inline constexpr uint32_t kMaxOutstanding = 1u << 20;
// A probe measures latency beside a load; it is not the load.
inline constexpr double kMaxProbeRateTps = 100'000;
// Its requests and answers: one byte each, the smallest a network carries.
inline constexpr uint32_t kProbeMessageBytes = 1;
inline constexpr int kMaxCpu = 1024;  // CPU_SETSIZE

unsigned default_threads(const TestSpec& spec);

// The largest --batch that --gso allows with this send size: one GSO buffer
// holds at most kMaxGsoSegments datagrams and one IP packet's payload.
uint32_t max_gso_batch(const TestSpec& spec);

// Descriptors one side needs for the test's data path (sockets, listeners,
// epoll sets) plus a margin for the process's own files.
uint64_t data_descriptors(const TestSpec& spec, unsigned threads);

}  // namespace flowperf::spec
