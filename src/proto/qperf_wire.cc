#include "proto/qperf_wire.h"

#include <fmt/format.h>

#include <cstring>
#include <tuple>

#include "proto/messages.h"

namespace flowperf::proto::qperf {
namespace {

// Little-endian writers and readers over a byte cursor: the wire's order is
// fixed, whatever the host's.
class Writer {
 public:
  explicit Writer(uint8_t* p) : p_(p) {}
  void u16(uint16_t v) {
    for (int i = 0; i < 2; ++i) *p_++ = static_cast<uint8_t>(v >> (8 * i));
  }
  void u32(uint32_t v) {
    for (int i = 0; i < 4; ++i) *p_++ = static_cast<uint8_t>(v >> (8 * i));
  }
  void u64(uint64_t v) {
    for (int i = 0; i < 8; ++i) *p_++ = static_cast<uint8_t>(v >> (8 * i));
  }
  void bytes(const void* src, size_t n) {
    std::memcpy(p_, src, n);
    p_ += n;
  }

 private:
  uint8_t* p_;
};

class Reader {
 public:
  explicit Reader(const uint8_t* p) : p_(p) {}
  uint16_t u16() { return static_cast<uint16_t>(take(2)); }
  uint32_t u32() { return static_cast<uint32_t>(take(4)); }
  uint64_t u64() { return take(8); }
  void bytes(void* dst, size_t n) {
    std::memcpy(dst, p_, n);
    p_ += n;
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
  w.u16(r.ver_maj);
  w.u16(r.ver_min);
  w.u16(r.ver_inc);
  w.u16(r.req_index);
  for (uint32_t v : {r.access_recv, r.affinity, r.alt_port, r.flip, r.msg_size, r.mtu_size,
                     r.no_msgs, r.poll_mode, r.port, r.rd_atomic, r.sl, r.sock_buf_size,
                     r.src_path_bits, r.time, r.timeout, r.use_cm})
    w.u32(v);
  w.bytes(r.id.data(), r.id.size());
  w.bytes(r.static_rate.data(), r.static_rate.size());
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
  r.ver_maj = rd.u16();
  r.ver_min = rd.u16();
  r.ver_inc = rd.u16();
  if (r.ver_maj != kVerMajor || r.ver_min != kVerMinor)
    throw ProtocolError(version_mismatch_text(r.ver_maj, r.ver_min, r.ver_inc));
  r.req_index = rd.u16();
  for (uint32_t* v : {&r.access_recv, &r.affinity, &r.alt_port, &r.flip, &r.msg_size, &r.mtu_size,
                      &r.no_msgs, &r.poll_mode, &r.port, &r.rd_atomic, &r.sl, &r.sock_buf_size,
                      &r.src_path_bits, &r.time, &r.timeout, &r.use_cm})
    *v = rd.u32();
  rd.bytes(r.id.data(), r.id.size());
  rd.bytes(r.static_rate.data(), r.static_rate.size());
  return r;
}

std::array<uint8_t, kPortBytes> encode_port(uint32_t port) {
  std::array<uint8_t, kPortBytes> out{};
  Writer(out.data()).u32(port);
  return out;
}

uint16_t decode_port(std::span<const uint8_t> bytes) {
  need(bytes, kPortBytes, "data port");
  const uint32_t port = Reader(bytes.data()).u32();
  if (port == 0 || port > 65535)
    throw ProtocolError(fmt::format("announced data port {} is not a port (1-65535)", port));
  return static_cast<uint16_t>(port);
}

double Stat::seconds() const {
  if (no_ticks == 0 || time_e[0] <= time_s[0]) return 0;
  return static_cast<double>(time_e[0] - time_s[0]) / no_ticks;
}

std::array<uint8_t, kStatBytes> encode_stat(const Stat& s) {
  std::array<uint8_t, kStatBytes> out{};  // the pad at 252 stays zero
  Writer w(out.data());
  w.u32(s.no_cpus);
  w.u32(s.no_ticks);
  w.u32(s.max_cqes);
  for (uint64_t v : s.time_s) w.u64(v);
  for (uint64_t v : s.time_e) w.u64(v);
  for (const Stat::Ustat* u : {&s.s, &s.r, &s.rem_s, &s.rem_r}) {
    w.u64(u->bytes);
    w.u64(u->msgs);
    w.u64(u->errs);
  }
  return out;
}

Stat decode_stat(std::span<const uint8_t> bytes) {
  need(bytes, kStatBytes, "statistics");
  Stat s;
  Reader rd(bytes.data());
  s.no_cpus = rd.u32();
  s.no_ticks = rd.u32();
  s.max_cqes = rd.u32();
  for (uint64_t& v : s.time_s) v = rd.u64();
  for (uint64_t& v : s.time_e) v = rd.u64();
  for (Stat::Ustat* u : {&s.s, &s.r, &s.rem_s, &s.rem_r}) {
    u->bytes = rd.u64();
    u->msgs = rd.u64();
    u->errs = rd.u64();
  }
  if (s.no_ticks == 0)
    throw ProtocolError("qperf statistics say 0 clock ticks per second: not a qperf server");
  return s;
}

std::array<uint8_t, kConfBytes> encode_conf(const Conf& c) {
  std::array<uint8_t, kConfBytes> out{};
  size_t at = 0;
  for (const std::string* f : {&c.node, &c.cpu, &c.os, &c.qperf}) {
    std::memcpy(out.data() + at, f->data(), std::min(f->size(), kConfField - 1));
    at += kConfField;
  }
  return out;
}

Conf decode_conf(std::span<const uint8_t> bytes) {
  need(bytes, kConfBytes, "configuration");
  Conf c;
  size_t at = 0;
  for (std::string* f : {&c.node, &c.cpu, &c.os, &c.qperf}) {
    const auto* p = reinterpret_cast<const char*>(bytes.data() + at);
    f->assign(p, strnlen(p, kConfField - 1));
    at += kConfField;
  }
  return c;
}

std::string error_text_for_wire(std::string_view text) {
  std::string out(text.substr(0, kMaxErrorText));
  for (char& ch : out)
    if (ch < 0x20 || ch > 0x7e) ch = '?';
  return out;
}

}  // namespace flowperf::proto::qperf
