// Wall-clock times written out in UTC, for reports and logs.
#pragma once

#include <chrono>
#include <ctime>
#include <string>

namespace flowperf::core {

// `t` in UTC through strftime(3)'s `format` (at most 63 characters of text).
std::string utc_text(std::time_t t, const char* format);

// ISO 8601 with milliseconds, in UTC: "2026-12-07T01:05:00.123Z".
std::string utc_iso8601(std::chrono::system_clock::time_point t);

}  // namespace flowperf::core
