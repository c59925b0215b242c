// What iperf3_report.cc (text) and iperf3_json.cc (-J) share: how 3.12
// groups the streams, which numbers it takes for a stream's two ends, and
// printf into a std::string. Private to src/report/iperf3_*.cc.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "report/iperf3_report.h"

namespace flowperf::report::iperf3::detail {

// snprintf into a std::string (the formats are iperf3's printf layouts).
template <typename... Args>
std::string sfmt(const char* format, Args... args) {
  int n = std::snprintf(nullptr, 0, format, args...);
  if (n <= 0) return {};
  std::string s(static_cast<size_t>(n), '\0');
  std::snprintf(s.data(), s.size() + 1, format, args...);
  return s;
}

// The streams of one direction. Without --bidir there is one group, all
// streams. With --bidir 3.12 prints (and sums, and names in -J) the streams
// whose data goes client to server first ("sum", "sum_sent"), then the others
// ("sum_bidir_reverse", "sum_sent_bidir_reverse"): on the client its sending
// streams, on the server its receiving ones. Items keep their stream order.
template <typename T>
struct Group {
  bool sender = false;  // this side sends on the group's streams
  std::vector<const T*> items;
};

template <typename T>
std::vector<Group<T>> groups(const StartInfo& start, const std::vector<T>& items) {
  if (!start.bidir) {
    Group<T> g;
    g.sender = items.empty() ? (start.role == Role::kClient) != start.reverse : items[0].sender;
    for (const T& i : items) g.items.push_back(&i);
    return {g};
  }
  bool forward_sender = start.role == Role::kClient;
  Group<T> fwd, rev;
  fwd.sender = forward_sender;
  rev.sender = !forward_sender;
  for (const T& i : items) (i.sender == forward_sender ? fwd : rev).items.push_back(&i);
  return {fwd, rev};
}

// Does this side's first stream send? (The interval heading follows it.)
inline bool first_stream_sends(const StartInfo& start) {
  if (start.bidir) return start.role == Role::kClient;  // client: streams 1.. send first
  return (start.role == Role::kClient) != start.reverse;
}

// The receiving end's totals as 3.12 prints them. When the peer's results
// never came (the client interrupted), 3.12 still prints the receiver line
// and object, with 0 bytes over the sender's time: "0.00-1.49 sec 0.00 Bytes
// 0.00 bits/sec ... receiver", UDP "0.000 ms 0/0 (0%)" (recorded).
inline Totals received(const StreamEnd& s) {
  if (s.have_received) return s.received;
  Totals t;
  t.seconds = s.sent.seconds;
  return t;
}

// Does 3.12 show the sender's retransmits (the Retr column; -J's retransmits
// and max_snd_cwnd ... keys) for this stream? A client adopts the sending
// peer's "sender_has_retransmits", so it shows them for every TCP stream
// whose sender reported a count (-R, and --bidir's receive streams too). A
// server prints before it has the client's numbers: only its own sending
// streams.
inline bool shows_retransmits(const StartInfo& start, const StreamEnd& s) {
  if (start.udp || s.sent.retransmits < 0) return false;
  return start.role == Role::kClient || s.sender;
}

inline double rate_bits(double bytes, double seconds) {
  return seconds > 0 ? bytes / seconds * 8 : 0;
}

// An interval's length as 3.12 keeps it: a float.
inline double interval_seconds(const StreamSample& s) {
  return static_cast<double>(static_cast<float>(s.end - s.start));
}

// UDP: the datagrams a receiver accounts for in an interval (received plus
// lost: iperf3's count, the highest sequence number's advance).
inline uint64_t interval_total(const StreamSample& s) {
  return s.packets + static_cast<uint64_t>(s.lost > 0 ? s.lost : 0);
}

inline double percent(int64_t lost, uint64_t total) {
  return total > 0 ? 100.0 * static_cast<double>(lost) / static_cast<double>(total) : 0.0;
}

}  // namespace flowperf::report::iperf3::detail
