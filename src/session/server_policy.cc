#include "session/server_policy.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "session/server.h"

namespace flowperf::session {

uint64_t times(uint64_t a, uint64_t b) {
  uint64_t product = 0;
  if (__builtin_mul_overflow(a, b, &product)) return std::numeric_limits<uint64_t>::max();
  return product;
}

std::string ServerPolicy::refuse(const TestAsk& ask) const {
  const ServerConfig& c = config_;
  if (ask.duration_s > c.max_duration_s)
    return fmt::format("{} {}: this server runs tests of at most {} seconds", ask.duration_option,
                       ask.duration_s, c.max_duration_s);
  if (c.max_buffer_bytes > 0 && ask.largest_buffer > c.max_buffer_bytes)
    return fmt::format(
        "a buffer of {} bytes ({}): this server takes buffers of at most {} bytes a stream "
        "(--max-buffer)",
        ask.largest_buffer, ask.buffer_options, c.max_buffer_bytes);
  if (c.max_streams > 0 && ask.streams > c.max_streams)
    return fmt::format("{} {}: this server runs at most {} streams a test", ask.streams_option,
                       ask.streams, c.max_streams);
  if (c.max_rate_bps > 0 && ask.udp_stream &&
      (ask.rate_bps == 0 || ask.rate_bps > c.max_rate_bps)) {
    const std::string asked = ask.rate_bps == 0 ? std::string("an unpaced UDP test")
                              : ask.rate_bps == std::numeric_limits<uint64_t>::max()
                                  ? fmt::format("{} beyond 2^64 bit/s in all", ask.rate_option)
                                  : fmt::format("{} {}", ask.rate_option, ask.rate_bps);
    if (ask.rate_option.empty())
      return fmt::format(
          "{}: this server takes UDP streams of at most {} bit/s in all, and this client "
          "cannot pace its sending",
          asked, c.max_rate_bps);
    return fmt::format(
        "{}: this server takes UDP streams of at most {} bit/s in all; give {} {} "
        "or less",
        asked, c.max_rate_bps, ask.rate_option, c.max_rate_bps);
  }
  return {};
}

uint64_t ServerPolicy::memory_of(const TestAsk& ask) {
  const uint64_t per_stream = ask.stream_buffers > UINT64_MAX - kStreamOverheadBytes
                                  ? UINT64_MAX
                                  : ask.stream_buffers + kStreamOverheadBytes;
  return times(std::max<uint64_t>(ask.streams, 1), per_stream);
}

std::string ServerPolicy::take_memory(TestSlot& slot, MemoryBudget* budget,
                                      const TestAsk& ask) const {
  const uint64_t need = memory_of(ask);
  uint64_t in_use = 0;
  if (slot.take_memory(budget, need, &in_use)) return {};
  constexpr double kMiB = 1024.0 * 1024.0;
  if (need > budget->limit())
    return fmt::format(
        "this test's buffers ({:.1f} MiB for {} streams) are more than this server gives all "
        "its tests together ({:.1f} MiB, --max-memory); ask for fewer streams ({}) or smaller "
        "buffers ({})",
        static_cast<double>(need) / kMiB, ask.streams, static_cast<double>(budget->limit()) / kMiB,
        ask.streams_option, ask.buffer_options);
  return fmt::format(
      "this server's memory for tests is in use ({:.1f} of {:.1f} MiB, --max-memory) and this "
      "test needs {:.1f} MiB: try again later, or ask for fewer streams or smaller buffers",
      static_cast<double>(in_use) / kMiB, static_cast<double>(budget->limit()) / kMiB,
      static_cast<double>(need) / kMiB);
}

uint64_t ServerPolicy::send_share(uint64_t sockets) const {
  if (config_.max_rate_bps == 0) return 0;
  return std::max<uint64_t>(config_.max_rate_bps / 8 / std::max<uint64_t>(sockets, 1), 1);
}

void ServerPolicy::pace(net::SocketOptions& options, uint64_t sockets) const {
  const uint64_t share = send_share(sockets);
  if (share > 0 && (options.max_pacing_rate == 0 || options.max_pacing_rate > share))
    options.max_pacing_rate = share;
}

double ServerPolicy::test_seconds(double asked_s) const {
  if (asked_s <= 0) return config_.max_duration_s;
  return std::min(asked_s, config_.max_duration_s);
}

double ServerPolicy::control_wait_seconds(double asked_s) const {
  if (asked_s <= 0) return config_.control_timeout_s;
  return std::min(asked_s, config_.control_timeout_s);
}

}  // namespace flowperf::session
