// --csv: a header line, then rows as the test runs and when it ends. Each -i
// interval gives a row per stream and a "sum" row; the end gives a row per
// stream and a "sum" row over the whole test. The columns (kCsvColumns) are
// stable: docs/csv.md says what each holds; a figure that does not apply to
// the test is an empty field.
#pragma once

#include <array>
#include <string>

#include "results/test_result.h"

namespace flowperf::report {

inline constexpr std::array<const char*, 21> kCsvColumns = {"row",
                                                            "stream",
                                                            "start_s",
                                                            "end_s",
                                                            "bytes_sent",
                                                            "bytes_received",
                                                            "bits_per_second",
                                                            "transactions",
                                                            "transactions_per_second",
                                                            "datagrams_sent",
                                                            "datagrams_received",
                                                            "datagrams_lost",
                                                            "jitter_ms",
                                                            "timeouts",
                                                            "retransmits",
                                                            "rtt_us",
                                                            "cwnd",
                                                            "latency_p50_us",
                                                            "latency_p99_us",
                                                            "latency_p99_9_us",
                                                            "error"};

std::string csv_header();  // one line, ending in '\n'
// One interval's rows (row = "interval").
std::string csv_interval(const spec::TestSpec& spec, const results::IntervalSample& iv);
// The end's rows (row = "end"): the streams as the report sums them up.
std::string csv_result(const results::TestResult& r);

}  // namespace flowperf::report
