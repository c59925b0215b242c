// The server's policy, one for every protocol it speaks: what a test may ask
// of it (length, streams, rate), how fast the server itself sends, and how
// long a client may make it wait. Every protocol's session turns its own
// request into a TestAsk and asks refuse(); none checks a limit of its own.
// The counters of running tests (TestSlot, SourceLimits) belong to the one
// Server, whichever of its ports a test came to.
//
// What a --max-rate server does with each direction:
//   the server sends (TCP_MAERTS, iperf3 -R, qperf's receive side of a
//   reversed test): its data sockets are paced (SO_MAX_PACING_RATE), the
//   share of each being the limit over the streams;
//   the client sends over UDP: a test asking more than the limit in all,
//   or no rate, is refused;
//   the client sends over TCP: not limited (the server reads as fast as the
//   data comes) - docs/server.md says so.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "net/socket.h"
#include "session/test_slot.h"

namespace flowperf::session {

struct ServerConfig;

// A test as its client asked for it, in the policy's terms. The option
// names are the client's own, so the refusal speaks its language (an empty
// rate_option: the client has no way to pace, as netperf's UDP_STREAM).
struct TestAsk {
  std::string_view duration_option = "-l";
  std::string_view streams_option = "-P";
  std::string_view rate_option = "-b";
  double duration_s = 0;  // the test's length; 0: by count, or until stopped
  uint64_t streams = 1;
  bool udp_stream = false;  // a UDP bulk test: its rate must be given and within the limit
  uint64_t rate_bps = 0;    // all streams together (saturated, see times()); 0: unpaced
  // The buffers one stream asks of the server: the largest single one (a
  // message or a socket buffer), named by the client's options, and all of
  // them together (messages both ways, socket buffers).
  std::string_view buffer_options = "-m, -M, -r or -S";
  uint64_t largest_buffer = 0;
  uint64_t stream_buffers = 0;
};

// What the server's own bookkeeping of a stream costs besides its buffers
// (flow state, histograms, the worker's share), counted in the budget.
inline constexpr uint64_t kStreamOverheadBytes = 16 * 1024;

// a × b for numbers a client chose, saturating at UINT64_MAX instead of
// wrapping: a huge rate times many streams must not come out small.
uint64_t times(uint64_t a, uint64_t b);

class ServerPolicy {
 public:
  explicit ServerPolicy(const ServerConfig& config) : config_(config) {}

  // Empty when the test may run, else why not, in words for the client.
  std::string refuse(const TestAsk& ask) const;

  // The bytes the test is counted for in the memory budget.
  static uint64_t memory_of(const TestAsk& ask);
  // Takes the test's share of the memory budget into `slot` (released
  // with it): empty when it fits, else why not, in words for the client.
  std::string take_memory(TestSlot& slot, MemoryBudget* budget, const TestAsk& ask) const;

  // The pacing (bytes/s) for each of `sockets` sockets the server sends
  // on: the --max-rate share; 0 when there is no limit.
  uint64_t send_share(uint64_t sockets) const;
  // Lowers options.max_pacing_rate to that share (a client's own lower
  // pace stays).
  void pace(net::SocketOptions& options, uint64_t sockets) const;

  // How long a test may run: what the client asked (0: nothing asked),
  // never past the server's --max-duration.
  double test_seconds(double asked_s) const;
  // A wait the client chose the length of (qperf's request timeout):
  // never longer than the server's --control-timeout.
  double control_wait_seconds(double asked_s) const;

 private:
  const ServerConfig& config_;
};

}  // namespace flowperf::session
