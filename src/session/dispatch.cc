#include "session/dispatch.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>

#include "core/deadline.h"
#include "proto/framing.h"
#include "proto/iperf3_wire.h"
#include "proto/netperf_wire.h"
#include "proto/qperf_wire.h"
#include "session/iperf3_server.h"
#include "session/server.h"

namespace flowperf::session {
namespace {

using Clock = std::chrono::steady_clock;

Claim flowperf_claim(std::span<const uint8_t> first) {
  if (first.size() < 2) return Claim::kNeedMore;
  if (!proto::looks_like_flowperf(first.data(), first.size())) return Claim::kNo;
  if (first.size() < proto::kHeaderBytes) return Claim::kNeedMore;
  // The body's length, as the header gives it (a bad header or an
  // oversized frame is the session's to answer): claimed once the whole
  // frame is in, or at once when it is longer than what is looked at.
  const uint64_t body = uint32_t{first[4]} << 24 | uint32_t{first[5]} << 16 |
                        uint32_t{first[6]} << 8 | uint32_t{first[7]};
  if (proto::kHeaderBytes + body > kPeekBytes || first.size() - proto::kHeaderBytes >= body)
    return Claim::kYes;
  return Claim::kNeedMore;
}

// A TLS record (a ClientHello): content type 22, version 3.x, its length;
// claimed once the whole record is in (or more than is looked at).
Claim tls_claim(std::span<const uint8_t> first) {
  if (first.empty()) return Claim::kNeedMore;
  if (first[0] != 0x16) return Claim::kNo;
  if (first.size() < 2) return Claim::kNeedMore;
  if (first[1] != 0x03) return Claim::kNo;
  if (first.size() < 5) return Claim::kNeedMore;
  const size_t record = 5 + (size_t{first[3]} << 8 | first[4]);
  return first.size() >= std::min(record, kPeekBytes) ? Claim::kYes : Claim::kNeedMore;
}

Claim iperf3_claim(std::span<const uint8_t> first) {
  switch (proto::iperf3::match_cookie(first)) {
    case proto::iperf3::CookieMatch::kYes:
      return Claim::kYes;
    case proto::iperf3::CookieMatch::kNo:
      return Claim::kNo;
    default:
      return Claim::kNeedMore;
  }
}

// qperf's request: ver 0.4 (or another 0.x, which its session answers with
// qperf's "upgrade qperf" error). netperf's requests also start with zero
// bytes, so this row comes before netperf's catch-all and needs six bytes.
Claim qperf_claim(std::span<const uint8_t> first) {
  switch (proto::qperf::match_head(first)) {
    case proto::qperf::HeadMatch::kYes:
      // Its whole request, so a client that stops inside it holds no thread.
      return first.size() >= proto::qperf::kRequestBytes ? Claim::kYes : Claim::kNeedMore;
    case proto::qperf::HeadMatch::kOtherVersion:
      return Claim::kYes;
    case proto::qperf::HeadMatch::kNo:
      return Claim::kNo;
    default:
      return Claim::kNeedMore;
  }
}

// netperf's messages are all 656 bytes, with nothing to tell them by: any
// full request that no other row claimed.
Claim netperf_claim(std::span<const uint8_t> first) {
  return first.size() >= kPeekBytes ? Claim::kYes : Claim::kNeedMore;
}
static_assert(kPeekBytes == proto::netperf::kMessageBytes);
static_assert(kPeekBytes >= proto::iperf3::kCookieBytes);
static_assert(kPeekBytes >= proto::qperf::kRequestBytes);

}  // namespace

std::chrono::steady_clock::time_point first_message_deadline(const SessionContext& ctx) {
  if (ctx.first_message_by != Clock::time_point{}) return ctx.first_message_by;
  return core::after(ctx.config->control_timeout_s);
}

const std::vector<ProtocolRow>& protocol_table() {
  static const std::vector<ProtocolRow> rows = {
      {"flowperf", flowperf_claim, serve_control_connection},
      {"flowperf over TLS", tls_claim, serve_tls_control_connection},
      {"iperf3", iperf3_claim, serve_iperf3_connection},
      {"qperf", qperf_claim, serve_qperf_connection},
      {"netperf", netperf_claim, serve_netperf_connection},
  };
  return rows;
}

const ProtocolRow* classify(std::span<const uint8_t> first, bool complete) {
  for (const auto& row : protocol_table()) {
    switch (row.classify(first)) {
      case Claim::kYes:
        return &row;
      case Claim::kNeedMore:
        if (!complete) return nullptr;
        break;
      case Claim::kNo:
        break;
    }
  }
  return nullptr;
}

void serve_claimed(const ProtocolRow& row, int control, const SessionContext& ctx) {
  try {
    row.serve(control, ctx);
  } catch (const std::exception& e) {
    log_line(*ctx.config,
             fmt::format("flowperf server: {} session failed: {}", row.name, e.what()));
  }
}

}  // namespace flowperf::session
