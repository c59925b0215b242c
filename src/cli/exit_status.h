// Each front end's exit code for each kind of failure, as the tool it
// follows exits for it (run side by side with netperf 2.7.1, Debian's
// qperf 0.4.11 and iperf3 3.12 and 3.21; docs/personalities.md has the
// table, and tests/e2e/exit_codes_test.cc compares ours with theirs).
#pragma once

#include <cerrno>

#include "core/error.h"
#include "core/failure.h"
#include "session/control_connect.h"

namespace flowperf::cli {

// iperf3 is not here: its personality exits 1 for every failure, as iperf3
// (3.12 and 3.21) does, in its own words at each site.
enum class Tool { kFlowperf, kNetperf, kNetserver, kQperf };

// The kind of failure an error is, by its type and exit code.
inline Failure classify(const Error& e) {
  if (const auto* c = dynamic_cast<const session::ConnectError*>(&e))
    return c->errno_value() == ECONNRESET ? Failure::kRefused : Failure::kNoServer;
  if (dynamic_cast<const session::ResolveError*>(&e)) return Failure::kNoServer;
  if (dynamic_cast<const session::RefusedError*>(&e)) return Failure::kRefused;
  switch (e.code()) {
    case ExitCode::kUsage:
      return Failure::kUsage;
    case ExitCode::kInterrupted:
      return Failure::kInterrupted;
    default:
      return Failure::kRuntime;
  }
}

inline int exit_status(Tool tool, Failure failure) {
  if (failure == Failure::kInterrupted) return static_cast<int>(ExitCode::kInterrupted);
  switch (tool) {
    case Tool::kFlowperf:
      return static_cast<int>(failure == Failure::kUsage ? ExitCode::kUsage : ExitCode::kRuntime);
    case Tool::kNetperf:
      // netperf exits -1 (255) when it cannot resolve the host or reach
      // netserver, and 1 for everything else, a bad option included.
      return failure == Failure::kNoServer ? 255 : 1;
    case Tool::kNetserver:
    case Tool::kQperf:
      return 1;  // every failure, a bad option included
  }
  return 1;
}

inline int exit_status(Tool tool, const Error& e) { return exit_status(tool, classify(e)); }

}  // namespace flowperf::cli
