#include "measure/seq_tracker.h"

#include <cstdlib>

namespace flowperf::measure {

bool SeqTracker::test_and_set(uint64_t seq) noexcept {
  uint64_t bit = seq % kWindow;
  uint64_t& word = bits_[bit / 64];
  uint64_t mask = uint64_t{1} << (bit % 64);
  bool was = (word & mask) != 0;
  word |= mask;
  return was;
}

void SeqTracker::clear_range(uint64_t from, uint64_t to) noexcept {
  if (to - from + 1 >= kWindow) {
    bits_.fill(0);
    return;
  }
  // Counted, not compared against `to`: `to` may be the largest uint64_t.
  for (uint64_t i = 0, n = to - from + 1; i < n; ++i) {
    uint64_t bit = (from + i) % kWindow;
    bits_[bit / 64] &= ~(uint64_t{1} << (bit % 64));
  }
}

void SeqTracker::on_datagram(uint64_t seq, int64_t sent_ns, int64_t recv_ns) noexcept {
  if (!any_) {
    any_ = true;
    highest_ = seq;
    test_and_set(seq);
    ++unique_;
  } else if (seq > highest_) {
    clear_range(highest_ + 1, seq);
    highest_ = seq;
    test_and_set(seq);
    ++unique_;
  } else if (highest_ - seq >= kWindow) {
    ++out_of_order_;
    ++unique_;
  } else if (test_and_set(seq)) {
    ++duplicates_;
    return;  // a copy says nothing new about transit time
  } else {
    ++out_of_order_;
    ++unique_;
  }
  if (sent_ns != 0 && recv_ns != 0) {
    int64_t transit = recv_ns - sent_ns;
    if (have_transit_) {
      double d = static_cast<double>(std::llabs(transit - last_transit_));
      jitter_ += (d - jitter_) / 16.0;
    }
    have_transit_ = true;
    last_transit_ = transit;
  }
}

}  // namespace flowperf::measure
