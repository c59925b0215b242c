#include "session/dispatch.h"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <exception>
#include <thread>

#include "core/deadline.h"
#include "proto/framing.h"
#include "proto/iperf3_wire.h"
#include "proto/qperf_wire.h"
#include "session/iperf3_server.h"
#include "session/server.h"

namespace flowperf::session {
namespace {

using Clock = std::chrono::steady_clock;

Claim flowperf_claim(std::span<const uint8_t> first) {
  if (first.size() < 2) return Claim::kNeedMore;
  return proto::looks_like_flowperf(first.data(), first.size()) ? Claim::kYes : Claim::kNo;
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
    case proto::qperf::HeadMatch::kOtherVersion:
      return Claim::kYes;
    case proto::qperf::HeadMatch::kNo:
      return Claim::kNo;
    default:
      return Claim::kNeedMore;
  }
}

// The most bytes any row looks at (iperf3's cookie).
constexpr size_t kPeekBytes = proto::iperf3::kCookieBytes;

}  // namespace

std::chrono::steady_clock::time_point first_message_deadline(const SessionContext& ctx) {
  if (ctx.first_message_by != Clock::time_point{}) return ctx.first_message_by;
  return core::after(ctx.config->control_timeout_s);
}

const std::vector<ProtocolRow>& protocol_table() {
  static const std::vector<ProtocolRow> rows = {
      {"flowperf", flowperf_claim, serve_control_connection},
      {"iperf3", iperf3_claim, serve_iperf3_connection},
      {"qperf", qperf_claim, serve_qperf_connection},
      {"netperf", nullptr, serve_netperf_connection},
  };
  return rows;
}

const ProtocolRow* classify(std::span<const uint8_t> first, bool complete) {
  for (const auto& row : protocol_table()) {
    if (!row.classify) return &row;
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

void dispatch_control_connection(int control, const SessionContext& ctx) {
  const auto deadline = core::after(ctx.config->control_timeout_s);
  uint8_t first[kPeekBytes];
  size_t have = 0;
  const ProtocolRow* row = nullptr;
  while (!row) {
    if (ctx.stopping && ctx.stopping->load()) return;
    const auto now = Clock::now();
    if (now >= deadline) return;  // silent, or too few bytes: dropped
    const auto wait = std::min<Clock::duration>(deadline - now, std::chrono::milliseconds(200));
    // POLLRDHUP: a client that half-closed after too few bytes to tell its
    // protocol has said all it will; it is not waited for until the deadline.
    pollfd p{control, POLLIN | POLLRDHUP, 0};
    const int r = ::poll(
        &p, 1,
        static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(wait).count()) + 1);
    if (r < 0 && errno != EINTR) return;
    if (r <= 0) continue;
    const ssize_t n = ::recv(control, first, sizeof first, MSG_PEEK | MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) continue;
    if (n <= 0) return;  // closed with nothing said, or reset
    const bool complete = (p.revents & (POLLRDHUP | POLLHUP)) != 0;
    if (static_cast<size_t>(n) != have || complete) {
      have = static_cast<size_t>(n);
      row = classify(std::span<const uint8_t>(first, have), complete);
    }
    // Readable with nothing new: the rest of the bytes a row needs are on their way.
    if (!row) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  // iperf3's clients authenticate in their own way when the server has
  // iperf3's RSA authentication set up (ServerConfig::iperf3.auth).
  const bool authenticates = row->serve == serve_control_connection ||
                             (row->serve == serve_iperf3_connection && ctx.config->iperf3.auth);
  if (!ctx.config->keys.empty() && !authenticates) {
    // netperf's, qperf's and iperf3's clients have no way to show a
    // flowperf key; a server that asks for keys serves none of them.
    if (ctx.config->log)
      std::fprintf(ctx.config->log,
                   "flowperf server: refused a %s client: this server requires authentication "
                   "(--keys), which only flowperf's own clients can give\n",
                   row->name);
    return;
  }
  SessionContext with_deadline = ctx;
  with_deadline.first_message_by = deadline;
  try {
    row->serve(control, with_deadline);
  } catch (const std::exception& e) {
    if (ctx.config->log)
      std::fprintf(ctx.config->log, "flowperf server: %s session failed: %s\n", row->name,
                   e.what());
  }
}

}  // namespace flowperf::session
