#include "engine/test_plan.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core/error.h"
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

std::string read_fill_file(const std::string& path, size_t limit) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw usage_error("-F " + path + ": cannot read the fill file: " + std::strerror(errno));
  std::string bytes(limit, '\0');
  const size_t got = std::fread(bytes.data(), 1, limit, f);
  const bool failed = std::ferror(f);
  std::fclose(f);
  if (failed) throw usage_error("-F " + path + ": cannot read the fill file");
  if (got == 0) throw usage_error("-F " + path + ": the fill file is empty");
  bytes.resize(got);
  return bytes;
}

net::SocketOptions socket_options(const spec::TestSpec& s, spec::End end) {
  const bool local = end == spec::End::kLocal;
  const spec::SideOptions& side = s.side(end);
  net::SocketOptions o;
  o.sndbuf = static_cast<int>(local ? s.local_sndbuf : s.remote_sndbuf);
  o.rcvbuf = static_cast<int>(local ? s.local_rcvbuf : s.remote_rcvbuf);
  o.tos = side.tos;
  o.priority = side.priority;
  if (spec::info(s.test).protocol == spec::Protocol::kTcp) {
    o.nodelay = s.nodelay;
    o.cork = s.cork;
    o.keepalive = s.keepalive;
    o.congestion = side.cc;
  }
  return o;
}

std::unique_ptr<Flow> stream_flow(const spec::TestSpec& s, net::Fd fd, bool sends, uint64_t quota,
                                  uint64_t rate_bps, std::string_view fill) {
  const spec::WireOptions& fo = s.wire;
  if (spec::info(s.test).protocol == spec::Protocol::kTcp) {
    if (sends) {
      auto tcp = std::make_unique<TcpSendFlow>(std::move(fd), s.effective_send_size(), quota,
                                               s.sendfile, fill);
      tcp->call_timer.on = s.call_latency;
      return tcp;
    }
    auto tcp = std::make_unique<TcpRecvFlow>(std::move(fd), s.effective_recv_size());
    tcp->touch = fo.touch_received;
    tcp->call_timer.on = s.call_latency;
    return tcp;
  }
  if (sends) {
    auto udp = std::make_unique<UdpSendFlow>(std::move(fd), s.effective_send_size(), quota,
                                             rate_bps, UdpBatching{s.batch, s.gso, false}, fill);
    udp->header = fo.udp_header;
    udp->burst = fo.udp_burst;
    udp->call_timer.on = s.call_latency;
    return udp;
  }
  auto udp = std::make_unique<UdpRecvFlow>(std::move(fd),
                                           std::max<uint32_t>(s.effective_recv_size(), 65536),
                                           UdpBatching{s.batch, false, s.gro});
  udp->end_on_empty = fo.end_on_empty;
  udp->header = fo.udp_header;
  udp->touch = fo.touch_received;
  return udp;
}

OpenLoopPlan open_loop_plan(const spec::TestSpec& s, uint32_t i) {
  OpenLoopPlan p;
  p.rate_per_s = s.rate_tps / s.streams;
  p.poisson = s.arrival == spec::Arrival::kPoisson;
  // Each flow its own sequence: the seed and the flow's number, mixed.
  Schedule mix;
  mix.plan({1, false, s.seed ^ (0x9e3779b97f4a7c15ULL * (uint64_t{i} + 1)), 0, 1});
  p.seed = mix.next_random();
  p.phase = static_cast<double>(i) / s.streams;
  p.limit = s.max_outstanding;
  return p;
}

std::vector<std::unique_ptr<Flow>> client_flows(const spec::TestSpec& s,
                                                std::vector<net::Fd> sockets,
                                                const net::Address& crr_server,
                                                const net::Address& crr_source) {
  const spec::WireOptions& fo = s.wire;
  std::vector<std::unique_ptr<Flow>> flows;
  const uint32_t n = s.streams;
  // The fill file, read once, as far as the largest send buffer goes. Only
  // the client reads one: its sends are the ones the file is for.
  const std::string fill =
      s.fill_file.empty()
          ? std::string()
          : read_fill_file(s.fill_file, std::max<size_t>(size_t{s.effective_send_size()},
                                                         size_t{s.request_size}));
  for (uint32_t i = 0; i < n; ++i) {
    const uint64_t quota = quota_for(s.count, i, n);
    std::unique_ptr<Flow> f;
    switch (s.test) {
      case TestKind::kTcpStream:
      case TestKind::kUdpStream:
        f = stream_flow(s, std::move(sockets[i]), true, quota, s.rate_bps / n, fill);
        break;
      case TestKind::kTcpMaerts:
        f = stream_flow(s, std::move(sockets[i]), false, 0, 0, {});
        break;
      case TestKind::kTcpRr: {
        auto rr = std::make_unique<TcpRrClientFlow>(std::move(sockets[i]), s.request_size,
                                                    s.response_size, quota, fill);
        rr->set_first_burst(s.burst);
        if (s.rate_tps > 0) rr->set_open_loop(open_loop_plan(s, i));
        f = std::move(rr);
        break;
      }
      case TestKind::kTcpCrr:
      case TestKind::kTcpCc: {
        CrrOptions o{socket_options(s, spec::End::kLocal), crr_source, s.rst_close};
        if (s.rate_tps > 0)
          f = std::make_unique<OpenCrrClientFlow>(crr_server, o, data_size(s, s.request_size),
                                                  data_size(s, s.response_size), quota,
                                                  open_loop_plan(s, i), fill);
        else
          f = std::make_unique<CrrClientFlow>(crr_server, o, data_size(s, s.request_size),
                                              data_size(s, s.response_size), quota, fill);
        break;
      }
      case TestKind::kUdpRr: {
        auto rr = std::make_unique<UdpRrClientFlow>(
            std::move(sockets[i]), s.request_size, s.response_size, quota,
            std::chrono::microseconds(s.udp_rr_min_timeout_us), fill);
        rr->match_sequence = fo.match_sequence;
        rr->set_first_burst(s.burst);
        if (s.rate_tps > 0) rr->set_open_loop(open_loop_plan(s, i));
        f = std::move(rr);
        break;
      }
    }
    f->index = i;
    flows.push_back(std::move(f));
  }
  return flows;
}

std::vector<std::unique_ptr<Flow>> server_flows(const spec::TestSpec& s,
                                                std::vector<net::Fd> sockets,
                                                const std::vector<int>& crr_listeners) {
  const spec::WireOptions& fo = s.wire;
  std::vector<std::unique_ptr<Flow>> flows;
  if (spec::info(s.test).connect_per_transaction) {
    // The listeners have the socket options (see socket_options()).
    const CrrOptions o{socket_options(s, spec::End::kRemote), {}, s.rst_close};
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
      case TestKind::kUdpStream:
        f = stream_flow(s, std::move(sockets[i]), false, 0, 0, {});
        break;
      case TestKind::kTcpMaerts:
        f = stream_flow(s, std::move(sockets[i]), true, quota_for(s.count, i, s.streams), 0, {});
        break;
      case TestKind::kTcpRr: {
        auto rr = std::make_unique<TcpRrServerFlow>(std::move(sockets[i]), s.request_size,
                                                    s.response_size);
        rr->pipelined = s.burst > 0 || s.rate_tps > 0;
        f = std::move(rr);
        break;
      }
      case TestKind::kUdpRr: {
        auto rr = std::make_unique<UdpRrServerFlow>(std::move(sockets[i]), s.request_size,
                                                    s.response_size);
        rr->end_on_empty = fo.end_on_empty;
        f = std::move(rr);
        break;
      }
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
