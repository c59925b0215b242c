#include "measure/live_latency.h"

namespace flowperf::measure {

LiveLatency::LiveLatency()
    : counts_(std::make_unique<std::atomic<uint64_t>[]>(Histogram::bucket_count())) {}

void LiveLatency::read(std::vector<uint64_t>& out) const {
  out.resize(Histogram::bucket_count());
  for (uint32_t i = 0; i < Histogram::bucket_count(); ++i)
    out[i] = counts_[i].load(std::memory_order_relaxed);
}

std::optional<Histogram> histogram_of_counts(const std::vector<uint64_t>& counts) {
  Histogram h;
  for (uint32_t i = 0; i < counts.size() && i < Histogram::bucket_count(); ++i) {
    if (counts[i] == 0) continue;
    const uint64_t low = Histogram::bucket_low(i), high = Histogram::bucket_high(i);
    h.record_n(low + (high - low) / 2, counts[i]);
  }
  if (h.count() == 0) return std::nullopt;
  return h;
}

}  // namespace flowperf::measure
