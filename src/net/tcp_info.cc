#include "net/tcp_info.h"

#include <linux/tcp.h>  // the kernel's tcp_info, with the rate fields glibc lacks
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstring>

namespace flowperf::net {

std::optional<TcpInfo> read_tcp_info(int fd) {
  if (fd < 0) return std::nullopt;
  tcp_info ti{};
  socklen_t len = sizeof ti;
  if (::getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) != 0) return std::nullopt;
  TcpInfo t;
  t.total_retrans = ti.tcpi_total_retrans;
  t.rtt_us = ti.tcpi_rtt;
  t.rttvar_us = ti.tcpi_rttvar;
  t.snd_cwnd = ti.tcpi_snd_cwnd;
  t.snd_mss = ti.tcpi_snd_mss;
  t.rcv_mss = ti.tcpi_rcv_mss;
  t.pmtu = ti.tcpi_pmtu;
  t.rto_us = ti.tcpi_rto;
  t.ato_us = ti.tcpi_ato;
  t.rcv_ssthresh = ti.tcpi_rcv_ssthresh;
  t.snd_ssthresh = ti.tcpi_snd_ssthresh;
  t.reordering = ti.tcpi_reordering;
  // Older kernels return a shorter struct; read the rates only when present.
  if (len >= offsetof(tcp_info, tcpi_pacing_rate) + sizeof ti.tcpi_pacing_rate)
    t.pacing_rate_bps = ti.tcpi_pacing_rate == ~0ull ? 0 : ti.tcpi_pacing_rate * 8;
  if (len >= offsetof(tcp_info, tcpi_delivery_rate) + sizeof ti.tcpi_delivery_rate)
    t.delivery_rate_bps = ti.tcpi_delivery_rate * 8;
  if (len >= offsetof(tcp_info, tcpi_snd_wnd) + sizeof ti.tcpi_snd_wnd) t.snd_wnd = ti.tcpi_snd_wnd;
  char cc[32] = {};
  socklen_t cclen = sizeof cc - 1;
  if (::getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, cc, &cclen) == 0)
    t.congestion_control.assign(cc, strnlen(cc, cclen));
  return t;
}

}  // namespace flowperf::net
