// libFuzzer target: the netperf personality's command line. The input,
// split at NUL bytes, is argv after "netperf". parse_netperf_args and, when
// it accepts, netperf_test_kind and netperf_spec must return or throw a
// usage Error (exit 2) with a message; anything else is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cli/netperf_args.h"
#include "core/error.h"

namespace {

void check_usage(const flowperf::Error& e) {
  if (e.code() != flowperf::ExitCode::kUsage || std::string(e.what()).empty()) {
    std::fprintf(stderr, "not a usage error (code %d): '%s'\n", static_cast<int>(e.code()),
                 e.what());
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> words = {"netperf"};
  words.emplace_back();
  for (size_t i = 0; i < size; ++i) {
    if (data[i] == 0)
      words.emplace_back();
    else
      words.back() += static_cast<char>(data[i]);
  }
  if (size == 0) words.pop_back();
  std::vector<const char*> argv;
  for (const auto& w : words) argv.push_back(w.c_str());
  argv.push_back(nullptr);

  flowperf::cli::NetperfArgs args;
  try {
    args = flowperf::cli::parse_netperf_args(static_cast<int>(words.size()), argv.data());
  } catch (const flowperf::Error& e) {
    check_usage(e);
    return 0;
  }
  if (args.action != flowperf::cli::NetperfAction::kRun) return 0;
  try {
    (void)flowperf::cli::netperf_test_kind(args);
    (void)flowperf::cli::netperf_is_rr(args);
    flowperf::cli::NetperfSystemDefaults sys;
    (void)flowperf::cli::netperf_spec(args, sys);
  } catch (const flowperf::Error& e) {
    check_usage(e);
  }
  return 0;
}
