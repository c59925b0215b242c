#include "proto/netperf_wire.h"

#include <bit>
#include <cmath>
#include <cstring>

namespace flowperf::proto::netperf {
namespace {

// Byte offsets in a frame.
constexpr size_t kDataOffset = 8;
constexpr size_t word_offset(size_t i) { return kDataOffset + 4 * i; }

// The raw tails of the omni structs start right after their converted words.
constexpr size_t kRequestTail = word_offset(38);
constexpr size_t kResponseTail = word_offset(18);
constexpr size_t kResultsTail = word_offset(27);

void put_be(Frame& f, size_t off, uint32_t v) {
  f[off] = static_cast<uint8_t>(v >> 24);
  f[off + 1] = static_cast<uint8_t>(v >> 16);
  f[off + 2] = static_cast<uint8_t>(v >> 8);
  f[off + 3] = static_cast<uint8_t>(v);
}
uint32_t get_be(const Frame& f, size_t off) {
  return (uint32_t{f[off]} << 24) | (uint32_t{f[off + 1]} << 16) | (uint32_t{f[off + 2]} << 8) |
         uint32_t{f[off + 3]};
}

// Reads and writes test-specific words in order, so each struct's layout is
// written once as a list of fields.
class Writer {
 public:
  explicit Writer(Frame& f) : f_(f) {}
  Writer& u(uint32_t v) {
    put_be(f_, word_offset(i_++), v);
    return *this;
  }
  Writer& i(int32_t v) { return u(static_cast<uint32_t>(v)); }
  Writer& f(float v) { return u(std::bit_cast<uint32_t>(v)); }
  Writer& u64(uint64_t v) { return u(static_cast<uint32_t>(v >> 32)).u(static_cast<uint32_t>(v)); }
  // A classic double: big-endian, all 8 bytes (netserver's htond()
  // pre-compensates for the word swap that follows).
  Writer& d(double v) {
    uint64_t bits = std::bit_cast<uint64_t>(v);
    return u(static_cast<uint32_t>(bits >> 32)).u(static_cast<uint32_t>(bits));
  }

 private:
  Frame& f_;
  size_t i_ = 0;
};

class Reader {
 public:
  explicit Reader(const Frame& f) : f_(f) {}
  uint32_t u() { return get_be(f_, word_offset(i_++)); }
  int32_t i() { return static_cast<int32_t>(u()); }
  float f() { return std::bit_cast<float>(u()); }
  uint64_t u64() {
    uint64_t hi = u();
    return (hi << 32) | u();
  }
  // A classic double: big-endian. A sender whose htond() went wrong (a
  // mixed-endian one) swaps the halves; when only that reading is a
  // plausible count (finite, non-negative, whole), it wins.
  double d() {
    uint64_t a = u(), b = u();
    double be = std::bit_cast<double>((a << 32) | b);
    double swapped = std::bit_cast<double>((b << 32) | a);
    auto plausible = [](double x) {
      return std::isfinite(x) && x >= 0 && x < 1e19 && x == std::floor(x);
    };
    return plausible(be) || !plausible(swapped) ? be : swapped;
  }

 private:
  const Frame& f_;
  size_t i_ = 0;
};

void put_header(Frame& f, int32_t type, int32_t second) {
  put_be(f, 0, static_cast<uint32_t>(type));
  put_be(f, 4, static_cast<uint32_t>(second));
}

// A NUL-terminated char array of `size` bytes at `off`.
void put_chars(Frame& f, size_t off, size_t size, const std::string& s) {
  size_t n = std::min(s.size(), size - 1);
  std::memcpy(f.data() + off, s.data(), n);
  std::memset(f.data() + off + n, 0, size - n);
}
std::string get_chars(const Frame& f, size_t off, size_t size) {
  const char* p = reinterpret_cast<const char*>(f.data() + off);
  return std::string(p, strnlen(p, size));
}

Frame blank(int32_t type, int32_t second) {
  Frame f{};
  put_header(f, type, second);
  return f;
}

}  // namespace

char cpu_method_letter(int32_t method) {
  // CPU_UNKNOWN, HP_IDLE_COUNTER, PSTAT, TIMES, LOOPER, GETRUSAGE,
  // NT_METHOD, KSTAT, PROC_STAT, SYSCTL, PERFSTAT, KSTAT_10, OSX (netlib.h)
  static constexpr char kLetters[] = "UIPTLRNKSCEMO";
  if (method < 0 || method >= static_cast<int32_t>(sizeof kLetters - 1)) return '?';
  return kLetters[method];
}

RequestKind classify_request(int32_t type) {
  switch (type) {
    case kDoOmni:
      return RequestKind::kOmni;
    case kPassphrase:
      return RequestKind::kPassphraseNoReply;
    case kDebugOn:
    case kDebugOff:
      return RequestKind::kDebug;
    case kCpuCalibrate:
      return RequestKind::kCalibrateCpu;
    case kDoSysinfo:
      return RequestKind::kSysinfo;
    case kDoTcpStream:
      return RequestKind::kClassicTcpStream;
    case kDoTcpRr:
      return RequestKind::kClassicTcpRr;
    case kDoTcpCc:
      return RequestKind::kClassicTcpCc;
    default:
      return RequestKind::kUnknown;
  }
}

Frame to_frame(std::span<const uint8_t> bytes) {
  if (bytes.size() != kMessageBytes)
    throw WireError("a netperf control message is " + std::to_string(kMessageBytes) +
                    " bytes, not " + std::to_string(bytes.size()));
  Frame f;
  std::memcpy(f.data(), bytes.data(), kMessageBytes);
  return f;
}

Header decode_header(const Frame& f) {
  return {static_cast<int32_t>(get_be(f, 0)), static_cast<int32_t>(get_be(f, 4))};
}

// ---- omni ----

Frame encode_omni_request(const OmniRequest& r, int32_t cpu_affinity) {
  Frame f = blank(kDoOmni, cpu_affinity);
  Writer w(f);
  w.i(r.send_buf_size).i(r.send_size).u(r.send_alignment).u(r.send_offset).u(r.send_width);
  w.i(r.request_size);
  w.i(r.recv_buf_size).i(r.receive_size).u(r.recv_alignment).u(r.recv_offset).u(r.recv_width);
  w.i(r.response_size);
  w.u(r.flags).f(r.cpu_rate).i(r.test_length).u(r.so_rcvavoid).u(r.so_sndavoid);
  w.i(r.send_dirty_count).i(r.recv_dirty_count).i(r.recv_clean_count);
  w.u(r.data_port).u(r.ipfamily).u(r.socket_type).u(r.protocol).u(r.direction);
  w.u(r.netperf_port).u(r.interval_burst).u(r.interval_usecs);
  for (uint32_t v : r.netperf_ip) w.u(v);
  for (uint32_t v : r.netserver_ip) w.u(v);
  w.i(r.socket_prio).i(r.socket_tos);
  put_chars(f, kRequestTail, 16, r.cong_control);
  put_chars(f, kRequestTail + 16, 32, r.fill_file);
  return f;
}

OmniRequest decode_omni_request(const Frame& f) {
  OmniRequest r;
  Reader in(f);
  r.send_buf_size = in.i();
  r.send_size = in.i();
  r.send_alignment = in.u();
  r.send_offset = in.u();
  r.send_width = in.u();
  r.request_size = in.i();
  r.recv_buf_size = in.i();
  r.receive_size = in.i();
  r.recv_alignment = in.u();
  r.recv_offset = in.u();
  r.recv_width = in.u();
  r.response_size = in.i();
  r.flags = in.u();
  r.cpu_rate = in.f();
  r.test_length = in.i();
  r.so_rcvavoid = in.u();
  r.so_sndavoid = in.u();
  r.send_dirty_count = in.i();
  r.recv_dirty_count = in.i();
  r.recv_clean_count = in.i();
  r.data_port = in.u();
  r.ipfamily = in.u();
  r.socket_type = in.u();
  r.protocol = in.u();
  r.direction = in.u();
  r.netperf_port = in.u();
  r.interval_burst = in.u();
  r.interval_usecs = in.u();
  for (auto& v : r.netperf_ip) v = in.u();
  for (auto& v : r.netserver_ip) v = in.u();
  r.socket_prio = in.i();
  r.socket_tos = in.i();
  r.cong_control = get_chars(f, kRequestTail, 16);
  r.fill_file = get_chars(f, kRequestTail + 16, 32);
  return r;
}

Frame encode_omni_response(const OmniResponse& r, int32_t serv_errno) {
  Frame f = blank(kOmniResponse, serv_errno);
  Writer w(f);
  w.i(r.recv_buf_size).i(r.receive_size).i(r.recv_width);
  w.i(r.send_buf_size).i(r.send_size).i(r.send_width);
  w.u(r.flags).f(r.cpu_rate).u(r.test_length).u(r.so_rcvavoid).u(r.so_sndavoid);
  w.u(r.data_port).u(r.interval_burst).u(r.interval_usecs).u(r.cpu_frequency);
  w.u(r.security_info).i(r.socket_prio).i(r.socket_tos);
  put_chars(f, kResponseTail, 33, r.system_model);
  put_chars(f, kResponseTail + 33, 80, r.cpu_model);
  put_chars(f, kResponseTail + 113, 16, r.security_string);
  return f;
}

OmniResponse decode_omni_response(const Frame& f) {
  OmniResponse r;
  Reader in(f);
  r.recv_buf_size = in.i();
  r.receive_size = in.i();
  r.recv_width = in.i();
  r.send_buf_size = in.i();
  r.send_size = in.i();
  r.send_width = in.i();
  r.flags = in.u();
  r.cpu_rate = in.f();
  r.test_length = in.u();
  r.so_rcvavoid = in.u();
  r.so_sndavoid = in.u();
  r.data_port = in.u();
  r.interval_burst = in.u();
  r.interval_usecs = in.u();
  r.cpu_frequency = in.u();
  r.security_info = in.u();
  r.socket_prio = in.i();
  r.socket_tos = in.i();
  r.system_model = get_chars(f, kResponseTail, 33);
  r.cpu_model = get_chars(f, kResponseTail + 33, 80);
  r.security_string = get_chars(f, kResponseTail + 113, 16);
  return r;
}

Frame encode_omni_results(const OmniResults& r, int32_t serv_errno) {
  Frame f = blank(kOmniResponse, serv_errno);
  Writer w(f);
  w.u64(r.bytes_received).u(r.recv_calls).i(r.recv_buf_size);
  w.u64(r.bytes_sent).u(r.send_calls).i(r.send_buf_size).u(r.failed_sends).u(r.trans_received);
  w.f(r.elapsed_time).f(r.cpu_util).f(r.cpu_percent_user).f(r.cpu_percent_system);
  w.f(r.cpu_percent_iowait).f(r.cpu_percent_irq).f(r.cpu_percent_swintr).f(r.serv_dem);
  w.u(r.cpu_method).u(r.num_cpus).i(r.peak_cpu_id).f(r.peak_cpu_util);
  w.i(r.vendor).i(r.device).i(r.subvendor).i(r.subdevice).i(r.transport_retrans);
  size_t off = kResultsTail;
  for (auto [s, size] : {std::pair{&r.ifname, 16},
                         {&r.driver, 32},
                         {&r.version, 32},
                         {&r.firmware, 32},
                         {&r.bus, 32},
                         {&r.ifslot, 16},
                         {&r.cong_control, 16}}) {
    put_chars(f, off, static_cast<size_t>(size), *s);
    off += static_cast<size_t>(size);
  }
  return f;
}

OmniResults decode_omni_results(const Frame& f) {
  OmniResults r;
  Reader in(f);
  r.bytes_received = in.u64();
  r.recv_calls = in.u();
  r.recv_buf_size = in.i();
  r.bytes_sent = in.u64();
  r.send_calls = in.u();
  r.send_buf_size = in.i();
  r.failed_sends = in.u();
  r.trans_received = in.u();
  r.elapsed_time = in.f();
  r.cpu_util = in.f();
  r.cpu_percent_user = in.f();
  r.cpu_percent_system = in.f();
  r.cpu_percent_iowait = in.f();
  r.cpu_percent_irq = in.f();
  r.cpu_percent_swintr = in.f();
  r.serv_dem = in.f();
  r.cpu_method = in.u();
  r.num_cpus = in.u();
  r.peak_cpu_id = in.i();
  r.peak_cpu_util = in.f();
  r.vendor = in.i();
  r.device = in.i();
  r.subvendor = in.i();
  r.subdevice = in.i();
  r.transport_retrans = in.i();
  size_t off = kResultsTail;
  for (auto [s, size] : {std::pair{&r.ifname, 16},
                         {&r.driver, 32},
                         {&r.version, 32},
                         {&r.firmware, 32},
                         {&r.bus, 32},
                         {&r.ifslot, 16},
                         {&r.cong_control, 16}}) {
    *s = get_chars(f, off, static_cast<size_t>(size));
    off += static_cast<size_t>(size);
  }
  return r;
}

// ---- classic TCP_STREAM and TCP_RR ----

Frame encode_classic_tcp_stream_request(const ClassicTcpStreamRequest& r) {
  Frame f = blank(kDoTcpStream, -1);
  Writer w(f);
  w.i(r.send_buf_size).i(r.recv_buf_size).i(r.receive_size).i(r.recv_alignment);
  w.i(r.recv_offset).i(r.no_delay).i(r.measure_cpu).f(r.cpu_rate).i(r.test_length);
  w.i(r.so_rcvavoid).i(r.so_sndavoid).i(r.dirty_count).i(r.clean_count).i(r.port);
  w.i(r.ipfamily).i(r.recv_aio);
  return f;
}

ClassicTcpStreamRequest decode_classic_tcp_stream_request(const Frame& f) {
  ClassicTcpStreamRequest r;
  Reader in(f);
  r.send_buf_size = in.i();
  r.recv_buf_size = in.i();
  r.receive_size = in.i();
  r.recv_alignment = in.i();
  r.recv_offset = in.i();
  r.no_delay = in.i();
  r.measure_cpu = in.i();
  r.cpu_rate = in.f();
  r.test_length = in.i();
  r.so_rcvavoid = in.i();
  r.so_sndavoid = in.i();
  r.dirty_count = in.i();
  r.clean_count = in.i();
  r.port = in.i();
  r.ipfamily = in.i();
  r.recv_aio = in.i();
  return r;
}

Frame encode_classic_tcp_stream_response(const ClassicTcpStreamResponse& r, int32_t serv_errno) {
  Frame f = blank(kTcpStreamResponse, serv_errno);
  Writer w(f);
  w.i(r.recv_buf_size).i(r.receive_size).i(r.no_delay).i(r.measure_cpu).i(r.test_length);
  w.i(r.send_buf_size).i(r.data_port).f(r.cpu_rate).i(r.so_rcvavoid).i(r.so_sndavoid);
  return f;
}

ClassicTcpStreamResponse decode_classic_tcp_stream_response(const Frame& f) {
  ClassicTcpStreamResponse r;
  Reader in(f);
  r.recv_buf_size = in.i();
  r.receive_size = in.i();
  r.no_delay = in.i();
  r.measure_cpu = in.i();
  r.test_length = in.i();
  r.send_buf_size = in.i();
  r.data_port = in.i();
  r.cpu_rate = in.f();
  r.so_rcvavoid = in.i();
  r.so_sndavoid = in.i();
  return r;
}

Frame encode_classic_tcp_stream_results(const ClassicTcpStreamResults& r) {
  Frame f = blank(kTcpStreamResults, 0);
  Writer w(f);
  w.d(r.bytes_received).u(r.recv_calls).f(r.elapsed_time).f(r.cpu_util).f(r.serv_dem);
  w.i(r.cpu_method).i(r.num_cpus).i(r.recv_buf_size).i(r.send_buf_size);
  return f;
}

ClassicTcpStreamResults decode_classic_tcp_stream_results(const Frame& f) {
  ClassicTcpStreamResults r;
  Reader in(f);
  r.bytes_received = in.d();
  r.recv_calls = in.u();
  r.elapsed_time = in.f();
  r.cpu_util = in.f();
  r.serv_dem = in.f();
  r.cpu_method = in.i();
  r.num_cpus = in.i();
  r.recv_buf_size = in.i();
  r.send_buf_size = in.i();
  return r;
}

Frame encode_classic_tcp_rr_request(const ClassicTcpRrRequest& r, int32_t type,
                                    int32_t cpu_affinity) {
  Frame f = blank(type, cpu_affinity);
  Writer w(f);
  w.i(r.recv_buf_size).i(r.send_buf_size).i(r.recv_alignment).i(r.recv_offset);
  w.i(r.send_alignment).i(r.send_offset).i(r.request_size).i(r.response_size);
  w.i(r.no_delay).i(r.measure_cpu).f(r.cpu_rate).i(r.test_length).i(r.so_rcvavoid);
  w.i(r.so_sndavoid).i(r.port).i(r.ipfamily);
  return f;
}

ClassicTcpRrRequest decode_classic_tcp_rr_request(const Frame& f) {
  ClassicTcpRrRequest r;
  Reader in(f);
  r.recv_buf_size = in.i();
  r.send_buf_size = in.i();
  r.recv_alignment = in.i();
  r.recv_offset = in.i();
  r.send_alignment = in.i();
  r.send_offset = in.i();
  r.request_size = in.i();
  r.response_size = in.i();
  r.no_delay = in.i();
  r.measure_cpu = in.i();
  r.cpu_rate = in.f();
  r.test_length = in.i();
  r.so_rcvavoid = in.i();
  r.so_sndavoid = in.i();
  r.port = in.i();
  r.ipfamily = in.i();
  return r;
}

Frame encode_classic_tcp_rr_response(const ClassicTcpRrResponse& r, int32_t serv_errno,
                                     int32_t type) {
  Frame f = blank(type, serv_errno);
  Writer w(f);
  w.i(r.recv_buf_size).i(r.no_delay).i(r.measure_cpu).i(r.test_length).i(r.send_buf_size);
  w.i(r.data_port).f(r.cpu_rate).i(r.so_rcvavoid).i(r.so_sndavoid);
  return f;
}

ClassicTcpRrResponse decode_classic_tcp_rr_response(const Frame& f) {
  ClassicTcpRrResponse r;
  Reader in(f);
  r.recv_buf_size = in.i();
  r.no_delay = in.i();
  r.measure_cpu = in.i();
  r.test_length = in.i();
  r.send_buf_size = in.i();
  r.data_port = in.i();
  r.cpu_rate = in.f();
  r.so_rcvavoid = in.i();
  r.so_sndavoid = in.i();
  return r;
}

Frame encode_classic_tcp_rr_results(const ClassicTcpRrResults& r, int32_t type) {
  Frame f = blank(type, 0);
  Writer w(f);
  w.u(r.bytes_received).u(r.recv_calls).u(r.trans_received).f(r.elapsed_time).f(r.cpu_util);
  w.f(r.serv_dem).i(r.cpu_method).i(r.num_cpus);
  return f;
}

ClassicTcpRrResults decode_classic_tcp_rr_results(const Frame& f) {
  ClassicTcpRrResults r;
  Reader in(f);
  r.bytes_received = in.u();
  r.recv_calls = in.u();
  r.trans_received = in.u();
  r.elapsed_time = in.f();
  r.cpu_util = in.f();
  r.serv_dem = in.f();
  r.cpu_method = in.i();
  r.num_cpus = in.i();
  return r;
}

// ---- the small ones ----

Frame encode_passphrase(const std::string& phrase) {
  Frame f = blank(kPassphrase, -1);
  put_chars(f, kDataOffset, kDataWords * 4, phrase);
  return f;
}

std::string decode_passphrase(const Frame& f) { return get_chars(f, kDataOffset, kDataWords * 4); }

Frame encode_status(int32_t type, int32_t serv_errno) { return blank(type, serv_errno); }

// netserver leaves the type of this reply as whatever its buffer held (0 in
// a fresh child); clients look only at serv_errno.
Frame encode_unknown_request_reply() { return blank(0, kUnknownRequestErrno); }

Frame encode_cpu_calibrate_reply(float rate, int32_t num_cpus) {
  Frame f = blank(kCpuCalibrate, 0);
  Writer(f).f(rate).i(num_cpus);
  return f;
}

Frame encode_sysinfo_reply(const std::string& text) {
  Frame f = blank(kSysinfoResponse, 0);
  put_chars(f, kDataOffset, kDataWords * 4, text);
  return f;
}

std::array<uint32_t, 4> ip_to_words(uint32_t nf_family, const uint8_t* a) {
  std::array<uint32_t, 4> w{};
  if (nf_family == kNfInet) {
    w[0] = (uint32_t{a[0]} << 24) | (uint32_t{a[1]} << 16) | (uint32_t{a[2]} << 8) | a[3];
  } else if (nf_family == kNfInet6) {
    for (size_t i = 0; i < 4; ++i) {
      const uint8_t* p = a + 4 * i;
      w[i] = (uint32_t{p[3]} << 24) | (uint32_t{p[2]} << 16) | (uint32_t{p[1]} << 8) | p[0];
    }
  }
  return w;
}

void words_to_ip(uint32_t nf_family, const std::array<uint32_t, 4>& w, uint8_t* a) {
  if (nf_family == kNfInet) {
    for (int b = 0; b < 4; ++b) a[b] = static_cast<uint8_t>(w[0] >> (24 - 8 * b));
  } else if (nf_family == kNfInet6) {
    for (size_t i = 0; i < 4; ++i)
      for (int b = 0; b < 4; ++b)
        a[4 * i + static_cast<size_t>(b)] = static_cast<uint8_t>(w[i] >> (8 * b));
  }
}

}  // namespace flowperf::proto::netperf
