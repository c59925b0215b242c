// netperf 2.7's control messages (../shared/protocols/netperf-wire.md),
// encoded and decoded by pure functions, for both ends: flowperf's netperf
// client talking to a real netserver, and flowperf's server answering a real
// netperf.
//
// Every message is exactly 656 bytes, with no length prefix and no version:
//
//   byte 0      4                 8 ......................................... 656
//        type   dummy / errno     162 int32 words, test-specific
//
// netperf converts the first 2+n int32 words with htonl and sends the rest as
// the sender's raw memory. Numeric fields are therefore big-endian on the
// wire, floats are big-endian IEEE-754 singles, 64-bit counters travel as hi
// and lo words, and char arrays (past each omni struct's cutoff: 38 words
// for the request, 18 for the setup response, 27 for the results) are raw
// bytes. Classic (pre-omni) messages convert every word; their doubles are
// big-endian, all 8 bytes (netperf's htond() undoes the word swap first).
// Responses that follow a setup response on the same buffer (omni and
// classic results) carry a garbled type: netserver swaps its header twice.
//
// One omni test on the control connection:
//
//   netperf                           netserver
//     DO_OMNI (97) request ─────────►
//                        ◄─────────── setup response (98): data port, buffers
//     data connection / datagrams ══► (no start message)
//     end: TCP half-close, or three zero-length UDP datagrams
//                        ◄─────────── results, unsolicited
//   (next test, or shutdown(SHUT_WR) of the control connection)
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>

namespace flowperf::proto::netperf {

inline constexpr size_t kMessageBytes = 656;
inline constexpr size_t kDataWords = 162;
using Frame = std::array<uint8_t, kMessageBytes>;

// Request and response types (header word 0).
inline constexpr int32_t kDebugOn = 1;
inline constexpr int32_t kDebugOff = 2;
inline constexpr int32_t kDebugOk = 3;
inline constexpr int32_t kCpuCalibrate = 5;
inline constexpr int32_t kPassphrase = 6;
inline constexpr int32_t kDoTcpStream = 10;
inline constexpr int32_t kTcpStreamResponse = 11;
inline constexpr int32_t kTcpStreamResults = 12;
inline constexpr int32_t kDoTcpRr = 13;
inline constexpr int32_t kTcpRrResponse = 14;
inline constexpr int32_t kTcpRrResults = 15;
inline constexpr int32_t kDoOmni = 97;
inline constexpr int32_t kDoTcpCc = 300;
inline constexpr int32_t kTcpCcResponse = 301;
inline constexpr int32_t kTcpCcResults = 302;
inline constexpr int32_t kOmniResponse = 98;
inline constexpr int32_t kDoSysinfo = 600;
inline constexpr int32_t kSysinfoResponse = 601;

// netserver's serv_errno for a request type it does not know.
inline constexpr int32_t kUnknownRequestErrno = 998;

// Omni enums and flags.
inline constexpr uint32_t kNfUnspec = 0, kNfInet = 4, kNfInet6 = 6;
inline constexpr uint32_t kNstStream = 1, kNstDgram = 2;
inline constexpr uint32_t kDirXmit = 0x2, kDirRecv = 0x4;  // the receiver of the request's view
inline constexpr uint32_t kFlagNoDelay = 0x1;
inline constexpr uint32_t kFlagSendfile = 0x2;
inline constexpr uint32_t kFlagConnectTest = 0x4;
inline constexpr uint32_t kFlagMeasureCpu = 0x8;
inline constexpr uint32_t kFlagWantRemoteCong = 0x20;
inline constexpr uint32_t kFlagFastOpen = 0x800;
inline constexpr uint32_t kFlagUseConnected = 0x4000;
inline constexpr uint32_t kFlagKeepalive = 0x80000000;  // SO_KEEPALIVE on the data socket
inline constexpr int kPadTimeS = 4;
// How a side measured its CPU: netperf's enum on the wire (PROC_STAT is 8),
// printed as one letter ("% S").
inline constexpr int32_t kCpuMethodUnknown = 0, kCpuMethodProcStat = 8;
char cpu_method_letter(int32_t method);  // netserver's timer pad for tests it does not only send in

class WireError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Header {
  int32_t type = 0;
  int32_t second = 0;  // requests: CPU-affinity id (-1 = none); responses: serv_errno
};

struct OmniRequest {
  int32_t send_buf_size = -1;  // -1: the system default
  int32_t send_size = -1;      // -1: netserver chooses
  uint32_t send_alignment = 8, send_offset = 0, send_width = 0;
  int32_t request_size = -1;
  int32_t recv_buf_size = -1;
  int32_t receive_size = -1;
  uint32_t recv_alignment = 8, recv_offset = 0, recv_width = 0;
  int32_t response_size = -1;
  uint32_t flags = 0;
  float cpu_rate = 0;
  int32_t test_length = 0;  // > 0 seconds; < 0 minus a byte or transaction count
  uint32_t so_rcvavoid = 0, so_sndavoid = 0;
  int32_t send_dirty_count = -1, recv_dirty_count = -1, recv_clean_count = -1;
  uint32_t data_port = 0;  // 0: ephemeral
  uint32_t ipfamily = kNfUnspec;
  uint32_t socket_type = kNstStream;
  uint32_t protocol = 6;
  uint32_t direction = 0;  // the server's view
  uint32_t netperf_port = 0;
  uint32_t interval_burst = 0, interval_usecs = 0;
  std::array<uint32_t, 4> netperf_ip{};    // see ip_to_words()
  std::array<uint32_t, 4> netserver_ip{};  // all zero unless the data address was explicit
  int32_t socket_prio = -1, socket_tos = -1;
  std::string cong_control;  // at most 15 bytes
  std::string fill_file;     // at most 31 bytes
};

struct OmniResponse {
  int32_t recv_buf_size = 0;
  int32_t receive_size = 0;
  int32_t recv_width = 0;
  int32_t send_buf_size = 0;
  int32_t send_size = 0;
  int32_t send_width = 0;
  uint32_t flags = 0;
  float cpu_rate = 0;
  uint32_t test_length = 0;
  uint32_t so_rcvavoid = 0, so_sndavoid = 0;
  uint32_t data_port = 0;
  uint32_t interval_burst = 0, interval_usecs = 0;
  uint32_t cpu_frequency = 0, security_info = 0;
  int32_t socket_prio = -1, socket_tos = -1;
  std::string system_model;     // at most 32 bytes
  std::string cpu_model;        // at most 79 bytes
  std::string security_string;  // at most 15 bytes
};

struct OmniResults {
  uint64_t bytes_received = 0;
  uint32_t recv_calls = 0;
  int32_t recv_buf_size = 0;  // at the end of the test
  uint64_t bytes_sent = 0;
  uint32_t send_calls = 0;
  int32_t send_buf_size = 0;
  uint32_t failed_sends = 0;
  uint32_t trans_received = 0;
  float elapsed_time = 0;
  float cpu_util = 0, cpu_percent_user = 0, cpu_percent_system = 0, cpu_percent_iowait = 0;
  float cpu_percent_irq = 0, cpu_percent_swintr = 0, serv_dem = 0;
  uint32_t cpu_method = 0;  // 0: unknown (not measured)
  uint32_t num_cpus = 0;
  int32_t peak_cpu_id = 0;
  float peak_cpu_util = 0;
  int32_t vendor = 0, device = 0, subvendor = 0, subdevice = 0;
  int32_t transport_retrans = 0;
  std::string ifname, driver, version, firmware, bus, ifslot, cong_control;
};

// Classic TCP_STREAM (10/11/12) and TCP_RR (13/14/15), every word swapped.
// TCP_CC (300/301/302), which netperf 2.7 still runs the classic way, uses
// TCP_RR's three layouts word for word under its own message types.
struct ClassicTcpStreamRequest {
  int32_t send_buf_size = -1, recv_buf_size = -1, receive_size = 0;
  int32_t recv_alignment = 8, recv_offset = 0, no_delay = 0, measure_cpu = 0;
  float cpu_rate = 0;
  int32_t test_length = 0;
  int32_t so_rcvavoid = 0, so_sndavoid = 0, dirty_count = 0, clean_count = 0;
  int32_t port = 0;
  int32_t ipfamily = 0;  // NF_ value
  int32_t recv_aio = 0;
};
struct ClassicTcpStreamResponse {
  int32_t recv_buf_size = 0, receive_size = 0, no_delay = 0, measure_cpu = 0, test_length = 0;
  int32_t send_buf_size = 0, data_port = 0;
  float cpu_rate = 0;
  int32_t so_rcvavoid = 0, so_sndavoid = 0;
};
struct ClassicTcpStreamResults {
  double bytes_received = 0;
  uint32_t recv_calls = 0;
  float elapsed_time = 0, cpu_util = -1, serv_dem = -1;
  int32_t cpu_method = 0, num_cpus = 0, recv_buf_size = 0, send_buf_size = 0;
};
struct ClassicTcpRrRequest {
  int32_t recv_buf_size = -1, send_buf_size = -1;
  int32_t recv_alignment = 8, recv_offset = 0, send_alignment = 8, send_offset = 0;
  int32_t request_size = 1, response_size = 1, no_delay = 0, measure_cpu = 0;
  float cpu_rate = 0;
  int32_t test_length = 0, so_rcvavoid = 0, so_sndavoid = 0, port = 0, ipfamily = 0;
};
struct ClassicTcpRrResponse {
  int32_t recv_buf_size = 0, no_delay = 0, measure_cpu = 0, test_length = 0, send_buf_size = 0;
  int32_t data_port = 0;
  float cpu_rate = 0;
  int32_t so_rcvavoid = 0, so_sndavoid = 0;
};
struct ClassicTcpRrResults {
  uint32_t bytes_received = 0, recv_calls = 0, trans_received = 0;
  float elapsed_time = 0, cpu_util = -1, serv_dem = -1;
  int32_t cpu_method = 0, num_cpus = 0;
};

// What a netserver does with each request type it reads.
enum class RequestKind {
  kOmni,
  kPassphraseNoReply,
  kDebug,  // reply kDebugOk
  kCalibrateCpu,
  kSysinfo,
  kClassicTcpStream,
  kClassicTcpRr,
  kClassicTcpCc,
  kUnknown  // reply serv_errno 998
};
RequestKind classify_request(int32_t type);

// Throws WireError unless bytes holds exactly one message.
Frame to_frame(std::span<const uint8_t> bytes);
Header decode_header(const Frame& f);

Frame encode_omni_request(const OmniRequest& r, int32_t cpu_affinity = -1);
OmniRequest decode_omni_request(const Frame& f);
Frame encode_omni_response(const OmniResponse& r, int32_t serv_errno = 0);
OmniResponse decode_omni_response(const Frame& f);
// The results carry type 98 from us; netserver's own are junk there (it
// swaps its setup header a second time), so decoding never looks.
Frame encode_omni_results(const OmniResults& r, int32_t serv_errno = 0);
OmniResults decode_omni_results(const Frame& f);

Frame encode_classic_tcp_stream_request(const ClassicTcpStreamRequest& r);
ClassicTcpStreamRequest decode_classic_tcp_stream_request(const Frame& f);
Frame encode_classic_tcp_stream_response(const ClassicTcpStreamResponse& r, int32_t serv_errno = 0);
ClassicTcpStreamResponse decode_classic_tcp_stream_response(const Frame& f);
Frame encode_classic_tcp_stream_results(const ClassicTcpStreamResults& r);
ClassicTcpStreamResults decode_classic_tcp_stream_results(const Frame& f);
// `type`: kDoTcpRr / kTcpRrResponse / kTcpRrResults, or TCP_CC's.
// cpu_affinity: header word 1, as in the omni request (netperf -T ,n).
Frame encode_classic_tcp_rr_request(const ClassicTcpRrRequest& r, int32_t type = kDoTcpRr,
                                    int32_t cpu_affinity = -1);
ClassicTcpRrRequest decode_classic_tcp_rr_request(const Frame& f);
Frame encode_classic_tcp_rr_response(const ClassicTcpRrResponse& r, int32_t serv_errno = 0,
                                     int32_t type = kTcpRrResponse);
ClassicTcpRrResponse decode_classic_tcp_rr_response(const Frame& f);
Frame encode_classic_tcp_rr_results(const ClassicTcpRrResults& r, int32_t type = kTcpRrResults);
ClassicTcpRrResults decode_classic_tcp_rr_results(const Frame& f);

// PASSPHRASE: the header swapped, then the NUL-terminated phrase raw.
Frame encode_passphrase(const std::string& phrase);
std::string decode_passphrase(const Frame& f);

// A bare response: only the header means anything (errors, DEBUG_OK).
Frame encode_status(int32_t type, int32_t serv_errno);
// netserver's answer to a request it does not know: serv_errno 998.
Frame encode_unknown_request_reply();
// CPU_CALIBRATE's reply: the rate (f32; 0 = not measured) and the CPU count.
Frame encode_cpu_calibrate_reply(float rate, int32_t num_cpus);
// DO_SYSINFO's reply: a raw comma-separated string.
Frame encode_sysinfo_reply(const std::string& text);

// IP addresses in the omni request as a little-endian netperf writes them:
// IPv4 in network order in word 0; IPv6 as four words each byte-reversed
// (netperf htonl's the raw address bytes). addr: 4 or 16 bytes.
std::array<uint32_t, 4> ip_to_words(uint32_t nf_family, const uint8_t* addr);
// The inverse; writes 4 (NF_INET) or 16 (NF_INET6) bytes.
void words_to_ip(uint32_t nf_family, const std::array<uint32_t, 4>& words, uint8_t* addr);

}  // namespace flowperf::proto::netperf
