// libFuzzer target: the qperf personality's command line. The input, split
// at NUL bytes, is the words after "qperf". parse_args must return or throw
// a usage Error (exit 2) with a message; for what it accepts, the helpers
// the front end calls next (warnings, parameters in use) must not fail.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cli/qperf_args.h"
#include "core/error.h"

namespace qperf = flowperf::cli::qperf;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> words;
  if (size > 0) words.emplace_back();
  for (size_t i = 0; i < size; ++i) {
    if (data[i] == 0)
      words.emplace_back();
    else
      words.back() += static_cast<char>(data[i]);
  }
  qperf::Args args;
  try {
    args = qperf::parse_args(words);
  } catch (const flowperf::Error& e) {
    if (e.code() != flowperf::ExitCode::kUsage || std::string(e.what()).empty()) {
      std::fprintf(stderr, "not a usage error (code %d): '%s'\n", static_cast<int>(e.code()),
                   e.what());
      std::abort();
    }
    return 0;
  }
  for (const auto& run : args.runs) {
    (void)qperf::unused_warnings(run);
    (void)qperf::used_params(run);
  }
  return 0;
}
