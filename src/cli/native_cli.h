// The native `flowperf` command line: the client (default), `flowperf
// server`, `flowperf monitor`, and the loopback suite run when no arguments
// are given.
#pragma once

#include <string>

#include "spec/test_spec.h"

namespace flowperf::cli {

int native_main(int argc, char** argv);

// `flowperf monitor CONFIG [--listen HOST:PORT]` (cli/monitor_cli.cc);
// `listen` empty: the configuration's. Returns when SIGINT or SIGTERM comes.
int run_monitor(const std::string& config_path, const std::string& listen);

// The client's command line (argv[0] is the program name) read into the
// TestSpec `flowperf` would run, without running it. Throws a usage Error
// (exit 2) naming the option.
spec::TestSpec native_client_spec(int argc, const char* const* argv);

}  // namespace flowperf::cli
