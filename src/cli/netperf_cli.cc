// The netperf personality. Not built yet: it says so and exits 2.
#include <cstdio>

#include "cli/personalities.h"

namespace flowperf::cli {

int netperf_main(int, char**) {
  std::fprintf(stderr, "netperf (flowperf): the netperf personality is not built yet; use "
                       "`flowperf -t TEST` meanwhile\n");
  return 2;
}

}  // namespace flowperf::cli
