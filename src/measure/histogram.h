// Histogram: a fixed-size log-linear latency histogram (in the spirit of HdrHistogram).
//
// Purpose
//   Record latencies in nanoseconds on a hot path (record() is a handful of instructions, never
//   allocates, never throws) and answer percentile queries with a bounded relative error. A server
//   ships its histogram to the client as a Snapshot; from_snapshot() rebuilds an identical one.
//
// Bucket layout (kSubBucketBits = 6, i.e. 64 linear sub-buckets per power of two)
//   * Values 0..127 each get their own bucket: index == value, so small values are exact.
//   * A value v >= 128 with bit width w (2^(w-1) <= v < 2^w) uses shift s = w - 7 and
//     index = 64 * s + (v >> s). Because v >> s lies in [64, 128), every power-of-two range
//     [2^(w-1), 2^w) is split into 64 equal buckets of width 2^s, and the indices of consecutive
//     ranges follow each other without gaps. Both cases are the single expression
//       s = bit_width(v | 127) - 7,  index = (s << 6) + (v >> s)
//     so index_of() has no data-dependent branch.
//   * Values < 2^40 are tracked at full precision: indices 0 .. 2239. Every value >= 2^40 goes in a
//     single overflow bucket, index 2240 == bucket_count() - 1, covering [2^40, 2^64 - 1].
//   * 2241 uint64_t counters = 17928 bytes if all were present (< 24 KiB). They are not allocated
//     up front: the counters held are one contiguous run of whole groups (a group: the 64 buckets
//     of one power-of-two range; the overflow bucket is a group of its own), from the group of the
//     smallest value recorded to that of the largest, grown when a value falls outside. One
//     flow's latencies usually span a few ranges, so a histogram takes a few KiB, not 18, and so
//     do its copies (results, messages). The object itself is ~64 bytes.
//
// Error bound
//   A percentile is reported as the midpoint of the bucket holding the sample at that rank,
//   clamped to [min(), max()]. Buckets of width 1 (v < 128) are exact. A bucket of width 2^s (s>=1)
//   starts at a value >= 64 * 2^s, and no sample in it is more than 2^(s-1) from the midpoint,
//   so the relative error is <= 2^(s-1) / (64 * 2^s) = 1/128 ~= 0.78% (< 1%). Clamping to the exact
//   [min, max] can only move the estimate closer to the true sample. Samples >= 2^40 share the
//   overflow bucket, whose midpoint is meaningless; a percentile that lands there reports max()
//   instead (no error bound there, except that it is exact at p = 100).
//
// Exact statistics
//   count, min, max and the sum are kept exactly (the sum as an unsigned 128-bit integer, which
//   cannot overflow while count fits in 64 bits: sum <= (2^64 - 1)^2 < 2^128), so mean() is exact
//   up to the final rounding to double. stddev() is NOT from a running sum of squares (that would
//   overflow, or cancel catastrophically in floating point, and would cost the hot path); it is
//   the population standard deviation of the bucket midpoints (each clamped to [min, max]; max for
//   the overflow bucket) around the exact mean. Its absolute error is at most the largest
//   per-sample quantisation error, i.e. <= max() / 128 while max() < 2^40 (0 for samples < 128,
//   and 0 when all samples are equal).
//
// Allocation: record() and record_n() reallocate the counters when a value falls below or above
// the groups held (at most 36 times in a histogram's life, usually a few times early on; never
// after clear(), which keeps them). Out of memory there ends the program (they are noexcept).
//
// Not thread-safe: use one histogram per thread and merge(). tap() lets another thread follow
// the counts as they grow (measure/live_latency.h).
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cstdint>
#include <memory>
#include <vector>

namespace flowperf::measure {

class Histogram {
 public:
  struct Bucket {
    uint32_t index = 0;
    uint64_t count = 0;
    friend bool operator==(const Bucket&, const Bucket&) = default;
  };

  // Everything needed to rebuild an identical Histogram (e.g. after sending it over the wire).
  // The 128-bit sum travels as two 64-bit halves so the round trip is exact; sum() below gives it
  // as a long double for display.
  struct Snapshot {
    std::vector<Bucket> buckets;  // nonzero counts only, strictly ascending index
    uint64_t min = 0;             // 0 when empty
    uint64_t max = 0;             // 0 when empty
    uint64_t sum_lo = 0;          // low 64 bits of the exact sum of all recorded values
    uint64_t sum_hi = 0;          // high 64 bits
    long double sum() const noexcept;
    friend bool operator==(const Snapshot&, const Snapshot&) = default;
  };

  static constexpr uint32_t kSubBucketBits = 6;
  static constexpr uint32_t kSubBuckets = 1u << kSubBucketBits;  // 64 per power of two
  static constexpr uint32_t kPrecisionBits = 40;                 // values < 2^40 are resolved
  static constexpr uint64_t kOverflowLow = uint64_t{1} << kPrecisionBits;
  static constexpr uint32_t kOverflowIndex = (kPrecisionBits - kSubBucketBits + 1) * kSubBuckets;
  static constexpr uint32_t kBucketCount = kOverflowIndex + 1;

  Histogram() = default;  // empty; allocates nothing
  // Copies hold their own counters (only the groups in use). A moved-from histogram is empty and
  // valid: record() on it works.
  Histogram(const Histogram& other);
  Histogram& operator=(const Histogram& other);
  Histogram(Histogram&& other) noexcept;
  Histogram& operator=(Histogram&& other) noexcept;
  ~Histogram() = default;

  // Hot path: no throw; one well-predicted branch (is the bucket inside the counters held?).
  void record(uint64_t value) noexcept {
    const uint32_t index = index_of(value);
    if (index - base_ >= size_) [[unlikely]]  // unsigned: also true below base_
      cover(index);
    ++counts_[index - base_];
    if (tap_) {
      std::atomic<uint64_t>& t = tap_[index];
      t.store(t.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    }
    ++count_;
    sum_ += value;
    // Branches, not std::min/max: a new extreme is rare after the first
    // few samples, and then nothing is stored.
    if (value < min_) [[unlikely]]
      min_ = value;
    if (value > max_) [[unlikely]]
      max_ = value;
  }
  void record_n(uint64_t value, uint64_t n) noexcept;  // n == 0 is a no-op
  void merge(const Histogram& other);                  // may allocate groups
  void clear() noexcept;                               // keeps the groups, zeroed

  // From now on record() and record_n() also add each sample to tap[its bucket index]
  // (bucket_count() counters, written with relaxed stores by the recording thread alone), so
  // another thread can read them while this one records; nullptr stops it. The tap belongs to
  // this object: copies and moves do not take it, and assigning to a tapped histogram keeps it.
  void tap(std::atomic<uint64_t>* tap) noexcept { tap_ = tap; }

  uint64_t count() const noexcept { return count_; }
  uint64_t min() const noexcept { return count_ == 0 ? 0 : min_; }  // exact
  uint64_t max() const noexcept { return max_; }                    // exact (0 when empty)
  long double sum() const noexcept;                                 // exact up to rounding
  double mean() const noexcept;    // exact up to the final rounding; 0 when empty
  double stddev() const noexcept;  // population stddev of clamped bucket midpoints; 0 when empty
  // p in [0, 100]. p <= 0 (or NaN) -> min(), p >= 100 -> max(). Otherwise the sample of rank
  // ceil(p / 100 * count()) (1-based, ascending) is located and its bucket's midpoint, clamped to
  // [min(), max()], is returned (max() if that bucket is the overflow bucket). 0 when empty.
  uint64_t percentile(double p) const noexcept;

  std::vector<Bucket> nonzero_buckets() const;  // ascending index
  Snapshot snapshot() const;
  // Throws std::invalid_argument if an index is out of range, indices are not strictly
  // ascending, a count is zero, the total count overflows, or min/max/sum are inconsistent with
  // the buckets (min/max not in the first/last nonzero bucket, min > max, sum impossible).
  static Histogram from_snapshot(const Snapshot& snapshot);

  static constexpr uint32_t bucket_count() noexcept { return kBucketCount; }
  static constexpr uint32_t index_of(uint64_t value) noexcept {
    const uint32_t shift =
        static_cast<uint32_t>(std::bit_width(value | (2 * kSubBuckets - 1))) - (kSubBucketBits + 1);
    const uint64_t index = (uint64_t{shift} << kSubBucketBits) + (value >> shift);
    return static_cast<uint32_t>(std::min<uint64_t>(index, kOverflowIndex));
  }
  static uint64_t bucket_low(uint32_t index) noexcept;   // smallest value in bucket; index clamped
  static uint64_t bucket_high(uint32_t index) noexcept;  // largest value in bucket; index clamped

  // Counter groups held (each kSubBuckets counters); for tests and memory accounting.
  size_t groups_in_use() const noexcept { return size_ / kSubBuckets; }

  // Equal when they hold the same samples (an absent group equals a group of zeros).
  friend bool operator==(const Histogram& a, const Histogram& b) noexcept;

 private:
  __extension__ typedef unsigned __int128 Uint128;  // __extension__: silence -Wpedantic

  // Value reported for a sample in bucket `index`: the bucket's midpoint clamped to [min_, max_],
  // or max_ for the overflow bucket.
  uint64_t representative(uint32_t index) const noexcept;
  long double exact_mean() const noexcept;  // count_ > 0
  // Grows the counters held to include bucket `index` (whole groups); cold path.
  void cover(uint32_t index) noexcept;
  uint64_t at(uint32_t index) const noexcept {  // a bucket's count; 0 when not held
    return index - base_ < size_ ? counts_[index - base_] : 0;
  }
  // Calls f(index, count) for every nonzero bucket, ascending, until f returns true. Returns
  // whether f did.
  template <typename F>
  bool for_each_nonzero(F&& f) const;

  std::unique_ptr<uint64_t[]> counts_;  // buckets base_ .. base_ + size_ - 1
  uint32_t base_ = 0;                   // a multiple of kSubBuckets
  uint32_t size_ = 0;                   // a multiple of kSubBuckets; 0: nothing held
  uint64_t count_ = 0;
  uint64_t min_ = UINT64_MAX;  // sentinel while empty; min() hides it
  uint64_t max_ = 0;
  Uint128 sum_ = 0;
  std::atomic<uint64_t>* tap_ = nullptr;  // see tap()
};

static_assert(Histogram::bucket_count() * sizeof(uint64_t) <= 24 * 1024);
static_assert(Histogram::kOverflowIndex % Histogram::kSubBuckets == 0);  // overflow: own group
static_assert(Histogram::index_of(Histogram::kOverflowLow - 1) == Histogram::kOverflowIndex - 1);
static_assert(Histogram::index_of(Histogram::kOverflowLow) == Histogram::kOverflowIndex);
static_assert(Histogram::index_of(UINT64_MAX) == Histogram::kOverflowIndex);

}  // namespace flowperf::measure
