// flowperf's single binary. Like busybox, it becomes the tool it is called
// as: `flowperf` (native), `netperf`, `netserver`, `qperf` or `iperf3` (symlinks the
// build makes), or `flowperf netperf ...` and so on.
#include <signal.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "cli/native_cli.h"
#include "cli/personalities.h"
#include "core/error.h"
#include "net/socket.h"

namespace {

std::string base_name(const char* path) {
  const char* slash = std::strrchr(path, '/');
  return slash ? slash + 1 : path;
}

using Entry = int (*)(int, char**);

Entry personality(const std::string& name) {
  if (name == "netperf") return flowperf::cli::netperf_main;
  if (name == "netserver") return flowperf::cli::netserver_main;
  if (name == "qperf") return flowperf::cli::qperf_main;
  if (name == "iperf3") return flowperf::cli::iperf3_main;
  return nullptr;
}

// The front end's entry, by the name the binary was called as (or by
// `flowperf NAME ...`, shifting argv so that argv[0] is the name).
int dispatch(int argc, char** argv, std::string* tool) {
  if (argc < 1) return flowperf::cli::native_main(argc, argv);
  if (Entry e = personality(base_name(argv[0]))) {
    *tool = base_name(argv[0]);
    return e(argc, argv);
  }
  if (argc > 1) {
    if (Entry e = personality(argv[1])) {
      *tool = argv[1];
      return e(argc - 1, argv + 1);  // argv[0] = the name
    }
  }
  return flowperf::cli::native_main(argc, argv);
}

}  // namespace

int main(int argc, char** argv) {
  // Thousands of streams need thousands of sockets on each end: take the
  // hard open-file limit from the start, whichever tool this is.
  flowperf::net::raise_fd_limit();
  // A peer that resets a connection must be an error, not the end of the
  // process: send() passes MSG_NOSIGNAL, but sendfile() (--sendfile) has no
  // such flag and would raise SIGPIPE.
  ::signal(SIGPIPE, SIG_IGN);
  std::string tool = "flowperf";
  // Each front end turns its own errors into its tool's words; anything
  // else that escapes one (a codec's exception, a failed allocation) is
  // still one line and exit 1, never std::terminate's abort and core dump.
  try {
    return dispatch(argc, argv, &tool);
  } catch (const flowperf::Error& e) {
    std::fprintf(stderr, "%s: %s\n", tool.c_str(), e.what());
    return static_cast<int>(e.code());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", tool.c_str(), e.what());
    return static_cast<int>(flowperf::ExitCode::kRuntime);
  }
}
