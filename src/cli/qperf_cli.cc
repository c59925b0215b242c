// The qperf personality. Not built yet: it says so and exits 2.
#include <cstdio>

#include "cli/personalities.h"

namespace flowperf::cli {

int qperf_main(int, char**) {
  std::fprintf(stderr, "qperf (flowperf): the qperf personality is not built yet; use "
                       "`flowperf -t TCP_STREAM` or `-t TCP_RR` meanwhile\n");
  return 2;
}

}  // namespace flowperf::cli
