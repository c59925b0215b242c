// FLOWPERF_JSON=FILE: whichever front end runs the client (flowperf,
// netperf, qperf, iperf3), it also writes the native JSON document of each
// test it ran to FILE (docs/json.md's document, as `flowperf --json`
// writes it), and prints what it always prints. `flowperf plot FILE`
// draws it. One test: FILE is that document. Several (qperf's list of
// tests, netperf's confidence runs are one): one line each, as
// --json-stream's "end" events, of which plot draws the last.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "measure/confidence.h"
#include "results/test_result.h"

namespace flowperf::cli {

class JsonTap {
 public:
  // Reads FLOWPERF_JSON; an empty or unset variable asks for nothing.
  JsonTap();
  bool wanted() const { return !path_.empty(); }
  // A test's result (with netperf's confidence loop when it ran one).
  void add(const results::TestResult& r, const measure::ConfidenceLoop* loop = nullptr);
  // Writes FILE (also after an interrupted or failed run: what was
  // measured). Returns false, having said why on stderr, when FILE could
  // not be written.
  bool write();

 private:
  std::string path_;
  std::vector<std::string> lines_;  // each test's document on one line
};

}  // namespace flowperf::cli
