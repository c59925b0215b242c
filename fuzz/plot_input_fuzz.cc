// libFuzzer target: `flowperf plot` reads result files a user hands it,
// from anywhere. Any JSON must give a Run or a flowperf::Error (never
// another exception, never a crash), and every chart of a Run must render
// to SVG whose points are finite numbers.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "core/error.h"
#include "plot/report.h"

namespace plot = flowperf::plot;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto doc = nlohmann::json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return 0;
  plot::Run run;
  try {
    run = plot::read_run(doc, "fuzz");
  } catch (const flowperf::Error&) {
    return 0;
  }
  for (const auto& c : plot::charts_for({run, run})) {
    const std::string svg = plot::render_svg(c, true);
    if (svg.find("nan") != std::string::npos || svg.find("inf") != std::string::npos) std::abort();
  }
  (void)plot::html_report({run}, "fuzz");
  return 0;
}
