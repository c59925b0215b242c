// A histogram's JSON form, the one both a control protocol carries and
// --json documents ("histogram_ns" in docs/json.md): the extremes, the sum
// as two 64-bit halves, and [bucket index, count] pairs.
#pragma once

#include <nlohmann/json.hpp>

#include "measure/histogram.h"

namespace flowperf::measure {

nlohmann::json histogram_to_json(const Histogram& h);
// Throws std::invalid_argument, whose message names "histogram", for
// anything that is not a well-formed histogram of this layout.
Histogram histogram_from_json(const nlohmann::json& j);

}  // namespace flowperf::measure
