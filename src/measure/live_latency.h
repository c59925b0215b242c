// LiveLatency: per-bucket latency counts that another thread may read while
// one thread records, so -i samples can give each interval's percentiles
// while the workers run. A Histogram tapped with counters() adds each
// sample's bucket here as well (a relaxed load and store: one writer). The
// reader diffs two reads; histogram_of_counts() turns the difference into a
// Histogram whose percentiles are those the full histogram would give for
// the same samples (bucket midpoints; error below 0.8%), with min and max
// known to a bucket's width.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "measure/histogram.h"

namespace flowperf::measure {

class LiveLatency {
 public:
  LiveLatency();
  // For Histogram::tap(): Histogram::bucket_count() counters.
  std::atomic<uint64_t>* counters() noexcept { return counts_.get(); }
  // Any thread: the counts now, one per bucket (out is resized).
  void read(std::vector<uint64_t>& out) const;

 private:
  std::unique_ptr<std::atomic<uint64_t>[]> counts_;
};

// The samples of per-bucket counts (Histogram::bucket_count() of them, as
// read() gives; a difference of two reads) as a Histogram, each at its
// bucket's midpoint; nullopt when there are none.
std::optional<Histogram> histogram_of_counts(const std::vector<uint64_t>& counts);

}  // namespace flowperf::measure
