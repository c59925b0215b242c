// The --json document (docs/json.md): one object with schema_version, the
// spec, both endpoints, intervals, per-stream and total results, latency
// percentiles, both sides' raw counters and errors. Always valid JSON: a
// value that is not finite is written as null.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>

#include "measure/confidence.h"
#include "results/test_result.h"

namespace flowperf::report {

inline constexpr int kJsonSchemaVersion = 1;

nlohmann::json result_json(const results::TestResult& r);
// A test repeated with --repeat/--confidence: the last run's document with
// a "confidence" object (the loop's metrics are report::repeat_metrics).
nlohmann::json result_json(const results::TestResult& last, const measure::ConfidenceLoop& loop);
nlohmann::json confidence_json(const measure::ConfidenceLoop& loop);
// As dump(2) writes a document, with one difference: an array of scalars,
// or of arrays of scalars (a histogram's [index, count] buckets), is on one
// line ("[[434, 2], [435, 34]]"), not a line a number. A 2 s TCP_RR's
// --json is ~300 lines instead of ~4,000.
std::string pretty_json(const nlohmann::json& j);
// Writes exactly pretty_json(result_json(r)) (or of result_json(r, *loop)),
// without ever holding the document's per-stream and per-flow arrays as one
// JSON tree (at 10,000 streams that tree was ~100 MB): each element is built,
// written and dropped in turn.
void write_result_json(std::ostream& out, const results::TestResult& r,
                       const measure::ConfidenceLoop* loop = nullptr);
// The same document on one line, as result_json(r).dump() (or with the
// loop's "confidence") would write it: --json-stream's "end" event.
void write_result_json_line(std::ostream& out, const results::TestResult& r,
                            const measure::ConfidenceLoop* loop = nullptr);
nlohmann::json latency_json(const measure::Histogram& h);  // microseconds
// The document's head: schema_version, tool, test, spec and endpoints (the
// --json-stream "start" event's data, once the test has started).
nlohmann::json head_json(const results::TestResult& r);
// One -i interval as the document's "intervals" array holds it (the
// --json-stream "interval" event's data).
nlohmann::json interval_json(const spec::TestSpec& spec, const results::IntervalSample& iv);

}  // namespace flowperf::report
