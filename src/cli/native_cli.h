// The native `flowperf` command line: the client (default), `flowperf
// server`, `flowperf monitor`, and the loopback suite run when no arguments
// are given.
#pragma once

#include <string>
#include <vector>

#include "results/test_result.h"
#include "spec/test_spec.h"

namespace flowperf::cli {

int native_main(int argc, char** argv);

// `flowperf monitor CONFIG [--listen HOST:PORT]` (cli/monitor_cli.cc);
// `listen` empty: the configuration's. Returns when SIGINT or SIGTERM comes.
int run_monitor(const std::string& config_path, const std::string& listen);

// `flowperf plot RESULT.json... -o OUT` (cli/plot_cli.cc): an HTML report
// of the results, or with OUT ending in .svg one chart (`chart`, default
// the first). Input errors exit 2, an unwritable OUT 1.
struct PlotArgs {
  std::vector<std::string> inputs;
  std::string output, chart, title;
};
int run_plot(const PlotArgs& a);

// --html FILE on a test run: the report of this result, written to path.
// Throws a runtime Error when it cannot be written.
void write_html_report(const results::TestResult& r, const std::string& path);

// The client's command line (argv[0] is the program name) read into the
// TestSpec `flowperf` would run, without running it. Throws a usage Error
// (exit 2) naming the option.
spec::TestSpec native_client_spec(int argc, const char* const* argv);

}  // namespace flowperf::cli
