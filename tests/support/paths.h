// Where the things under test are. The paths are read at run time (ctest
// sets FLOWPERF_BIN and FLOWPERF_SOURCE_DIR for every test; the build's own
// paths are the fallback, for a test binary run by hand), so no test file's
// compile line holds an absolute path and a fresh clone elsewhere hits the
// compiler cache.
#pragma once

#include <string>

namespace flowperf::testing {

// The environment variable `name`, or `fallback` when it is unset or empty.
std::string env_or(const char* name, const std::string& fallback);

// The flowperf binary under test.
const std::string& flowperf_bin();
// Its directory, where the personalities' links (netperf, netserver, qperf,
// iperf3) are.
const std::string& bin_dir();
// One of those links: personality("netperf") is bin_dir() + "/netperf".
std::string personality(const std::string& name);
// The source tree (for files the project ships: packaging/, ...).
const std::string& source_dir();

}  // namespace flowperf::testing
