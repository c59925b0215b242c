// Which protocol a new control connection speaks, from its first bytes. The
// server's port is shared by every protocol flowperf serves there; each
// protocol adds one row to the table: how many bytes it needs to be sure,
// the test on them, and the session that serves it. The first row that
// says yes wins. A row claims a connection only once its client's whole
// first message is in (as far as kPeekBytes shows it), so a client that
// stops part-way holds no session thread (session/intake.h); bytes no row
// claims are closed.
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
  Claim (*classify)(std::span<const uint8_t> first);      // the test on the first bytes
  void (*serve)(int control, const SessionContext& ctx);  // owns the conversation
};

// The most first bytes a row looks at: netperf's 656-byte request.
inline constexpr size_t kPeekBytes = 656;

// The rows, in order: flowperf's own framing ('F' 'P'), a TLS ClientHello
// (flowperf over TLS: 16 03), iperf3's cookie
// (36 characters of a-z2-7 and a NUL), qperf's request (00 00 04 00),
// then netperf's fixed-size requests (no magic of their own: any 656 bytes
// left).
const std::vector<ProtocolRow>& protocol_table();

// The row for these first bytes; nullptr while a row needs more bytes
// (`first` holds all the client has sent so far, up to kPeekBytes), or, when
// `complete` (the client half-closed: no more bytes will come), when no row
// claims them.
const ProtocolRow* classify(std::span<const uint8_t> first, bool complete = false);

// Serves a connection the table has claimed, on the calling thread.
// Failures are logged; nothing is thrown.
void serve_claimed(const ProtocolRow& row, int control, const SessionContext& ctx);

}  // namespace flowperf::session
