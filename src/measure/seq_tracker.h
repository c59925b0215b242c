// SeqTracker: what a UDP receiver learns from the sequence numbers and send
// timestamps carried in each datagram: how many distinct datagrams arrived,
// how many came out of order or twice, and the RFC 3550 interarrival jitter.
// Loss is the sender's count minus unique(); the tracker cannot know about
// datagrams sent after the last one it saw.
//
// Duplicates are told from late arrivals with a bitmap of the last kWindow
// sequence numbers; an arrival older than that is counted as out of order
// (and unique), since it can no longer be checked.
#pragma once

#include <array>
#include <cstdint>

namespace flowperf::measure {

class SeqTracker {
 public:
  static constexpr uint64_t kWindow = 4096;

  // seq: the datagram's sequence number; sent_ns/recv_ns: sender's and
  // receiver's clocks (any offset; only differences are used), 0 = unknown.
  void on_datagram(uint64_t seq, int64_t sent_ns, int64_t recv_ns) noexcept;

  uint64_t unique() const noexcept { return unique_; }
  uint64_t out_of_order() const noexcept { return out_of_order_; }
  uint64_t duplicates() const noexcept { return duplicates_; }
  uint64_t highest() const noexcept { return highest_; }
  bool any() const noexcept { return any_; }
  // Interarrival jitter in nanoseconds (RFC 3550 section 6.4.1).
  double jitter_ns() const noexcept { return jitter_; }

 private:
  bool test_and_set(uint64_t seq) noexcept;
  void clear_range(uint64_t from, uint64_t to) noexcept;  // [from, to]

  std::array<uint64_t, kWindow / 64> bits_{};
  bool any_ = false;
  uint64_t highest_ = 0;
  uint64_t unique_ = 0, out_of_order_ = 0, duplicates_ = 0;
  bool have_transit_ = false;
  int64_t last_transit_ = 0;
  double jitter_ = 0;
};

}  // namespace flowperf::measure
