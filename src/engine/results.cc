#include "engine/results.h"

#include <algorithm>

#include "engine/stream_flows.h"
#include "engine/worker.h"
#include "net/socket.h"

namespace flowperf::engine {
namespace {

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace

FlowResult SideResult::total() const {
  FlowResult t;
  t.elapsed_s = elapsed_s;
  double jitter_sum = 0;
  size_t jitter_n = 0;
  for (const auto& f : flows) {
    t.bytes_sent += f.bytes_sent;
    t.bytes_recv += f.bytes_recv;
    t.send_calls += f.send_calls;
    t.recv_calls += f.recv_calls;
    t.transactions += f.transactions;
    t.datagrams_sent += f.datagrams_sent;
    t.datagrams_recv += f.datagrams_recv;
    t.timeouts += f.timeouts;
    t.late += f.late;
    t.out_of_order += f.out_of_order;
    t.duplicates += f.duplicates;
    t.send_errors += f.send_errors;
    t.connects += f.connects;
    t.finished = t.finished && f.finished;
    if (f.jitter_ns > 0) {
      jitter_sum += f.jitter_ns;
      ++jitter_n;
    }
  }
  t.jitter_ns = jitter_n ? jitter_sum / static_cast<double>(jitter_n) : 0;
  return t;
}

std::string SideResult::first_error() const {
  for (const auto& f : flows)
    if (!f.error.empty()) return f.error;
  return {};
}

SideResult collect(Side& side, Clock::time_point cap) {
  SideResult r;
  r.threads = side.threads();
  r.flows.reserve(side.flows().size());  // no doubling: 10,000s of flows are many MB
  r.latency = side.merged_histogram();   // before the flows' histograms move out below
  Clock::time_point last = side.start_time();
  for (size_t i = 0; i < side.flows().size(); ++i) {
    const Flow& f = *side.flows()[i];
    FlowResult fr;
    fr.index = f.index;
    const bool done = f.is_finished.load(std::memory_order_acquire);
    Clock::time_point end = std::min(done ? f.ended : Clock::now(), cap);
    if (f.started != Clock::time_point{}) fr.elapsed_s = seconds(end - f.started);
    last = std::max(last, end);
    const FlowCounters& c = f.counters;
    fr.bytes_sent = c.bytes_sent.get();
    fr.bytes_recv = c.bytes_recv.get();
    fr.send_calls = c.send_calls.get();
    fr.recv_calls = c.recv_calls.get();
    fr.transactions = c.transactions.get();
    fr.datagrams_sent = c.datagrams_sent.get();
    fr.datagrams_recv = c.datagrams_recv.get();
    fr.timeouts = c.timeouts.get();
    fr.late = c.late.get();
    fr.out_of_order = c.out_of_order.get();
    fr.duplicates = c.duplicates.get();
    fr.send_errors = c.send_errors.get();
    fr.connects = c.connects.get();
    if (auto* u = dynamic_cast<const UdpRecvFlow*>(&f)) fr.jitter_ns = u->tracker().jitter_ns();
    fr.finished = done && f.error.empty() && side.phase() != Phase::kAbort;
    fr.error = f.error;
    if (const auto* h = side.flow_histogram(i); h && h->count() > 0)
      fr.latency = side.take_flow_histogram(i);
    fr.tcp = net::read_tcp_info(f.initial_fd());
    if (i == 0 && f.initial_fd() >= 0) {
      r.sndbuf_end = net::get_sndbuf(f.initial_fd());
      r.rcvbuf_end = net::get_rcvbuf(f.initial_fd());
    }
    r.flows.push_back(std::move(fr));
  }
  r.elapsed_s = seconds(last - side.start_time());
  return r;
}

}  // namespace flowperf::engine
