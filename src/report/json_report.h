// The --json document (docs/json.md): one object with schema_version, the
// spec, both endpoints, intervals, per-stream and total results, latency
// percentiles, both sides' raw counters and errors. Always valid JSON: a
// value that is not finite is written as null.
#pragma once

#include <nlohmann/json.hpp>

#include "measure/confidence.h"
#include "session/controller.h"

namespace flowperf::report {

inline constexpr int kJsonSchemaVersion = 1;

nlohmann::json result_json(const session::TestResult& r);
// A test repeated with --repeat/--confidence: the last run's document with
// a "confidence" object (the loop's metrics are report::repeat_metrics).
nlohmann::json result_json(const session::TestResult& last, const measure::ConfidenceLoop& loop);
nlohmann::json confidence_json(const measure::ConfidenceLoop& loop);
nlohmann::json latency_json(const measure::Histogram& h);  // microseconds

}  // namespace flowperf::report
