// A test suite whose tests share one `flowperf server` process on
// 127.0.0.1: started before the suite's first test, stopped after its last.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/paths.h"
#include "support/process.h"

namespace flowperf::testing {

class ServedSuite : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    server_ =
        new Process({::flowperf::testing::flowperf_bin(), "server", "-p", "0", "-B", "127.0.0.1"});
    port_ = announced_port(*server_);
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override { ASSERT_FALSE(port_.empty()) << "the server did not start"; }

  // A flowperf client's command line against the server, then `args`.
  static std::vector<std::string> argv(std::vector<std::string> args) {
    std::vector<std::string> a = {::flowperf::testing::flowperf_bin(), "-H", "127.0.0.1", "-p",
                                  port_};
    a.insert(a.end(), args.begin(), args.end());
    return a;
  }

  inline static Process* server_ = nullptr;
  inline static std::string port_;
};

}  // namespace flowperf::testing
