// What the kernel knows about a TCP connection (TCP_INFO and
// TCP_CONGESTION): retransmissions, round trip, window, segment size, rates.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace flowperf::net {

struct TcpInfo {
  uint32_t total_retrans = 0;  // segments retransmitted over the connection's life
  uint32_t rtt_us = 0, rttvar_us = 0;
  uint32_t snd_cwnd = 0;  // segments
  uint32_t snd_mss = 0, rcv_mss = 0;
  uint32_t pmtu = 0;
  uint32_t snd_wnd = 0;          // the peer's advertised receive window, bytes (0: kernel too old)
  uint64_t pacing_rate_bps = 0;  // bytes/s as the kernel reports, times 8
  uint64_t delivery_rate_bps = 0;  // likewise
  // The rest netperf dumps with DUMP_TCP_INFO set (flent keeps them).
  uint32_t rto_us = 0, ato_us = 0;
  uint32_t rcv_ssthresh = 0, snd_ssthresh = 0;
  uint32_t reordering = 0;
  std::string congestion_control;
};

// nullopt when fd is not a TCP socket (or the kernel says no).
std::optional<TcpInfo> read_tcp_info(int fd);

}  // namespace flowperf::net
