// One iperf3 test as iperf3 itself sees it, as plain values: the start
// block, each interval per stream, and the end totals of both sides
// (../shared/protocols/iperf3-wire.md §14, §15 name the fields). session/
// fills it from flowperf's measurements and the peer's results message;
// report/iperf3_report.h renders it as iperf3's text and -J, and
// results/iperf3_convert.h turns it into a TestResult for flowperf's own
// renderers. Nothing here formats.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace flowperf::results::iperf3 {

enum class Role { kClient, kServer };

// One data connection as "[  5] local A port P connected to B port Q" shows it.
struct Connected {
  int socket = 0;  // the number in "[  5]"; iperf3 shows its fd, we show ours
  std::string local_host;
  uint16_t local_port = 0;
  std::string remote_host;
  uint16_t remote_port = 0;
};

struct StartInfo {
  Role role = Role::kClient;
  std::vector<Connected> connected;
  std::string version;      // start.version, e.g. "flowperf 0.9 (iperf 3.12 compatible)"
  std::string system_info;  // start.system_info, uname -a's words
  std::string time;         // start.timestamp.time, "Thu, 03 Dec 2026 22:17:17 GMT"
  int64_t timesecs = 0;     // start.timestamp.timesecs
  // Client: start.connecting_to; server: "Accepted connection from HOST, port PORT"
  // (the control connection's peer).
  std::string peer_host;
  uint16_t peer_port = 0;
  std::string cookie;
  // TCP only: 3.12 prints it for every TCP test, even when 0 (a 3.12 server
  // recorded "tcp_mss_default": 0); UDP tests have no such key.
  int tcp_mss_default = 0;
  uint64_t target_bitrate = 0;
  int sock_bufsize = 0;  // -w, 0 if none
  int sndbuf_actual = 0, rcvbuf_actual = 0;
  // start.test_start
  bool udp = false;
  int num_streams = 1;
  uint32_t blksize = 0;
  int omit = 0;
  int duration = 0;
  uint64_t bytes = 0, blocks = 0;
  bool reverse = false;
  bool bidir = false;  // not a 3.12 -J key; changes the text layout
  int tos = 0;
  // -T: every text line starts with "TITLE:  "; -J: start.test_start has no
  // title key in 3.12, the title goes into the top level "title" key.
  std::string title;
  std::string extra_data;  // -J top level "extra_data" when set
};

// One stream over one interval, from this side's own counters.
struct StreamSample {
  int socket = 0;
  double start = 0, end = 0;  // seconds since the test start (after omit: since omit's end)
  uint64_t bytes = 0;
  bool sender = false;  // this side sent on this stream
  bool omitted = false;
  // TCP, this side sending: retransmits in the interval and TCP_INFO at its end.
  int64_t retransmits = 0;
  uint64_t snd_cwnd = 0, snd_wnd = 0;  // bytes
  uint32_t rtt_us = 0, rttvar_us = 0, pmtu = 0;
  // UDP: datagrams sent (sender) or received (receiver) in the interval;
  // receiver only: lost in the interval, out of order, jitter at its end.
  // (The renderer shows a receiver's total as packets + lost, iperf3's count.)
  uint64_t packets = 0;
  int64_t lost = 0;
  uint64_t out_of_order = 0;
  double jitter_ms = 0;
};

struct Interval {
  std::vector<StreamSample> streams;  // one per stream, in stream order
};

// A stream's totals as one end saw them (start/end as iperf3's
// end.streams[].sender and .receiver: start 0, end = seconds).
struct Totals {
  double seconds = 0;
  uint64_t bytes = 0;
  // TCP sender: retransmits (-1 when unknown), and from TCP_INFO over the test.
  int64_t retransmits = -1;
  uint64_t max_snd_cwnd = 0, max_snd_wnd = 0;
  uint32_t max_rtt_us = 0, min_rtt_us = 0, mean_rtt_us = 0;
  // UDP: the sender's packets sent; the receiver's highest sequence number
  // (iperf3's "packets"), lost (its "errors"), jitter and out of order.
  uint64_t packets = 0;
  int64_t lost = 0;
  double jitter_ms = 0;
  uint64_t out_of_order = 0;
};

struct StreamEnd {
  int socket = 0;
  int id = 0;                 // the wire's stream id (1, 3, 4, ...)
  bool sender = false;        // this side sent on this stream
  Totals sent, received;      // the sending end's and the receiving end's view
  bool have_received = true;  // false: the peer's results never came (interrupted)
};

struct Cpu {
  double total = 0, user = 0, system = 0;  // percent
};

struct EndInfo {
  std::vector<StreamEnd> streams;
  Cpu host, remote;
  std::string sender_tcp_congestion, receiver_tcp_congestion;  // TCP only
};

struct Report {
  StartInfo start;
  std::vector<Interval> intervals;
  EndInfo end;
  // The server's own output, when the client asked --get-server-output:
  // text from a text-mode server, JSON from a -J one.
  std::optional<std::string> server_output_text;
  // ordered_json (changed from nlohmann::json): the server's keys must print
  // in the server's order, which a sorted object would lose. Parse the
  // results message's "server_output_json" with nlohmann::ordered_json.
  std::optional<nlohmann::ordered_json> server_output_json;
  std::string error;  // -J: "error" key; set when the test failed part way
};

}  // namespace flowperf::results::iperf3
