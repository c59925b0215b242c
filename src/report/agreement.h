// Whether the client's and the server's counts of one test agree: a verdict
// for every test kind, "yes (...)" or "NO: ...", with the reason either way.
// "Agree" does not mean "equal": a count may differ where the engine's
// rules say it must (UDP datagrams lost, UDP_RR answers to requests the
// client had given up on, the one transaction in flight when a stream was
// cut short); the rules for each test are in agreement.cc.
#pragma once

#include <string>

#include "report/summary.h"

namespace flowperf::report {

struct Agreement {
  bool agree = false;
  std::string text;  // "yes (...)" when agree, "NO: ..." otherwise; one line
};

// The rules are those of the native controller (session::run_test): one
// request at a time per stream (no first burst), and a stopped test's flows
// finishing what they have in flight unless they are aborted.
Agreement agreement(const results::TestResult& r);

}  // namespace flowperf::report
