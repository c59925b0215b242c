// What both ends of an iperf3 test share: the state bytes and JSON
// messages on the control connection, the test as the parameters describe
// it (which stream goes which way, sizes, options, when it ends), its
// flows, and iperf3's view of what one end measured (the results message,
// and the report model its text and -J are rendered from). The client
// (iperf3_client.cc) and the server (iperf3_session.cc) add only their
// halves of the conversation.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "engine/flow.h"
#include "net/fd.h"
#include "net/socket.h"
#include "proto/iperf3_wire.h"
#include "results/iperf3_run.h"
#include "results/measurements.h"
#include "results/test_result.h"
#include "spec/test_spec.h"

namespace flowperf::session::iperf3 {

namespace ip = proto::iperf3;
namespace rp = results::iperf3;
using Clock = std::chrono::steady_clock;

// The control connection closed, or a read or write on it failed.
struct ControlLost : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void send_state(int fd, int8_t state);
// The next state byte; throws ControlLost (closed) or Error (timeout).
int8_t read_state(int fd, Clock::time_point deadline);
void send_json(int fd, const std::string& body);
// A length-prefixed JSON message of at most `max_len` bytes (a longer one
// is refused from its length, unread).
std::string read_json(int fd, Clock::time_point deadline, uint32_t max_len = ip::kMaxJson);

// --cntl-ka: TCP keepalive on this end's control connection, as iperf3
// 3.21 sets it: the values given, the system's for the rest; an idle time
// that is given must exceed interval × count as the kernel then holds them.
// Returns the -V line ("Control connection TCP Keepalive ... are set to
// I/N/C"); throws Error with iperf3's words when a call fails or the check
// does not hold.
std::string set_control_keepalive(int fd, const net::Keepalive& k);

// The test the parameters describe, as one end runs it.
struct Plan {
  ip::Params params;
  bool client = true;  // this end
  // TCP or UDP stream, len per call, this end's socket options (`local`).
  spec::TestSpec spec;
  uint32_t streams = 1;  // data connections: P, or 2P with --bidir
  uint64_t count = 0;    // -n bytes, or -k blocks × len; 0: timed
  double omit_s = 0, time_s = 0;

  // Whether this end sends on stream i.
  bool sends(uint32_t i) const;
  bool sends_any() const;
  bool receives_any() const;
};
Plan make_plan(const ip::Params& params, bool client);

// This end's flows, one per socket, in stream order.
std::vector<std::unique_ptr<engine::Flow>> make_flows(const Plan& plan,
                                                      std::vector<net::Fd> sockets);

// What one end measured, after the omit period, per stream (iperf3's view).
struct StreamTotals {
  double seconds = 0;
  uint64_t bytes = 0;
  int64_t retransmits = -1;
  uint64_t max_snd_cwnd = 0, max_snd_wnd = 0;
  uint32_t max_rtt = 0, min_rtt = 0, mean_rtt = 0;
  uint64_t packets = 0;  // UDP: sent, or the highest sequence received
  int64_t lost = 0;
  uint64_t out_of_order = 0;
  double jitter_s = 0;
};
// `measured` must hold interval samples (they carry the omit period apart).
std::vector<StreamTotals> totals(const Plan& plan, const results::SideResult& measured);

// The results message this end sends. `peer`, when this end sends second,
// gives its sending streams the peer's jitter and loss, as iperf3 does.
ip::Results results_message(const Plan& plan, const results::SideResult& measured,
                            const std::vector<StreamTotals>& t, const ip::Results* peer);

// The report model: intervals (omitted ones marked, times after the omit
// period counted from its end) and the end, with the peer's figures for
// the other end's side of each stream.
std::vector<rp::Interval> report_intervals(const Plan& plan, const results::SideResult& measured,
                                           const std::vector<int>& sockets);
rp::Interval report_interval(const Plan& plan, const results::IntervalSample& sample,
                             const std::vector<int>& sockets);
rp::EndInfo report_end(const Plan& plan, const results::SideResult& measured,
                       const std::vector<StreamTotals>& t, const ip::Results& peer,
                       const std::vector<int>& sockets, bool have_peer);
rp::Cpu cpu_of(const results::SideResult& measured);

// The test as flowperf's own renderers take it (FLOWPERF_JSON, plot, the
// monitor): this end's measurements as they are, the peer's from its
// results message (`peer`: none when it never came). A reversed TCP test is
// a TCP_MAERTS, and -b, per stream in iperf3, becomes the test's total.
results::TestResult test_result(const Plan& plan, results::SideResult measured,
                                const ip::Results* peer);

// "Thu, 03 Dec 2026 22:17:17 GMT", and uname's words.
std::string http_time(int64_t secs);
std::string system_info();
// The test's shape as both ends' start blocks show it (start.test_start and
// the rate, buffer and TOS keys), from the parameters.
void fill_test_start(results::iperf3::StartInfo& start, const proto::iperf3::Params& p);
// start.version: "iperf 3.12 (flowperf X)", the protocol spoken and who speaks it.
std::string version_text();

}  // namespace flowperf::session::iperf3
