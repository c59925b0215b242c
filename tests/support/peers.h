// The real tools that interop tests run against, and the rule for a missing
// one: in CI (CI set, as .ci/run sets it) the test fails, since .ci/run
// installs and builds them all and an absent one is a broken set-up;
// elsewhere it is skipped with a word on how to get it.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace flowperf::testing {

// Where ../shared/peers/build-peers.sh put netperf 2.7.1, netserver, neper
// and iperf3 3.21: $NETPERF_PEER_DIR, else /tmp/peers/bin.
std::string peer_dir();
std::string real_netperf();
std::string real_netserver();
// Debian's iperf3 (3.12): $IPERF3_PEER, else /usr/bin/iperf3.
std::string real_iperf3();
// iperf3 3.21 from build-peers.sh: peer_dir()/iperf3-3.21.
std::string real_iperf3_321();
// Debian's qperf: $QPERF_PEER, else /usr/bin/qperf.
std::string real_qperf();
// Chromium, for rendering the HTML reports ("" when there is none).
std::string chromium();

bool executable(const std::string& path);

// How to get each: the skip message's advice.
inline constexpr const char* kBuildPeers =
    "build it with ../shared/peers/build-peers.sh, or point NETPERF_PEER_DIR at its bin directory";
inline constexpr const char* kSetup = "scripts/setup.sh installs it";

}  // namespace flowperf::testing

// Fails (in CI) or skips the test when `path` is not an executable file.
#define REQUIRE_TOOL(path, how)                                                       \
  do {                                                                                \
    const std::string required_tool_ = (path);                                        \
    if (!::flowperf::testing::executable(required_tool_)) {                           \
      if (std::getenv("CI")) FAIL() << "no " << required_tool_ << " (" << how << ")"; \
      GTEST_SKIP() << "no " << required_tool_ << " (" << how << ")";                  \
    }                                                                                 \
  } while (0)

// The common ones.
#define REQUIRE_PEER()                                                                     \
  do {                                                                                     \
    REQUIRE_TOOL(::flowperf::testing::real_netperf(), ::flowperf::testing::kBuildPeers);   \
    REQUIRE_TOOL(::flowperf::testing::real_netserver(), ::flowperf::testing::kBuildPeers); \
  } while (0)
#define REQUIRE_IPERF3() \
  REQUIRE_TOOL(::flowperf::testing::real_iperf3(), "apt-get install iperf3, or set IPERF3_PEER")
#define REQUIRE_IPERF3_321() \
  REQUIRE_TOOL(::flowperf::testing::real_iperf3_321(), ::flowperf::testing::kBuildPeers)
#define REQUIRE_QPERF() \
  REQUIRE_TOOL(::flowperf::testing::real_qperf(), "apt-get install qperf, or set QPERF_PEER")
