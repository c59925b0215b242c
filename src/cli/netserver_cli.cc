// The netserver personality. Not built yet: it says so and exits 2.
#include <cstdio>

#include "cli/personalities.h"

namespace flowperf::cli {

int netserver_main(int, char**) {
  std::fprintf(stderr, "netserver (flowperf): the netserver personality is not built yet; use "
                       "`flowperf server` meanwhile\n");
  return 2;
}

}  // namespace flowperf::cli
