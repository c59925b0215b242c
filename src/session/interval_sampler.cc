#include "session/interval_sampler.h"

#include "net/tcp_info.h"

namespace flowperf::session {

namespace {
double seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}
}  // namespace

IntervalSampler::IntervalSampler(const engine::Side& side, double interval_s, Clock::time_point t0,
                                 const net::Address* local)
    : side_(side),
      interval_s_(interval_s),
      t0_(t0),
      next_(Clock::time_point::max()),
      last_(side.flows().size()) {
  if (interval_s_ <= 0) return;
  live_last_.assign(side.live_latency().size(),
                    std::vector<uint64_t>(measure::Histogram::bucket_count(), 0));
  next_ =
      t0_ + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(interval_s_));
  meter_.start(local);
}

results::IntervalSample IntervalSampler::take(Clock::time_point now) {
  results::IntervalSample s;
  s.start_s = last_s_;
  s.end_s = seconds(now - t0_);
  const auto& flows = side_.flows();
  for (size_t i = 0; i < flows.size(); ++i) {
    const auto& c = flows[i]->counters;
    Mark m{c.bytes_sent.get(),     c.bytes_recv.get(),     c.transactions.get(),
           c.datagrams_sent.get(), c.datagrams_recv.get(), c.seq_expected.get(),
           c.duplicates.get(),     c.out_of_order.get(),   c.timeouts.get()};
    const Mark& l = last_[i];
    results::IntervalFlow f;
    f.bytes_sent = m.bytes_sent - l.bytes_sent;
    f.bytes_recv = m.bytes_recv - l.bytes_recv;
    f.transactions = m.transactions - l.transactions;
    f.datagrams_sent = m.datagrams_sent - l.datagrams_sent;
    f.datagrams_recv = m.datagrams_recv - l.datagrams_recv;
    if (m.seq_expected > 0) {
      // Expected over the interval less the distinct datagrams that came.
      const auto unique_now = static_cast<int64_t>(m.datagrams_recv - m.duplicates);
      const auto unique_before = static_cast<int64_t>(l.datagrams_recv - l.duplicates);
      f.lost = (static_cast<int64_t>(m.seq_expected) - static_cast<int64_t>(l.seq_expected)) -
               (unique_now - unique_before);
      f.jitter_ns = static_cast<double>(c.jitter_ns.get());
    }
    f.out_of_order = m.out_of_order - l.out_of_order;
    f.timeouts = m.timeouts - l.timeouts;
    f.tcp = net::read_tcp_info(flows[i]->initial_fd());
    if (f.tcp) {
      m.retrans = f.tcp->total_retrans;
      f.retrans = m.retrans >= l.retrans ? m.retrans - l.retrans : 0;
    }
    s.flows.push_back(std::move(f));
    last_[i] = m;
  }
  if (!live_last_.empty()) {
    // The latencies recorded since the last sample, over all workers.
    live_diff_.assign(measure::Histogram::bucket_count(), 0);
    const auto& live = side_.live_latency();
    for (size_t w = 0; w < live.size() && w < live_last_.size(); ++w) {
      live[w]->read(live_now_);
      for (size_t b = 0; b < live_now_.size(); ++b)
        live_diff_[b] += live_now_[b] - live_last_[w][b];
      live_last_[w].swap(live_now_);
    }
    s.latency = measure::histogram_of_counts(live_diff_);
  }
  SideMeter::Reading m = meter_.lap();
  s.cpu = std::move(m.cpu);
  s.nic = std::move(m.nic);
  last_s_ = s.end_s;
  return s;
}

results::IntervalSample IntervalSampler::sample(Clock::time_point now) {
  results::IntervalSample s = take(now);
  const auto step =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(interval_s_));
  while (next_ <= now) next_ += step;
  return s;
}

std::optional<results::IntervalSample> IntervalSampler::finish(Clock::time_point now) {
  if (interval_s_ <= 0) return std::nullopt;
  if (seconds(now - t0_) <= last_s_) return std::nullopt;
  next_ = Clock::time_point::max();
  return take(now);
}

}  // namespace flowperf::session
