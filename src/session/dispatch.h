// Which protocol a new control connection speaks, from its first bytes. The
// server's port is shared by every protocol flowperf serves there; each
// protocol adds one row to the table: how many bytes it needs to be sure,
// the test on them, and the session that serves it. The first row that
// says yes wins, and the last row takes what no other row claimed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "session/session.h"

namespace flowperf::session {

enum class Claim { kYes, kNo, kNeedMore };

struct ProtocolRow {
  const char* name;                                       // for logs, "flowperf"
  Claim (*classify)(std::span<const uint8_t> first);      // nullptr: takes anything
  void (*serve)(int control, const SessionContext& ctx);  // owns the conversation
};

// The rows, in order: flowperf's own framing ('F' 'P'), iperf3's cookie
// (36 characters of a-z2-7 and a NUL), qperf's request (00 00 04 00),
// then netperf's fixed-size requests
// (no magic of their own: what is left).
const std::vector<ProtocolRow>& protocol_table();

// The row for these first bytes; nullptr while a row needs more bytes
// (`first` holds all the client has sent so far). `complete`: the client
// has finished sending (it half-closed), so no more bytes will come and a
// row that needs more does not claim the connection.
const ProtocolRow* classify(std::span<const uint8_t> first, bool complete = false);

// Waits (up to the configured control timeout) for the client's first
// bytes, picks the row and hands the connection to its session. A client
// that says nothing in time, or closes, is dropped.
void dispatch_control_connection(int control, const SessionContext& ctx);

}  // namespace flowperf::session
