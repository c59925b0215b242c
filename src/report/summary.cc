#include "report/summary.h"

#include <algorithm>

namespace flowperf::report {

using spec::Protocol;
using spec::TestKind;
using spec::Workload;

namespace {

const results::FlowResult* find_flow(const results::SideResult& side, uint32_t index) {
  for (const auto& f : side.flows)
    if (f.index == index) return &f;
  return nullptr;
}

double rate(double amount, double seconds) { return seconds > 0 ? amount / seconds : 0; }

void fill_stream(StreamSummary& s, const results::FlowResult& local,
                 const results::FlowResult* remote, TestKind test, bool* receiver_counted) {
  s.elapsed_s = local.elapsed_s;
  switch (test) {
    case TestKind::kTcpStream:
      s.bytes_sent = local.bytes_sent;
      s.bytes_received = remote ? remote->bytes_recv : local.bytes_sent;
      break;
    case TestKind::kTcpMaerts:
      s.bytes_sent = remote ? remote->bytes_sent : local.bytes_recv;
      s.bytes_received = local.bytes_recv;
      break;
    case TestKind::kUdpStream:
      s.bytes_sent = local.bytes_sent;
      s.datagrams_sent = local.datagrams_sent;
      s.send_errors = local.send_errors;
      if (remote) {
        s.bytes_received = remote->bytes_recv;
        s.duplicates = remote->duplicates;
        s.out_of_order = remote->out_of_order;
        s.datagrams_received = remote->datagrams_recv - remote->duplicates;
        s.jitter_ms = remote->jitter_ns / 1e6;
      }
      s.datagrams_lost =
          s.datagrams_sent > s.datagrams_received ? s.datagrams_sent - s.datagrams_received : 0;
      s.loss_percent = s.datagrams_sent ? 100.0 * static_cast<double>(s.datagrams_lost) /
                                              static_cast<double>(s.datagrams_sent)
                                        : 0;
      s.send_bps = rate(8.0 * static_cast<double>(s.bytes_sent), s.elapsed_s);
      break;
    default:
      break;
  }
  if (!remote && test != TestKind::kTcpMaerts) *receiver_counted = false;
  s.throughput_bps = rate(8.0 * static_cast<double>(s.bytes_received), s.elapsed_s);
}

}  // namespace

Summary summarize(const results::TestResult& r) {
  Summary sum;
  const auto& info = spec::info(r.spec.test);
  sum.stream_family = info.workload == Workload::kStream;
  sum.udp = info.protocol == Protocol::kUdp;
  const results::SideResult* remote = r.have_remote ? &r.remote_side : nullptr;
  sum.receiver_counted = remote != nullptr;

  sum.streams.reserve(r.local_side.flows.size());
  for (const auto& lf : r.local_side.flows) {
    StreamSummary s;
    s.index = lf.index;
    const results::FlowResult* rf =
        remote && !info.connect_per_transaction ? find_flow(*remote, lf.index) : nullptr;
    if (sum.stream_family) {
      fill_stream(s, lf, rf, r.spec.test, &sum.receiver_counted);
    } else {
      s.elapsed_s = lf.elapsed_s;
      s.transactions = lf.transactions;
      s.remote_transactions = rf ? rf->transactions : 0;
      s.transactions_per_s = rate(static_cast<double>(lf.transactions), lf.elapsed_s);
      s.timeouts = lf.timeouts;
      s.late = lf.late;
      s.latency = lf.latency ? &*lf.latency : nullptr;
    }
    sum.streams.push_back(std::move(s));
  }

  // Totals: sums over streams, over the side's elapsed time.
  StreamSummary& t = sum.total;
  t.elapsed_s = r.local_side.elapsed_s;
  for (const auto& s : sum.streams) {
    t.bytes_sent += s.bytes_sent;
    t.bytes_received += s.bytes_received;
    t.datagrams_sent += s.datagrams_sent;
    t.datagrams_received += s.datagrams_received;
    t.datagrams_lost += s.datagrams_lost;
    t.out_of_order += s.out_of_order;
    t.duplicates += s.duplicates;
    t.send_errors += s.send_errors;
    t.transactions += s.transactions;
    t.remote_transactions += s.remote_transactions;
    t.timeouts += s.timeouts;
    t.late += s.late;
    t.jitter_ms = std::max(t.jitter_ms, s.jitter_ms);
  }
  if (info.connect_per_transaction && remote) t.remote_transactions = remote->total().transactions;
  t.throughput_bps = rate(8.0 * static_cast<double>(t.bytes_received), t.elapsed_s);
  t.send_bps = rate(8.0 * static_cast<double>(t.bytes_sent), t.elapsed_s);
  t.transactions_per_s = rate(static_cast<double>(t.transactions), t.elapsed_s);
  t.loss_percent = t.datagrams_sent ? 100.0 * static_cast<double>(t.datagrams_lost) /
                                          static_cast<double>(t.datagrams_sent)
                                    : 0;
  if (!sum.stream_family && r.local_side.latency.count() > 0) t.latency = &r.local_side.latency;
  if (r.spec.rate_tps > 0) {
    const results::FlowResult lt = r.local_side.total();
    OpenLoopSummary o;
    o.rate_per_s = r.spec.rate_tps;
    o.sent = lt.sched_intended;
    // Over the schedule's length: a timed test's, not its drain too.
    o.sent_per_s = rate(static_cast<double>(o.sent),
                        r.spec.count ? t.elapsed_s : std::min(t.elapsed_s, r.spec.duration_s));
    o.late = lt.sched_late;
    o.held = lt.sched_held;
    o.unsent = lt.sched_unsent;
    o.max_lag_us = static_cast<double>(lt.sched_max_lag_ns) / 1000.0;
    sum.open_loop = o;
  }

  auto retrans = [](const results::SideResult& side) -> std::optional<uint64_t> {
    std::optional<uint64_t> n;
    for (const auto& f : side.flows)
      if (f.tcp) n = n.value_or(0) + f.tcp->total_retrans;
    return n;
  };
  sum.local_retrans = retrans(r.local_side);
  if (r.have_remote) sum.remote_retrans = retrans(r.remote_side);

  const double work = sum.stream_family ? static_cast<double>(t.bytes_received)
                                        : static_cast<double>(t.transactions);
  const double divisor = sum.stream_family ? 1024.0 : 1.0;
  sum.sd_units = sum.stream_family ? "us/KB" : "us/Tr";
  if (r.local_side.cpu) sum.local_sd = measure::service_demand_us(*r.local_side.cpu, work, divisor);
  if (r.have_remote && r.remote_side.cpu)
    sum.remote_sd = measure::service_demand_us(*r.remote_side.cpu, work, divisor);
  return sum;
}

std::vector<measure::ConfidenceLoop::Metric> repeat_metrics(TestKind kind) {
  if (spec::info(kind).workload == Workload::kStream) return {{"bits_per_second", true}};
  return {{"transactions_per_second", true}, {"latency_p50_us", true}, {"latency_p99_us", true}};
}

std::vector<double> repeat_sample(const results::TestResult& r) {
  const Summary sum = summarize(r);
  if (sum.stream_family) return {sum.total.throughput_bps};
  const measure::Histogram* h = sum.total.latency ? &*sum.total.latency : nullptr;
  auto us = [&](double p) {
    return h && h->count() > 0 ? static_cast<double>(h->percentile(p)) / 1000.0 : 0.0;
  };
  return {sum.total.transactions_per_s, us(50), us(99)};
}

}  // namespace flowperf::report
