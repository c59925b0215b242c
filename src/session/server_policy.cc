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
