#include "engine/collect.h"

#include <algorithm>

#include "engine/stream_flows.h"
#include "engine/worker.h"
#include "net/socket.h"

namespace flowperf::engine {
namespace {

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace

results::SideResult collect(Side& side, Clock::time_point cap) {
  results::SideResult r;
  r.threads = side.threads();
  r.flows.reserve(side.flows().size());  // no doubling: 10,000s of flows are many MB
  r.latency = side.merged_histogram();   // before the flows' histograms move out below
  Clock::time_point last = side.start_time();
  for (size_t i = 0; i < side.flows().size(); ++i) {
    const Flow& f = *side.flows()[i];
    results::FlowResult fr;
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
    fr.sched_intended = c.sched_intended.get();
    fr.sched_late = c.sched_late.get();
    fr.sched_held = c.sched_held.get();
    fr.sched_unsent = c.sched_unsent.get();
    fr.sched_max_lag_ns = c.sched_max_lag_ns.get();
    if (auto* u = dynamic_cast<const UdpRecvFlow*>(&f)) fr.jitter_ns = u->tracker().jitter_ns();
    fr.finished = done && f.error.empty() && side.phase() != Phase::kAbort;
    fr.error = f.error;
    fr.error_errno = f.error_errno;
    if (const auto* h = side.flow_histogram(i); h && h->count() > 0)
      fr.latency = side.take_flow_histogram(i);
    fr.tcp = net::read_tcp_info(f.initial_fd());
    fr.connection_mss = f.connection_mss();
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
