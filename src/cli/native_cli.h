// The native `flowperf` command line: the client (default), `flowperf
// server`, and the loopback suite run when no arguments are given.
#pragma once

namespace flowperf::cli {

int native_main(int argc, char** argv);

}  // namespace flowperf::cli
