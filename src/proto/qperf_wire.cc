#include "proto/qperf_wire.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <tuple>

#include "proto/messages.h"

namespace flowperf::proto::qperf {
namespace {

// Little-endian writers and readers over a byte cursor: the wire's order is
// fixed, whatever the host's. Each message's layout is one field list, a
// generic function of a visitor and the struct that the Writer walks to
// encode and the Reader to decode.
class Writer {
 public:
  explicit Writer(uint8_t* p) : p_(p) {}
  Writer& u16(const uint16_t& v) { return put(v, 2); }
  Writer& u32(const uint32_t& v) { return put(v, 4); }
  Writer& u64(const uint64_t& v) { return put(v, 8); }
  template <size_t N>
  Writer& bytes(const std::array<char, N>& a) {
    std::memcpy(p_, a.data(), N);
    p_ += N;
    return *this;
  }
  // A NUL-terminated text field of `size` bytes.
  Writer& text(size_t size, const std::string& t) {
    std::memcpy(p_, t.data(), std::min(t.size(), size - 1));
    p_ += size;
    return *this;
  }

 private:
  Writer& put(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) *p_++ = static_cast<uint8_t>(v >> (8 * i));
    return *this;
  }
  uint8_t* p_;
};

class Reader {
 public:
  explicit Reader(const uint8_t* p) : p_(p) {}
  Reader& u16(uint16_t& v) {
    v = static_cast<uint16_t>(take(2));
    return *this;
  }
  Reader& u32(uint32_t& v) {
    v = static_cast<uint32_t>(take(4));
    return *this;
  }
  Reader& u64(uint64_t& v) {
    v = take(8);
    return *this;
  }
  template <size_t N>
  Reader& bytes(std::array<char, N>& a) {
    std::memcpy(a.data(), p_, N);
    p_ += N;
    return *this;
  }
  Reader& text(size_t size, std::string& t) {
    const auto* p = reinterpret_cast<const char*>(p_);
    t.assign(p, strnlen(p, size - 1));
    p_ += size;
    return *this;
  }

 private:
  uint64_t take(int n) {
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= uint64_t{p_[i]} << (8 * i);
    p_ += n;
    return v;
  }
  const uint8_t* p_;
};

constexpr auto kRequestFields = [](auto& v, auto& r) {
  v.u16(r.ver_maj).u16(r.ver_min).u16(r.ver_inc).u16(r.req_index);
  for (auto* w : {&r.access_recv, &r.affinity, &r.alt_port, &r.flip, &r.msg_size, &r.mtu_size,
                  &r.no_msgs, &r.poll_mode, &r.port, &r.rd_atomic, &r.sl, &r.sock_buf_size,
                  &r.src_path_bits, &r.time, &r.timeout, &r.use_cm})
    v.u32(*w);
  v.bytes(r.id).bytes(r.static_rate);
};

// The pad after the last counter (at 252) stays zero.
constexpr auto kStatFields = [](auto& v, auto& s) {
  v.u32(s.no_cpus).u32(s.no_ticks).u32(s.max_cqes);
  for (auto& t : s.time_s) v.u64(t);
  for (auto& t : s.time_e) v.u64(t);
  for (auto* u : {&s.s, &s.r, &s.rem_s, &s.rem_r}) v.u64(u->bytes).u64(u->msgs).u64(u->errs);
};

constexpr auto kConfFields = [](auto& v, auto& c) {
  v.text(kConfField, c.node).text(kConfField, c.cpu).text(kConfField, c.os);
  v.text(kConfField, c.qperf);
};

void need(std::span<const uint8_t> bytes, size_t n, const char* what) {
  if (bytes.size() < n)
    throw ProtocolError(fmt::format("qperf {}: {} bytes, expected {}", what, bytes.size(), n));
}

std::string version_string(uint16_t maj, uint16_t min, uint16_t inc) {
  return fmt::format("{}.{}.{}", maj, min, inc);
}

}  // namespace

std::string index_name(uint16_t index) {
  static const char* const kNames[] = {"conf",    "quit",     "rds_bw", "rds_lat",
                                       "sctp_bw", "sctp_lat", "sdp_bw", "sdp_lat",
                                       "tcp_bw",  "tcp_lat",  "udp_bw", "udp_lat"};
  if (index < std::size(kNames)) return kNames[index];
  return fmt::format("rdma test {}", index);
}

RequestBytes encode_request(const Request& r) {
  RequestBytes out{};
  Writer w(out.data());
  kRequestFields(w, r);
  return out;
}

HeadMatch match_head(std::span<const uint8_t> first) {
  // ver_maj is 0 in every qperf there is; a first byte other than 0 is not
  // qperf. Two zero bytes then ver_min: the version check.
  for (size_t i = 0; i < first.size() && i < 2; ++i)
    if (first[i] != 0) return HeadMatch::kNo;
  if (first.size() < kRequestHeadBytes) return HeadMatch::kNeedMore;
  const uint16_t min = static_cast<uint16_t>(first[2] | (first[3] << 8));
  // A minor version far from any qperf (0.1 .. 0.9) is not qperf either:
  // netperf's requests also start with zero bytes.
  if (min == kVerMinor) return HeadMatch::kYes;
  return min >= 1 && min <= 9 ? HeadMatch::kOtherVersion : HeadMatch::kNo;
}

std::string version_mismatch_text(uint16_t maj, uint16_t min, uint16_t inc) {
  const std::string ours = version_string(kVerMajor, kVerMinor, kVerIncr);
  const std::string theirs = version_string(maj, min, inc);
  const bool peer_newer = std::tie(maj, min) > std::tie(kVerMajor, kVerMinor);
  return peer_newer ? fmt::format("upgrade qperf on server from {} to {}", ours, theirs)
                    : fmt::format("upgrade qperf on client from {} to {}", theirs, ours);
}

Request decode_request(std::span<const uint8_t> bytes) {
  need(bytes, kRequestBytes, "request");
  Request r;
  Reader rd(bytes.data());
  kRequestFields(rd, r);
  if (r.ver_maj != kVerMajor || r.ver_min != kVerMinor)
    throw ProtocolError(version_mismatch_text(r.ver_maj, r.ver_min, r.ver_inc));
  return r;
}

std::array<uint8_t, kPortBytes> encode_port(uint32_t port) {
  std::array<uint8_t, kPortBytes> out{};
  Writer(out.data()).u32(port);
  return out;
}

uint16_t decode_port(std::span<const uint8_t> bytes) {
  need(bytes, kPortBytes, "data port");
  uint32_t port = 0;
  Reader(bytes.data()).u32(port);
  if (port == 0 || port > 65535)
    throw ProtocolError(fmt::format("announced data port {} is not a port (1-65535)", port));
  return static_cast<uint16_t>(port);
}

double Stat::seconds() const {
  if (no_ticks == 0 || time_e[0] <= time_s[0]) return 0;
  return static_cast<double>(time_e[0] - time_s[0]) / no_ticks;
}

std::array<uint8_t, kStatBytes> encode_stat(const Stat& s) {
  std::array<uint8_t, kStatBytes> out{};
  Writer w(out.data());
  kStatFields(w, s);
  return out;
}

Stat decode_stat(std::span<const uint8_t> bytes) {
  need(bytes, kStatBytes, "statistics");
  Stat s;
  Reader rd(bytes.data());
  kStatFields(rd, s);
  if (s.no_ticks == 0)
    throw ProtocolError("qperf statistics say 0 clock ticks per second: not a qperf server");
  return s;
}

std::array<uint8_t, kConfBytes> encode_conf(const Conf& c) {
  std::array<uint8_t, kConfBytes> out{};
  Writer w(out.data());
  kConfFields(w, c);
  return out;
}

Conf decode_conf(std::span<const uint8_t> bytes) {
  need(bytes, kConfBytes, "configuration");
  Conf c;
  Reader rd(bytes.data());
  kConfFields(rd, c);
  return c;
}

std::string error_text_for_wire(std::string_view text) {
  std::string out(text.substr(0, kMaxErrorText));
  for (char& ch : out)
    if (ch < 0x20 || ch > 0x7e) ch = '?';
  return out;
}

}  // namespace flowperf::proto::qperf
