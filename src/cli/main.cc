// flowperf's single binary. Like busybox, it becomes the tool it is called
// as: `flowperf` (native), and later `netperf`, `netserver` and `qperf`.
#include <cstdio>
#include <cstring>
#include <string>

#include "cli/native_cli.h"

namespace {

std::string base_name(const char* path) {
  const char* slash = std::strrchr(path, '/');
  return slash ? slash + 1 : path;
}

}  // namespace

int main(int argc, char** argv) {
  std::string name = argc > 0 ? base_name(argv[0]) : "flowperf";
  // `flowperf netperf ...` is the same as calling the netperf personality.
  if (argc > 1 && (std::strcmp(argv[1], "netperf") == 0 ||
                   std::strcmp(argv[1], "netserver") == 0 || std::strcmp(argv[1], "qperf") == 0)) {
    name = argv[1];
  }
  if (name == "netperf" || name == "netserver" || name == "qperf") {
    std::fprintf(stderr,
                 "flowperf: the %s personality is not built yet; use the native command "
                 "(`flowperf --help`)\n",
                 name.c_str());
    return 2;
  }
  return flowperf::cli::native_main(argc, argv);
}
