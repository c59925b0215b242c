// What both ends of a qperf test share (proto/qperf_wire.h has the
// messages): the control connection's reads and writes with qperf's error
// channel, the sync strings, the engine test behind each qperf test, and
// the STAT's time arrays. The client (qperf_client.cc) and the server
// (qperf_session.cc) add only their halves of the conversation.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "engine/flow.h"
#include "measure/cpu_meter.h"
#include "net/fd.h"
#include "proto/qperf_wire.h"
#include "results/measurements.h"
#include "spec/test_spec.h"

namespace flowperf::session::qperf {

namespace qw = proto::qperf;
using Clock = std::chrono::steady_clock;

// The peer sent its error text ('?' as urgent data, then the text).
struct PeerError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// The control exchange failed: "failed to receive port: timed out",
// "failed to receive statistics: server not responding".
struct ControlFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Reads exactly `n` bytes of the message `what` before `deadline`. Throws
// PeerError when the peer reports an error instead, ControlFailure when it
// closes, resets or says nothing in time.
void read_message(int fd, void* buf, size_t n, Clock::time_point deadline, const char* what);
// Writes all of it; throws ControlFailure naming `what`.
void write_message(int fd, const void* buf, size_t n, Clock::time_point deadline, const char* what);
// Sends the sync string, then reads the peer's and compares (either may
// go first). Throws as read_message, or ControlFailure when it differs.
void synchronize(int fd, std::string_view sync, Clock::time_point deadline);

// The error channel: '?' as urgent data and the text, then a half close;
// then waits (at most `drain`) for the peer to close. Never throws.
void send_error(int fd, std::string_view text, Clock::duration drain = std::chrono::seconds(3));

// Whether urgent data (the peer's '?') is waiting on fd.
bool error_pending(int fd);

// The engine test behind a qperf socket test, with this end's message
// size, time and buffer sizes; udp_header kNone (qperf's payload is
// meaningless). index: tcp_bw, tcp_lat, udp_bw or udp_lat.
spec::TestSpec spec_for(qw::Index index, uint32_t msg_size, double time_s, uint32_t sock_buf);
bool is_socket_test(uint16_t index);
bool is_udp(qw::Index index);
// The default message size qperf's client writes for a test.
uint32_t default_msg_size(qw::Index index);

// times() and /proc/stat's cpu line now: a STAT time array.
std::array<uint64_t, 9> time_array();
// The CPU use two time arrays describe, as the CPU meter gives it.
measure::CpuUsage cpu_from_arrays(const std::array<uint64_t, 9>& start,
                                  const std::array<uint64_t, 9>& end, uint32_t cpus,
                                  uint32_t ticks);

// The STAT counts of what one side did in a test: bytes and whole messages
// sent and received, as qperf counts them.
void fill_counts(qw::Stat& stat, qw::Index index, uint32_t msg_size,
                 const results::FlowResult& total);

// This host as conf describes it.
qw::Conf local_conf();

}  // namespace flowperf::session::qperf
