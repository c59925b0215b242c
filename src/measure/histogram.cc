// Histogram: see histogram.h for the bucket layout and the error bound.
#include "measure/histogram.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace flowperf::measure {

namespace {

constexpr uint32_t kExactLimit = 2 * Histogram::kSubBuckets;  // indices below this are width 1

// Shift (log2 of the width) of a non-overflow bucket with index >= kExactLimit.
constexpr uint32_t shift_of(uint32_t index) noexcept {
  return (index >> Histogram::kSubBucketBits) - 1;
}

}  // namespace

long double Histogram::Snapshot::sum() const noexcept {
  return std::ldexp(static_cast<long double>(sum_hi), 64) + static_cast<long double>(sum_lo);
}

Histogram::Histogram(const Histogram& other)
    : base_(other.base_),
      size_(other.size_),
      count_(other.count_),
      min_(other.min_),
      max_(other.max_),
      sum_(other.sum_) {
  if (size_ == 0) return;
  counts_ = std::make_unique_for_overwrite<uint64_t[]>(size_);
  std::copy_n(other.counts_.get(), size_, counts_.get());
}

Histogram& Histogram::operator=(const Histogram& other) {
  if (this != &other) *this = Histogram(other);
  return *this;
}

Histogram::Histogram(Histogram&& other) noexcept
    : counts_(std::move(other.counts_)),
      base_(other.base_),
      size_(other.size_),
      count_(other.count_),
      min_(other.min_),
      max_(other.max_),
      sum_(other.sum_) {
  other.base_ = other.size_ = 0;
  other.clear();  // its counters are gone: it is empty now
}

Histogram& Histogram::operator=(Histogram&& other) noexcept {
  if (this != &other) {
    counts_ = std::move(other.counts_);
    base_ = other.base_;
    size_ = other.size_;
    count_ = other.count_;
    min_ = other.min_;
    max_ = other.max_;
    sum_ = other.sum_;
    other.base_ = other.size_ = 0;
    other.clear();
  }
  return *this;
}

void Histogram::cover(uint32_t index) noexcept {
  if (index - base_ < size_) return;  // held already
  const uint32_t group_low = index & ~(kSubBuckets - 1);
  const uint32_t low = size_ == 0 ? group_low : std::min(base_, group_low);
  const uint32_t end =
      size_ == 0 ? group_low + kSubBuckets : std::max(base_ + size_, group_low + kSubBuckets);
  auto grown = std::make_unique<uint64_t[]>(end - low);  // zeroed
  if (size_ != 0) std::copy_n(counts_.get(), size_, grown.get() + (base_ - low));
  counts_ = std::move(grown);
  base_ = low;
  size_ = end - low;
}

template <typename F>
bool Histogram::for_each_nonzero(F&& f) const {
  for (uint32_t k = 0; k < size_; ++k) {
    if (counts_[k] != 0 && f(base_ + k, counts_[k])) return true;
  }
  return false;
}

bool operator==(const Histogram& a, const Histogram& b) noexcept {
  if (a.count_ != b.count_ || a.min_ != b.min_ || a.max_ != b.max_ || a.sum_ != b.sum_) {
    return false;
  }
  // Buckets outside what either holds are zero in both.
  const uint32_t low = std::min(a.size_ ? a.base_ : b.base_, b.size_ ? b.base_ : a.base_);
  const uint32_t end = std::max(a.base_ + a.size_, b.base_ + b.size_);
  for (uint32_t i = low; i < end; ++i) {
    if (a.at(i) != b.at(i)) return false;
  }
  return true;
}

void Histogram::record_n(uint64_t value, uint64_t n) noexcept {
  if (n == 0) return;
  const uint32_t index = index_of(value);
  if (index - base_ >= size_) cover(index);
  counts_[index - base_] += n;
  if (tap_) {
    std::atomic<uint64_t>& t = tap_[index];
    t.store(t.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }
  count_ += n;
  sum_ += static_cast<Uint128>(value) * n;
  min_ = std::min(min_, value);
  max_ = std::max(max_, value);
}

void Histogram::merge(const Histogram& other) {
  if (other.size_ != 0) {
    // Also correct for merge(*this): cover() changes nothing then, and every counter is read
    // before it is written.
    cover(other.base_);
    cover(other.base_ + other.size_ - 1);
    uint64_t* dst = counts_.get() + (other.base_ - base_);
    const uint64_t* src = other.counts_.get();
    for (uint32_t k = 0; k < other.size_; ++k) dst[k] += src[k];
  }
  count_ += other.count_;
  sum_ += other.sum_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
}

void Histogram::clear() noexcept {
  if (size_ != 0) std::fill_n(counts_.get(), size_, 0);
  count_ = 0;
  min_ = UINT64_MAX;
  max_ = 0;
  sum_ = 0;
}

long double Histogram::sum() const noexcept {
  return std::ldexp(static_cast<long double>(static_cast<uint64_t>(sum_ >> 64)), 64) +
         static_cast<long double>(static_cast<uint64_t>(sum_));
}

long double Histogram::exact_mean() const noexcept {
  // Integer quotient and remainder first, so only the fractional part is rounded. The quotient is
  // at most max() and therefore fits in 64 bits.
  const auto quotient = static_cast<uint64_t>(sum_ / count_);
  const auto remainder = static_cast<uint64_t>(sum_ % count_);
  return static_cast<long double>(quotient) +
         static_cast<long double>(remainder) / static_cast<long double>(count_);
}

double Histogram::mean() const noexcept {
  return count_ == 0 ? 0.0 : static_cast<double>(exact_mean());
}

double Histogram::stddev() const noexcept {
  if (count_ == 0) return 0.0;
  const long double mu = exact_mean();
  long double acc = 0.0L;
  for_each_nonzero([&](uint32_t i, uint64_t n) {
    const long double d = static_cast<long double>(representative(i)) - mu;
    acc += static_cast<long double>(n) * d * d;
    return false;
  });
  return static_cast<double>(std::sqrt(acc / static_cast<long double>(count_)));
}

uint64_t Histogram::percentile(double p) const noexcept {
  if (count_ == 0) return 0;
  if (!(p > 0.0)) return min_;  // also catches NaN
  if (p >= 100.0) return max_;

  // rank = ceil(p / 100 * count). p itself is usually not exactly representable (99.9 is stored
  // as 99.900000000000006), so a product that lands within a relative 1e-12 of an integer is
  // taken to be that integer; otherwise p = 99.9 with count = 1000 would give rank 1000, not 999.
  const long double n = static_cast<long double>(count_);
  long double r = static_cast<long double>(p) / 100.0L * n;
  const long double nearest = std::round(r);
  if (std::fabs(r - nearest) <= r * 1e-12L) r = nearest;
  const long double c = std::ceil(r);
  const uint64_t rank = c < 1.0L ? 1 : (c >= n ? count_ : static_cast<uint64_t>(c));

  uint64_t seen = 0;
  uint32_t found = kOverflowIndex;
  for_each_nonzero([&](uint32_t i, uint64_t in_bucket) {
    seen += in_bucket;
    found = i;
    return seen >= rank;
  });
  // The buckets between min and max hold all count_ samples, so the rank is always reached.
  return representative(found);
}

std::vector<Histogram::Bucket> Histogram::nonzero_buckets() const {
  std::vector<Bucket> out;
  for_each_nonzero([&](uint32_t i, uint64_t n) {
    out.push_back(Bucket{i, n});
    return false;
  });
  return out;
}

Histogram::Snapshot Histogram::snapshot() const {
  Snapshot s;
  s.buckets = nonzero_buckets();
  s.min = min();
  s.max = max();
  s.sum_lo = static_cast<uint64_t>(sum_);
  s.sum_hi = static_cast<uint64_t>(sum_ >> 64);
  return s;
}

Histogram Histogram::from_snapshot(const Snapshot& snapshot) {
  auto fail = [](const std::string& why) {
    throw std::invalid_argument("Histogram::from_snapshot: " + why);
  };
  const Uint128 sum = (static_cast<Uint128>(snapshot.sum_hi) << 64) | snapshot.sum_lo;

  Histogram h;
  if (snapshot.buckets.empty()) {
    if (snapshot.min != 0 || snapshot.max != 0 || sum != 0) {
      fail("empty snapshot with nonzero min/max/sum");
    }
    return h;
  }
  if (snapshot.min > snapshot.max) fail("min > max");

  // Bounds on the sum implied by the buckets and the exact min/max. Neither can overflow: the
  // total count is < 2^64 and every value is < 2^64, so any sum is < 2^128.
  Uint128 lowest = 0;
  Uint128 highest = 0;
  uint64_t total = 0;
  int64_t previous = -1;
  // Hold the whole run at once rather than growing it bucket by bucket (each growth copies).
  if (const uint32_t lo = snapshot.buckets.front().index, hi = snapshot.buckets.back().index;
      lo <= hi && hi < kBucketCount) {
    h.cover(lo);
    h.cover(hi);
  }
  for (const Bucket& b : snapshot.buckets) {
    if (b.index >= kBucketCount) fail("bucket index " + std::to_string(b.index) + " out of range");
    if (static_cast<int64_t>(b.index) <= previous) fail("bucket indices not strictly ascending");
    if (b.count == 0) fail("zero bucket count");
    if (total + b.count < total) fail("total count overflows");
    previous = b.index;
    total += b.count;
    h.cover(b.index);
    h.counts_[b.index - h.base_] = b.count;
    const uint64_t lo = std::clamp(bucket_low(b.index), snapshot.min, snapshot.max);
    const uint64_t hi = std::clamp(bucket_high(b.index), snapshot.min, snapshot.max);
    lowest += static_cast<Uint128>(lo) * b.count;
    highest += static_cast<Uint128>(hi) * b.count;
  }
  if (index_of(snapshot.min) != snapshot.buckets.front().index) {
    fail("min is not in the first nonzero bucket");
  }
  if (index_of(snapshot.max) != snapshot.buckets.back().index) {
    fail("max is not in the last nonzero bucket");
  }
  if (total == 1 && snapshot.min != snapshot.max) fail("one sample but min != max");
  if (sum < lowest || sum > highest) fail("sum inconsistent with buckets and min/max");

  h.count_ = total;
  h.min_ = snapshot.min;
  h.max_ = snapshot.max;
  h.sum_ = sum;
  return h;
}

uint64_t Histogram::bucket_low(uint32_t index) noexcept {
  if (index >= kOverflowIndex) return kOverflowLow;
  if (index < kExactLimit) return index;
  return uint64_t{(index & (kSubBuckets - 1)) | kSubBuckets} << shift_of(index);
}

uint64_t Histogram::bucket_high(uint32_t index) noexcept {
  if (index >= kOverflowIndex) return UINT64_MAX;
  if (index < kExactLimit) return index;
  return bucket_low(index) + ((uint64_t{1} << shift_of(index)) - 1);
}

uint64_t Histogram::representative(uint32_t index) const noexcept {
  // The overflow bucket spans [2^40, 2^64): its midpoint says nothing, the exact max says most.
  if (index == kOverflowIndex) return max_;
  const uint64_t low = bucket_low(index);
  return std::clamp(low + (bucket_high(index) - low) / 2, min_, max_);
}

}  // namespace flowperf::measure
