#include "engine/test_plan.h"

#include "engine/rr_flows.h"
#include "engine/stream_flows.h"

namespace flowperf::engine {

using spec::TestKind;

namespace {
// TCP_CC's sizes are only reported: its flows move no data.
uint32_t data_size(const spec::TestSpec& s, uint32_t size) {
  return spec::carries_data(s.test) ? size : 0;
}
}  // namespace

uint64_t quota_for(uint64_t count, uint32_t i, uint32_t n) {
  if (count == 0) return 0;
  uint64_t q = count / n + (i < count % n ? 1 : 0);
  return q == 0 ? 0 : q;
}

std::vector<std::unique_ptr<Flow>> client_flows(const spec::TestSpec& s,
                                                std::vector<net::Fd> sockets,
                                                const net::Address& crr_server) {
  std::vector<std::unique_ptr<Flow>> flows;
  const uint32_t n = s.streams;
  for (uint32_t i = 0; i < n; ++i) {
    const uint64_t quota = quota_for(s.count, i, n);
    std::unique_ptr<Flow> f;
    switch (s.test) {
      case TestKind::kTcpStream:
        f = std::make_unique<TcpSendFlow>(std::move(sockets[i]), s.effective_send_size(), quota,
                                          s.sendfile);
        break;
      case TestKind::kTcpMaerts:
        f = std::make_unique<TcpRecvFlow>(std::move(sockets[i]), s.effective_recv_size());
        break;
      case TestKind::kUdpStream:
        f = std::make_unique<UdpSendFlow>(std::move(sockets[i]), s.effective_send_size(), quota,
                                          s.rate_bps / n, UdpBatching{s.batch, s.gso, false});
        break;
      case TestKind::kTcpRr:
        f = std::make_unique<TcpRrClientFlow>(std::move(sockets[i]), s.request_size,
                                              s.response_size, quota);
        break;
      case TestKind::kTcpCrr:
      case TestKind::kTcpCc: {
        SocketOptions o{static_cast<int>(s.local_sndbuf), static_cast<int>(s.local_rcvbuf),
                        s.nodelay};
        o.rst_close = s.rst_close;
        f = std::make_unique<CrrClientFlow>(crr_server, o, data_size(s, s.request_size),
                                            data_size(s, s.response_size), quota);
        break;
      }
      case TestKind::kUdpRr:
        f = std::make_unique<UdpRrClientFlow>(std::move(sockets[i]), s.request_size,
                                              s.response_size, quota,
                                              std::chrono::microseconds(s.udp_rr_min_timeout_us));
        break;
    }
    f->index = i;
    flows.push_back(std::move(f));
  }
  return flows;
}

std::vector<std::unique_ptr<Flow>> server_flows(const spec::TestSpec& s,
                                                std::vector<net::Fd> sockets,
                                                const std::vector<int>& crr_listeners) {
  std::vector<std::unique_ptr<Flow>> flows;
  if (spec::info(s.test).connect_per_transaction) {
    SocketOptions o{static_cast<int>(s.remote_sndbuf), static_cast<int>(s.remote_rcvbuf),
                    s.nodelay};
    o.rst_close = s.rst_close;
    for (size_t i = 0; i < crr_listeners.size(); ++i) {
      flows.push_back(std::make_unique<CrrServerFlow>(
          crr_listeners[i], o, data_size(s, s.request_size), data_size(s, s.response_size)));
      flows.back()->index = static_cast<uint32_t>(i);
    }
    return flows;
  }
  for (uint32_t i = 0; i < sockets.size(); ++i) {
    std::unique_ptr<Flow> f;
    switch (s.test) {
      case TestKind::kTcpStream:
        f = std::make_unique<TcpRecvFlow>(std::move(sockets[i]), s.effective_recv_size());
        break;
      case TestKind::kTcpMaerts:
        f = std::make_unique<TcpSendFlow>(std::move(sockets[i]), s.effective_send_size(),
                                          quota_for(s.count, i, s.streams), s.sendfile);
        break;
      case TestKind::kUdpStream:
        f = std::make_unique<UdpRecvFlow>(std::move(sockets[i]),
                                          std::max<uint32_t>(s.effective_recv_size(), 65536),
                                          UdpBatching{s.batch, false, s.gro});
        break;
      case TestKind::kTcpRr:
        f = std::make_unique<TcpRrServerFlow>(std::move(sockets[i]), s.request_size,
                                              s.response_size);
        break;
      case TestKind::kUdpRr:
        f = std::make_unique<UdpRrServerFlow>(std::move(sockets[i]), s.request_size,
                                              s.response_size);
        break;
      case TestKind::kTcpCrr:
      case TestKind::kTcpCc:
        break;
    }
    f->index = i;
    flows.push_back(std::move(f));
  }
  return flows;
}

}  // namespace flowperf::engine
