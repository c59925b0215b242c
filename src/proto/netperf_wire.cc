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

// Each message's layout is written once, as a field list: a generic
// function of a visitor and the struct, v.i(r.a).u(r.b)..., that the
// Writer walks to encode (the struct const) and the Reader walks to decode
// (the struct mutable). Words go in order from the start of the test data;
// chars() fields go in order from the raw tail that tail() places.
class Writer {
 public:
  explicit Writer(Frame& f) : f_(f) {}
  template <class T>
  Writer& u(const T& v) {
    put_be(f_, word_offset(i_++), static_cast<uint32_t>(v));
    return *this;
  }
  template <class T>
  Writer& i(const T& v) {
    return u(static_cast<uint32_t>(static_cast<int32_t>(v)));
  }
  Writer& f(const float& v) { return u(std::bit_cast<uint32_t>(v)); }
  Writer& u64(const uint64_t& v) {
    return u(static_cast<uint32_t>(v >> 32)).u(static_cast<uint32_t>(v));
  }
  // A classic double: big-endian, all 8 bytes (netserver's htond()
  // pre-compensates for the word swap that follows).
  Writer& d(const double& v) {
    const uint64_t bits = std::bit_cast<uint64_t>(v);
    return u(static_cast<uint32_t>(bits >> 32)).u(static_cast<uint32_t>(bits));
  }
  Writer& tail(size_t offset) {
    tail_ = offset;
    return *this;
  }
  // A NUL-terminated char array of `size` bytes.
  Writer& chars(size_t size, const std::string& s);

 private:
  Frame& f_;
  size_t i_ = 0, tail_ = 0;
};

class Reader {
 public:
  explicit Reader(const Frame& f) : f_(f) {}
  template <class T>
  Reader& u(T& out) {
    out = static_cast<T>(get_be(f_, word_offset(i_++)));
    return *this;
  }
  template <class T>
  Reader& i(T& out) {
    uint32_t w = 0;
    u(w);
    out = static_cast<T>(static_cast<int32_t>(w));
    return *this;
  }
  Reader& f(float& out) {
    uint32_t w = 0;
    u(w);
    out = std::bit_cast<float>(w);
    return *this;
  }
  Reader& u64(uint64_t& out) {
    uint32_t hi = 0, lo = 0;
    u(hi).u(lo);
    out = (uint64_t{hi} << 32) | lo;
    return *this;
  }
  // A classic double: big-endian. A sender whose htond() went wrong (a
  // mixed-endian one) swaps the halves; when only that reading is a
  // plausible count (finite, non-negative, whole), it wins.
  Reader& d(double& out) {
    uint32_t a = 0, b = 0;
    u(a).u(b);
    const double be = std::bit_cast<double>((uint64_t{a} << 32) | b);
    const double swapped = std::bit_cast<double>((uint64_t{b} << 32) | a);
    auto plausible = [](double x) {
      return std::isfinite(x) && x >= 0 && x < 1e19 && x == std::floor(x);
    };
    out = plausible(be) || !plausible(swapped) ? be : swapped;
    return *this;
  }
  Reader& tail(size_t offset) {
    tail_ = offset;
    return *this;
  }
  Reader& chars(size_t size, std::string& s);

 private:
  const Frame& f_;
  size_t i_ = 0, tail_ = 0;
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

Writer& Writer::chars(size_t size, const std::string& s) {
  put_chars(f_, tail_, size, s);
  tail_ += size;
  return *this;
}

Reader& Reader::chars(size_t size, std::string& s) {
  s = get_chars(f_, tail_, size);
  tail_ += size;
  return *this;
}

// A message from its field list: the header, then the fields.
template <class T, class Fields>
Frame encode_with(const T& r, int32_t type, int32_t second, Fields fields) {
  Frame f = blank(type, second);
  Writer w(f);
  fields(w, r);
  return f;
}
template <class T, class Fields>
T decode_with(const Frame& f, Fields fields) {
  T r;
  Reader in(f);
  fields(in, r);
  return r;
}

// ---- the field lists ----

constexpr auto kOmniRequestFields = [](auto& v, auto& r) {
  v.i(r.send_buf_size).i(r.send_size).u(r.send_alignment).u(r.send_offset).u(r.send_width);
  v.i(r.request_size);
  v.i(r.recv_buf_size).i(r.receive_size).u(r.recv_alignment).u(r.recv_offset).u(r.recv_width);
  v.i(r.response_size);
  v.u(r.flags).f(r.cpu_rate).i(r.test_length).u(r.so_rcvavoid).u(r.so_sndavoid);
  v.i(r.send_dirty_count).i(r.recv_dirty_count).i(r.recv_clean_count);
  v.u(r.data_port).u(r.ipfamily).u(r.socket_type).u(r.protocol).u(r.direction);
  v.u(r.netperf_port).u(r.interval_burst).u(r.interval_usecs);
  for (auto& w : r.netperf_ip) v.u(w);
  for (auto& w : r.netserver_ip) v.u(w);
  v.i(r.socket_prio).i(r.socket_tos);
  v.tail(kRequestTail).chars(16, r.cong_control).chars(32, r.fill_file);
};

constexpr auto kOmniResponseFields = [](auto& v, auto& r) {
  v.i(r.recv_buf_size).i(r.receive_size).i(r.recv_width);
  v.i(r.send_buf_size).i(r.send_size).i(r.send_width);
  v.u(r.flags).f(r.cpu_rate).u(r.test_length).u(r.so_rcvavoid).u(r.so_sndavoid);
  v.u(r.data_port).u(r.interval_burst).u(r.interval_usecs).u(r.cpu_frequency);
  v.u(r.security_info).i(r.socket_prio).i(r.socket_tos);
  v.tail(kResponseTail).chars(33, r.system_model).chars(80, r.cpu_model);
  v.chars(16, r.security_string);
};

constexpr auto kOmniResultsFields = [](auto& v, auto& r) {
  v.u64(r.bytes_received).u(r.recv_calls).i(r.recv_buf_size);
  v.u64(r.bytes_sent).u(r.send_calls).i(r.send_buf_size).u(r.failed_sends).u(r.trans_received);
  v.f(r.elapsed_time).f(r.cpu_util).f(r.cpu_percent_user).f(r.cpu_percent_system);
  v.f(r.cpu_percent_iowait).f(r.cpu_percent_irq).f(r.cpu_percent_swintr).f(r.serv_dem);
  v.u(r.cpu_method).u(r.num_cpus).i(r.peak_cpu_id).f(r.peak_cpu_util);
  v.i(r.vendor).i(r.device).i(r.subvendor).i(r.subdevice).i(r.transport_retrans);
  v.tail(kResultsTail).chars(16, r.ifname).chars(32, r.driver).chars(32, r.version);
  v.chars(32, r.firmware).chars(32, r.bus).chars(16, r.ifslot).chars(16, r.cong_control);
};

constexpr auto kTcpStreamRequestFields = [](auto& v, auto& r) {
  v.i(r.send_buf_size).i(r.recv_buf_size).i(r.receive_size).i(r.recv_alignment);
  v.i(r.recv_offset).i(r.no_delay).i(r.measure_cpu).f(r.cpu_rate).i(r.test_length);
  v.i(r.so_rcvavoid).i(r.so_sndavoid).i(r.dirty_count).i(r.clean_count).i(r.port);
  v.i(r.ipfamily).i(r.recv_aio);
};

constexpr auto kTcpStreamResponseFields = [](auto& v, auto& r) {
  v.i(r.recv_buf_size).i(r.receive_size).i(r.no_delay).i(r.measure_cpu).i(r.test_length);
  v.i(r.send_buf_size).i(r.data_port).f(r.cpu_rate).i(r.so_rcvavoid).i(r.so_sndavoid);
};

constexpr auto kTcpStreamResultsFields = [](auto& v, auto& r) {
  v.d(r.bytes_received).u(r.recv_calls).f(r.elapsed_time).f(r.cpu_util).f(r.serv_dem);
  v.i(r.cpu_method).i(r.num_cpus).i(r.recv_buf_size).i(r.send_buf_size);
};

constexpr auto kTcpRrRequestFields = [](auto& v, auto& r) {
  v.i(r.recv_buf_size).i(r.send_buf_size).i(r.recv_alignment).i(r.recv_offset);
  v.i(r.send_alignment).i(r.send_offset).i(r.request_size).i(r.response_size);
  v.i(r.no_delay).i(r.measure_cpu).f(r.cpu_rate).i(r.test_length).i(r.so_rcvavoid);
  v.i(r.so_sndavoid).i(r.port).i(r.ipfamily);
};

constexpr auto kTcpRrResponseFields = [](auto& v, auto& r) {
  v.i(r.recv_buf_size).i(r.no_delay).i(r.measure_cpu).i(r.test_length).i(r.send_buf_size);
  v.i(r.data_port).f(r.cpu_rate).i(r.so_rcvavoid).i(r.so_sndavoid);
};

constexpr auto kTcpRrResultsFields = [](auto& v, auto& r) {
  v.u(r.bytes_received).u(r.recv_calls).u(r.trans_received).f(r.elapsed_time).f(r.cpu_util);
  v.f(r.serv_dem).i(r.cpu_method).i(r.num_cpus);
};

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
  return encode_with(r, kDoOmni, cpu_affinity, kOmniRequestFields);
}
OmniRequest decode_omni_request(const Frame& f) {
  return decode_with<OmniRequest>(f, kOmniRequestFields);
}

Frame encode_omni_response(const OmniResponse& r, int32_t serv_errno) {
  return encode_with(r, kOmniResponse, serv_errno, kOmniResponseFields);
}
OmniResponse decode_omni_response(const Frame& f) {
  return decode_with<OmniResponse>(f, kOmniResponseFields);
}

Frame encode_omni_results(const OmniResults& r, int32_t serv_errno) {
  return encode_with(r, kOmniResponse, serv_errno, kOmniResultsFields);
}
OmniResults decode_omni_results(const Frame& f) {
  return decode_with<OmniResults>(f, kOmniResultsFields);
}

// ---- classic TCP_STREAM and TCP_RR ----

Frame encode_classic_tcp_stream_request(const ClassicTcpStreamRequest& r) {
  return encode_with(r, kDoTcpStream, -1, kTcpStreamRequestFields);
}
ClassicTcpStreamRequest decode_classic_tcp_stream_request(const Frame& f) {
  return decode_with<ClassicTcpStreamRequest>(f, kTcpStreamRequestFields);
}

Frame encode_classic_tcp_stream_response(const ClassicTcpStreamResponse& r, int32_t serv_errno) {
  return encode_with(r, kTcpStreamResponse, serv_errno, kTcpStreamResponseFields);
}
ClassicTcpStreamResponse decode_classic_tcp_stream_response(const Frame& f) {
  return decode_with<ClassicTcpStreamResponse>(f, kTcpStreamResponseFields);
}

Frame encode_classic_tcp_stream_results(const ClassicTcpStreamResults& r) {
  return encode_with(r, kTcpStreamResults, 0, kTcpStreamResultsFields);
}
ClassicTcpStreamResults decode_classic_tcp_stream_results(const Frame& f) {
  return decode_with<ClassicTcpStreamResults>(f, kTcpStreamResultsFields);
}

Frame encode_classic_tcp_rr_request(const ClassicTcpRrRequest& r, int32_t type,
                                    int32_t cpu_affinity) {
  return encode_with(r, type, cpu_affinity, kTcpRrRequestFields);
}
ClassicTcpRrRequest decode_classic_tcp_rr_request(const Frame& f) {
  return decode_with<ClassicTcpRrRequest>(f, kTcpRrRequestFields);
}

Frame encode_classic_tcp_rr_response(const ClassicTcpRrResponse& r, int32_t serv_errno,
                                     int32_t type) {
  return encode_with(r, type, serv_errno, kTcpRrResponseFields);
}
ClassicTcpRrResponse decode_classic_tcp_rr_response(const Frame& f) {
  return decode_with<ClassicTcpRrResponse>(f, kTcpRrResponseFields);
}

Frame encode_classic_tcp_rr_results(const ClassicTcpRrResults& r, int32_t type) {
  return encode_with(r, type, 0, kTcpRrResultsFields);
}
ClassicTcpRrResults decode_classic_tcp_rr_results(const Frame& f) {
  return decode_with<ClassicTcpRrResults>(f, kTcpRrResultsFields);
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
