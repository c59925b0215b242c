// What one side of a test measured, as plain values: taken from the engine
// once its flows have finished, carried over a control protocol, and handed
// to the report code. Below proto/ and report/, above measure/ and net/:
// every layer that moves or shows measurements shares these, and none of
// them needs the engine for it. fields.h lists each struct's fields once.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "measure/cpu_meter.h"
#include "measure/histogram.h"
#include "measure/nic_counters.h"
#include "net/tcp_info.h"

namespace flowperf::results {

struct FlowResult {
  uint32_t index = 0;
  double elapsed_s = 0;  // this flow's start to its end
  uint64_t bytes_sent = 0, bytes_recv = 0;
  uint64_t send_calls = 0, recv_calls = 0;
  uint64_t transactions = 0;
  uint64_t datagrams_sent = 0, datagrams_recv = 0;
  uint64_t timeouts = 0, late = 0;
  uint64_t out_of_order = 0, duplicates = 0;
  uint64_t send_errors = 0, connects = 0;
  // Open-loop clients (TestSpec::rate_tps): requests sent on the schedule,
  // sent late (engine::kLateSendNs), held by the cap of requests in flight,
  // due but never sent, and the longest delay of a send (ns).
  uint64_t sched_intended = 0, sched_late = 0, sched_held = 0, sched_unsent = 0;
  uint64_t sched_max_lag_ns = 0;
  double jitter_ns = 0;  // UDP receivers with timestamps; 0 otherwise
  bool finished = true;  // false: aborted before it finished cleanly
  std::string error;
  int error_errno = 0;  // the system call's errno behind `error`, when one failed
  std::optional<measure::Histogram> latency;  // RR flows with their own histogram
  std::optional<net::TcpInfo> tcp;            // TCP flows: the kernel's view at the end
  uint32_t connection_mss = 0;                // TCP_CRR/TCP_CC clients: the first connection's MSS
};

// One flow over one reporting interval (-i): what its counters moved by,
// and its TCP state at the interval's end.
struct IntervalFlow {
  uint64_t bytes_sent = 0, bytes_recv = 0, transactions = 0;
  uint64_t datagrams_sent = 0, datagrams_recv = 0;
  // UDP receivers: datagrams missing from the sequence over the interval
  // (negative when late arrivals filled earlier gaps), out of order, and the
  // RFC 3550 jitter at the interval's end.
  int64_t lost = 0;
  uint64_t out_of_order = 0;
  double jitter_ns = 0;
  uint64_t timeouts = 0;                           // UDP_RR requests given up on
  uint64_t retrans = 0;                            // TCP segments retransmitted in the interval
  std::optional<net::TcpInfo> tcp = std::nullopt;  // at the interval's end
};

struct IntervalSample {
  double start_s = 0, end_s = 0;  // since the side's start
  std::vector<IntervalFlow> flows;
  std::optional<measure::CpuUsage> cpu = std::nullopt;
  std::optional<measure::NicUsage> nic = std::nullopt;
  // The latencies recorded in the interval (RR tests; stream tests with
  // call latency), each at its bucket's midpoint; none when nothing was.
  std::optional<measure::Histogram> latency = std::nullopt;
};

struct SideResult {
  double elapsed_s = 0;  // start to the last flow's end
  unsigned threads = 0;
  int sndbuf = 0, rcvbuf = 0;          // socket buffers in effect on this side's data sockets
  int sndbuf_end = 0, rcvbuf_end = 0;  // the same at the end (autotuning grows them)
  // A netserver's buffer-ring widths (how many buffers its sends and receives
  // cycle through), as its set-up response gave them to netperf's client;
  // 0: not reported. flowperf's own sides use one buffer each way.
  int send_width = 0, recv_width = 0;
  std::vector<FlowResult> flows;
  measure::Histogram latency;             // all flows merged
  std::optional<measure::CpuUsage> cpu;   // over the measured interval, when measured
  std::optional<measure::NicUsage> nic;   // the data path's interface, same interval
  std::vector<IntervalSample> intervals;  // with -i: this side's own samples

  // Sums over flows.
  FlowResult total() const;
  std::string first_error() const;
  // The errno of that first error (0: none, or not a system call's).
  int first_error_errno() const;
};

}  // namespace flowperf::results
