// The native `flowperf` command line: the client (default), `flowperf
// server`, and the loopback suite run when no arguments are given.
#pragma once

#include "spec/test_spec.h"

namespace flowperf::cli {

int native_main(int argc, char** argv);

// The client's command line (argv[0] is the program name) read into the
// TestSpec `flowperf` would run, without running it. Throws a usage Error
// (exit 2) naming the option.
spec::TestSpec native_client_spec(int argc, const char* const* argv);

}  // namespace flowperf::cli
