#include "session/iperf3_test.h"

#include <fmt/format.h>
#include <sys/socket.h>
#include <sys/utsname.h>

#include <algorithm>
#include <cstring>
#include <ctime>
#include <string_view>

#include "core/error.h"
#include "core/version.h"
#include "core/wall_clock.h"
#include "engine/test_plan.h"
#include "net/sys.h"
#include "proto/messages.h"

namespace flowperf::session::iperf3 {
namespace {

using spec::TestKind;

// A sample that ends within this of the omit period's end is still omitted
// (the sampler's clock ticks a little after the second it aims at).
constexpr double kOmitSlack = 0.05;

bool omitted(const Plan& plan, const results::IntervalSample& s) {
  return plan.omit_s > 0 && s.end_s <= plan.omit_s + kOmitSlack;
}

// iperf3 -J has no NaN: a rate over no time is 0.
double nonneg(double v) { return v < 0 ? 0 : v; }

}  // namespace

void send_state(int fd, int8_t state) {
  const auto deadline = Clock::now() + std::chrono::seconds(30);
  if (net::sys::write_all(fd, &state, 1, deadline) != net::sys::IoStatus::kOk)
    throw ControlLost("unable to write to the control socket");
}

int8_t read_state(int fd, Clock::time_point deadline) {
  int8_t s = 0;
  switch (net::sys::read_exact(fd, &s, 1, deadline)) {
    case net::sys::IoStatus::kOk:
      return s;
    case net::sys::IoStatus::kTimeout:
      throw runtime_error("no answer on the control connection in time");
    default:
      throw ControlLost("the control connection closed");
  }
}

void send_json(int fd, const std::string& body) {
  const auto deadline = Clock::now() + std::chrono::seconds(30);
  const auto len = ip::length_prefix(static_cast<uint32_t>(body.size()));
  // Two writes, as iperf3 makes them.
  if (net::sys::write_all(fd, len.data(), len.size(), deadline) != net::sys::IoStatus::kOk ||
      net::sys::write_all(fd, body.data(), body.size(), deadline) != net::sys::IoStatus::kOk)
    throw ControlLost("unable to write to the control socket");
}

std::string read_json(int fd, Clock::time_point deadline, uint32_t max_len) {
  uint8_t len[4];
  auto st = net::sys::read_exact(fd, len, sizeof len, deadline);
  if (st == net::sys::IoStatus::kTimeout)
    throw runtime_error("no message on the control connection in time");
  if (st != net::sys::IoStatus::kOk) throw ControlLost("the control connection closed");
  const uint32_t n = ip::read_length(len);
  if (n == 0 || n > max_len)
    throw proto::ProtocolError(
        fmt::format("a JSON message of {} bytes (at most {} taken here)", n, max_len));
  std::string body(n, '\0');
  st = net::sys::read_exact(fd, body.data(), n, deadline);
  if (st == net::sys::IoStatus::kTimeout)
    throw runtime_error("no message on the control connection in time");
  if (st != net::sys::IoStatus::kOk) throw ControlLost("the control connection closed");
  return body;
}

bool Plan::sends(uint32_t i) const {
  const uint32_t p = static_cast<uint32_t>(std::max(params.parallel, 0));
  const bool client_sends = params.bidirectional ? i < p : !params.reverse;
  return client ? client_sends : !client_sends;
}

bool Plan::sends_any() const {
  for (uint32_t i = 0; i < streams; ++i)
    if (sends(i)) return true;
  return false;
}

bool Plan::receives_any() const {
  for (uint32_t i = 0; i < streams; ++i)
    if (!sends(i)) return true;
  return false;
}

std::string set_control_keepalive(int fd, const net::Keepalive& k) {
  const char* failed = "SO_KEEPALIVE";
  if (const int err = net::set_keepalive(fd, k, &failed); err != 0) {
    // 3.21's messages for each call (IESETCNTLKA*, 155 to 158).
    const std::string_view f = failed;
    const char* what =
        f == "SO_KEEPALIVE"   ? "unable to set socket keepalive (SO_KEEPALIVE) option"
        : f == "TCP_KEEPIDLE" ? "unable to set socket keepalive TCP period (TCP_KEEPIDLE) option"
        : f == "TCP_KEEPINTVL"
            ? "unable to set/get socket keepalive TCP retry interval (TCP_KEEPINTVL) option"
            : "unable to set/get socket keepalive TCP number of retries (TCP_KEEPCNT) option";
    throw flowperf::runtime_error(fmt::format("{}: {}", what, std::strerror(err)));
  }
  const net::KeepaliveState now = net::keepalive_of(fd);
  const net::Keepalive& v = now.values;
  if (k.idle_s != 0 &&
      static_cast<long long>(v.idle_s) <= static_cast<long long>(v.interval_s) * v.count)
    throw flowperf::runtime_error(fmt::format(
        "Keepalive Idle time ({}) should be greater than Retries-interval ({}) times "
        "Retries-count ({}); control connection Keepalive period should be larger than the "
        "full retry period (interval * count)",
        v.idle_s, v.interval_s, v.count));
  return fmt::format(
      "Control connection TCP Keepalive TCP_KEEPIDLE/TCP_KEEPINTVL/TCP_KEEPCNT are set to "
      "{}/{}/{}\n",
      v.idle_s, v.interval_s, v.count);
}

Plan make_plan(const ip::Params& params, bool client) {
  Plan p;
  p.params = params;
  p.client = client;
  const uint32_t parallel = static_cast<uint32_t>(std::max(params.parallel, 0));
  p.streams = parallel * (params.bidirectional ? 2 : 1);
  spec::TestSpec& s = p.spec;
  s.test = params.udp ? TestKind::kUdpStream : TestKind::kTcpStream;
  const uint32_t len = params.len ? params.len : (params.udp ? 1460 : 128 * 1024);
  s.send_size = s.recv_size = len;
  s.streams = std::max<uint32_t>(p.streams, 1);
  s.local_sndbuf = s.local_rcvbuf = params.window;
  s.nodelay = params.nodelay;
  s.local.cc = params.congestion;
  if (params.tos) s.local.tos = *params.tos;
  s.sendfile = params.zerocopy && !params.udp;
  s.rate_bps = params.bandwidth;
  // UDP datagrams move 32 to a system call (sendmmsg, recvmmsg): every one
  // still carries its own header and is counted on its own.
  if (params.udp) s.batch = spec::kDefaultUdpStreamBatch;
  // iperf3's datagram header, and -b's bursts.
  s.wire.udp_header =
      params.udp_counters_64bit ? spec::UdpHeader::kIperf3Wide : spec::UdpHeader::kIperf3;
  s.wire.udp_burst = params.burst;
  s.duration_s = params.time;
  p.count = params.num ? params.num : params.blockcount * len;
  p.omit_s = params.omit;
  p.time_s = params.time;
  return p;
}

std::vector<std::unique_ptr<engine::Flow>> make_flows(const Plan& plan,
                                                      std::vector<net::Fd> sockets) {
  const std::string fill = plan.params.repeating_payload ? "0123456789" : "";
  uint32_t senders = 0;
  for (uint32_t i = 0; i < plan.streams; ++i) senders += plan.sends(i) ? 1 : 0;
  std::vector<std::unique_ptr<engine::Flow>> flows;
  uint32_t k = 0;
  for (uint32_t i = 0; i < sockets.size(); ++i) {
    const bool sends = plan.sends(i);
    // -n and -k count the test's bytes over all its sending streams.
    const uint64_t quota = sends ? engine::quota_for(plan.count, k++, std::max(senders, 1u)) : 0;
    // -b is each stream's own rate; over TCP the socket is paced instead.
    const uint64_t rate = plan.params.udp ? plan.params.bandwidth : 0;
    auto f = engine::stream_flow(plan.spec, std::move(sockets[i]), sends, quota, rate, fill);
    f->index = i;
    flows.push_back(std::move(f));
  }
  return flows;
}

std::vector<StreamTotals> totals(const Plan& plan, const results::SideResult& measured) {
  std::vector<StreamTotals> out(measured.flows.size());
  double omit_end = 0, last_end = 0;
  for (const auto& s : measured.intervals) {
    if (omitted(plan, s)) omit_end = s.end_s;
    last_end = std::max(last_end, s.end_s);
  }
  for (size_t i = 0; i < out.size(); ++i) {
    StreamTotals& t = out[i];
    const bool sends = plan.sends(static_cast<uint32_t>(i));
    t.seconds = nonneg(last_end - omit_end);
    uint64_t rtt_sum = 0, rtt_n = 0, received = 0;
    int64_t retrans = 0;
    for (const auto& s : measured.intervals) {
      if (omitted(plan, s) || i >= s.flows.size()) continue;
      const results::IntervalFlow& f = s.flows[i];
      t.bytes += sends ? f.bytes_sent : f.bytes_recv;
      if (plan.params.udp) {
        if (sends) {
          t.packets += f.datagrams_sent;
        } else {
          received += f.datagrams_recv;
          t.lost += f.lost;
          t.out_of_order += f.out_of_order;
          t.jitter_s = f.jitter_ns / 1e9;
        }
      } else if (sends) {
        retrans += static_cast<int64_t>(f.retrans);
        if (f.tcp) {
          t.max_snd_cwnd =
              std::max<uint64_t>(t.max_snd_cwnd, uint64_t{f.tcp->snd_cwnd} * f.tcp->snd_mss);
          t.max_snd_wnd = std::max<uint64_t>(t.max_snd_wnd, f.tcp->snd_wnd);
          t.max_rtt = std::max(t.max_rtt, f.tcp->rtt_us);
          t.min_rtt = rtt_n == 0 ? f.tcp->rtt_us : std::min(t.min_rtt, f.tcp->rtt_us);
          rtt_sum += f.tcp->rtt_us;
          ++rtt_n;
        }
      }
    }
    if (plan.params.udp && !sends) {
      t.lost = std::max<int64_t>(t.lost, 0);
      t.packets = received + static_cast<uint64_t>(t.lost);
    }
    if (!plan.params.udp && sends) {
      t.retransmits = retrans;
      t.mean_rtt = rtt_n ? static_cast<uint32_t>(rtt_sum / rtt_n) : 0;
    }
  }
  return out;
}

rp::Cpu cpu_of(const results::SideResult& measured) {
  rp::Cpu c;
  if (!measured.cpu || measured.cpu->elapsed_s <= 0) return c;
  // iperf3 reports its own process's CPU time over the test, in percent of
  // one CPU.
  c.user = 100.0 * measured.cpu->process_user_s / measured.cpu->elapsed_s;
  c.system = 100.0 * measured.cpu->process_system_s / measured.cpu->elapsed_s;
  c.total = c.user + c.system;
  return c;
}

ip::Results results_message(const Plan& plan, const results::SideResult& measured,
                            const std::vector<StreamTotals>& t, const ip::Results* peer) {
  ip::Results r;
  const rp::Cpu c = cpu_of(measured);
  r.cpu_util_total = c.total;
  r.cpu_util_user = c.user;
  r.cpu_util_system = c.system;
  r.sender_has_retransmits = plan.sends_any() ? (plan.params.udp ? 0 : 1) : -1;
  if (!plan.params.udp) {
    for (const auto& f : measured.flows)
      if (f.tcp && !f.tcp->congestion_control.empty()) {
        r.congestion_used = f.tcp->congestion_control;
        break;
      }
  }
  for (size_t i = 0; i < t.size(); ++i) {
    const bool sends = plan.sends(static_cast<uint32_t>(i));
    ip::StreamResult s;
    s.id = ip::stream_id(static_cast<uint32_t>(i));
    s.bytes = t[i].bytes;
    s.retransmits = !plan.params.udp && sends ? t[i].retransmits : -1;
    s.packets = static_cast<int64_t>(t[i].packets);
    s.end_time = t[i].seconds;
    if (!sends) {
      s.jitter = t[i].jitter_s;
      s.errors = t[i].lost;
    } else if (peer) {
      for (const auto& p : peer->streams)
        if (p.id == s.id) {
          s.jitter = p.jitter;
          s.errors = p.errors;
        }
    }
    r.streams.push_back(s);
  }
  return r;
}

rp::Interval report_interval(const Plan& plan, const results::IntervalSample& sample,
                             const std::vector<int>& sockets) {
  rp::Interval out;
  const bool omit = omitted(plan, sample);
  const double shift = omit || plan.omit_s <= 0 ? 0 : plan.omit_s;
  for (size_t i = 0; i < sample.flows.size(); ++i) {
    const results::IntervalFlow& f = sample.flows[i];
    const bool sends = plan.sends(static_cast<uint32_t>(i));
    rp::StreamSample s;
    s.socket = i < sockets.size() ? sockets[i] : 0;
    s.start = nonneg(sample.start_s - shift);
    s.end = nonneg(sample.end_s - shift);
    s.sender = sends;
    s.omitted = omit;
    s.bytes = sends ? f.bytes_sent : f.bytes_recv;
    if (plan.params.udp) {
      if (sends) {
        s.packets = f.datagrams_sent;
      } else {
        s.lost = std::max<int64_t>(f.lost, 0);
        s.packets = f.datagrams_recv;  // the renderer adds the lost ones, as iperf3 counts
        s.out_of_order = f.out_of_order;
        s.jitter_ms = f.jitter_ns / 1e6;
      }
    } else if (sends) {
      s.retransmits = static_cast<int64_t>(f.retrans);
      if (f.tcp) {
        s.snd_cwnd = uint64_t{f.tcp->snd_cwnd} * f.tcp->snd_mss;
        s.snd_wnd = f.tcp->snd_wnd;
        s.rtt_us = f.tcp->rtt_us;
        s.rttvar_us = f.tcp->rttvar_us;
        s.pmtu = f.tcp->pmtu;
      }
    }
    out.streams.push_back(s);
  }
  return out;
}

std::vector<rp::Interval> report_intervals(const Plan& plan, const results::SideResult& measured,
                                           const std::vector<int>& sockets) {
  std::vector<rp::Interval> out;
  for (const auto& s : measured.intervals) out.push_back(report_interval(plan, s, sockets));
  return out;
}

rp::EndInfo report_end(const Plan& plan, const results::SideResult& measured,
                       const std::vector<StreamTotals>& t, const ip::Results& peer,
                       const std::vector<int>& sockets, bool have_peer) {
  rp::EndInfo e;
  for (size_t i = 0; i < t.size(); ++i) {
    const bool sends = plan.sends(static_cast<uint32_t>(i));
    rp::StreamEnd s;
    s.socket = i < sockets.size() ? sockets[i] : 0;
    s.id = ip::stream_id(static_cast<uint32_t>(i));
    s.sender = sends;
    s.have_received = have_peer;
    rp::Totals own;
    own.seconds = t[i].seconds;
    own.bytes = t[i].bytes;
    own.retransmits = t[i].retransmits;
    own.max_snd_cwnd = t[i].max_snd_cwnd;
    own.max_snd_wnd = t[i].max_snd_wnd;
    own.max_rtt_us = t[i].max_rtt;
    own.min_rtt_us = t[i].min_rtt;
    own.mean_rtt_us = t[i].mean_rtt;
    own.packets = t[i].packets;
    own.lost = t[i].lost;
    own.jitter_ms = t[i].jitter_s * 1e3;
    own.out_of_order = t[i].out_of_order;
    rp::Totals theirs;
    for (const auto& p : peer.streams) {
      if (p.id != s.id) continue;
      theirs.seconds = p.end_time;
      theirs.bytes = p.bytes;
      theirs.retransmits = p.retransmits;
      theirs.packets = static_cast<uint64_t>(std::max<int64_t>(p.packets, 0));
      theirs.lost = p.errors;
      theirs.jitter_ms = p.jitter * 1e3;
    }
    if (sends) {
      // The sending end shows the receiver's jitter and loss.
      own.jitter_ms = theirs.jitter_ms;
      own.lost = theirs.lost;
      s.sent = own;
      s.received = theirs;
    } else {
      s.sent = theirs;
      s.received = own;
    }
    e.streams.push_back(s);
  }
  e.host = cpu_of(measured);
  e.remote = {peer.cpu_util_total, peer.cpu_util_user, peer.cpu_util_system};
  if (!plan.params.udp) {
    std::string own_cc;
    for (const auto& f : measured.flows)
      if (f.tcp && !f.tcp->congestion_control.empty()) {
        own_cc = f.tcp->congestion_control;
        break;
      }
    const std::string peer_cc = peer.congestion_used.value_or(own_cc);
    // With --bidir both ends send; iperf3 names the client's as the sender's.
    const bool own_is_sender = plan.sends_any() && (plan.client || !plan.receives_any());
    e.sender_tcp_congestion = own_is_sender ? own_cc : peer_cc;
    e.receiver_tcp_congestion = own_is_sender ? peer_cc : own_cc;
  }
  return e;
}

std::string http_time(int64_t secs) {
  return core::utc_text(static_cast<std::time_t>(secs), "%a, %d %b %Y %H:%M:%S GMT");
}

std::string system_info() {
  utsname u{};
  if (::uname(&u) != 0) return "Linux";
  return std::string(u.sysname) + " " + u.nodename + " " + u.release + " " + u.version + " " +
         u.machine;
}

void fill_test_start(rp::StartInfo& s, const ip::Params& p) {
  s.target_bitrate = p.bandwidth;
  s.sock_bufsize = static_cast<int>(p.window);
  s.udp = p.udp;
  s.num_streams = p.parallel;
  s.blksize = p.len;
  s.omit = p.omit;
  s.duration = p.time;
  s.bytes = p.num;
  s.blocks = p.blockcount;
  s.reverse = p.reverse;
  s.bidir = p.bidirectional;
  s.tos = p.tos.value_or(0);
  s.extra_data = p.extra_data;
}

std::string version_text() { return "iperf 3.12 (flowperf " + std::string(kVersion) + ")"; }

results::TestResult test_result(const Plan& plan, results::SideResult measured,
                                const ip::Results* peer) {
  results::TestResult r;
  r.spec = plan.spec;
  if (plan.params.reverse && !plan.params.udp && !plan.params.bidirectional)
    r.spec.test = TestKind::kTcpMaerts;
  uint64_t rate = 0;
  if (__builtin_mul_overflow(plan.params.bandwidth,
                             static_cast<uint64_t>(std::max(plan.params.parallel, 1)), &rate))
    rate = UINT64_MAX;
  r.spec.rate_bps = rate;
  r.intervals = std::move(measured.intervals);
  measured.intervals.clear();
  r.local_side = std::move(measured);
  if (!peer) return r;
  r.have_remote = true;
  results::SideResult& remote = r.remote_side;
  // The peer's streams in its order, which is the streams' (the ids say so).
  for (size_t i = 0; i < peer->streams.size(); ++i) {
    const ip::StreamResult& p = peer->streams[i];
    results::FlowResult f;
    f.index = static_cast<uint32_t>(i);
    f.elapsed_s = std::max(0.0, p.end_time - p.start_time);
    const bool peer_sent = !plan.sends(static_cast<uint32_t>(i));
    const uint64_t packets = p.packets > 0 ? static_cast<uint64_t>(p.packets) : 0;
    if (peer_sent) {
      f.bytes_sent = p.bytes;
      if (plan.params.udp) f.datagrams_sent = packets;
    } else {
      f.bytes_recv = p.bytes;
      if (plan.params.udp) {
        const uint64_t lost = p.errors > 0 ? static_cast<uint64_t>(p.errors) : 0;
        f.datagrams_recv = packets > lost ? packets - lost : 0;
        f.jitter_ns = p.jitter * 1e9;
      }
    }
    remote.elapsed_s = std::max(remote.elapsed_s, f.elapsed_s);
    remote.flows.push_back(std::move(f));
  }
  measure::CpuUsage cpu;
  cpu.util = peer->cpu_util_total;
  cpu.user = peer->cpu_util_user;
  cpu.system = peer->cpu_util_system;
  cpu.elapsed_s = remote.elapsed_s;
  remote.cpu = cpu;
  return r;
}

}  // namespace flowperf::session::iperf3
