#include "session/dispatch.h"

#include <sys/socket.h>

#include <chrono>
#include <cstdio>
#include <exception>
#include <thread>

#include "net/sys.h"
#include "proto/framing.h"
#include "session/server.h"

namespace flowperf::session {
namespace {

using Clock = std::chrono::steady_clock;

Claim flowperf_claim(std::span<const uint8_t> first) {
  if (first.size() < 2) return Claim::kNeedMore;
  return proto::looks_like_flowperf(first.data(), first.size()) ? Claim::kYes : Claim::kNo;
}

// The most bytes any row looks at.
constexpr size_t kPeekBytes = 16;

}  // namespace

const std::vector<ProtocolRow>& protocol_table() {
  static const std::vector<ProtocolRow> rows = {
      {"flowperf", flowperf_claim, serve_control_connection},
      {"netperf", nullptr, serve_netperf_connection},
  };
  return rows;
}

const ProtocolRow* classify(std::span<const uint8_t> first) {
  for (const auto& row : protocol_table()) {
    if (!row.classify) return &row;
    switch (row.classify(first)) {
      case Claim::kYes:
        return &row;
      case Claim::kNeedMore:
        return nullptr;
      case Claim::kNo:
        break;
    }
  }
  return nullptr;
}

void dispatch_control_connection(int control, const SessionContext& ctx) {
  const auto deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(
                         std::chrono::duration<double>(ctx.config->control_timeout_s));
  uint8_t first[kPeekBytes];
  size_t have = 0;
  const ProtocolRow* row = nullptr;
  while (!row) {
    if (ctx.stopping && ctx.stopping->load()) return;
    if (!net::sys::wait_readable(
            control, std::min(deadline, Clock::now() + std::chrono::milliseconds(200)))) {
      if (Clock::now() >= deadline) return;  // silent: dropped
      continue;
    }
    ssize_t n = ::recv(control, first, sizeof first, MSG_PEEK | MSG_DONTWAIT);
    if (n <= 0) return;  // closed, or reset
    if (static_cast<size_t>(n) == have) {
      // Readable with nothing new: wait for the rest of the bytes a row needs.
      if (Clock::now() >= deadline) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      continue;
    }
    have = static_cast<size_t>(n);
    row = classify(std::span<const uint8_t>(first, have));
    if (!row && have == sizeof first) return;  // cannot happen: the last row takes anything
  }
  try {
    row->serve(control, ctx);
  } catch (const std::exception& e) {
    if (ctx.config->log)
      std::fprintf(ctx.config->log, "flowperf server: %s session failed: %s\n", row->name,
                   e.what());
  }
}

}  // namespace flowperf::session
