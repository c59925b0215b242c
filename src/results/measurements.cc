#include "results/measurements.h"

#include <algorithm>

namespace flowperf::results {

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
    t.sched_intended += f.sched_intended;
    t.sched_late += f.sched_late;
    t.sched_held += f.sched_held;
    t.sched_unsent += f.sched_unsent;
    t.sched_max_lag_ns = std::max(t.sched_max_lag_ns, f.sched_max_lag_ns);
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

int SideResult::first_error_errno() const {
  for (const auto& f : flows)
    if (!f.error.empty()) return f.error_errno;
  return 0;
}

}  // namespace flowperf::results
