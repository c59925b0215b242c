#include "core/wall_clock.h"

#include <cstdio>

namespace flowperf::core {

std::string utc_text(std::time_t t, const char* format) {
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char text[64];
  const size_t n = std::strftime(text, sizeof text, format, &tm);
  return std::string(text, n);
}

std::string utc_iso8601(std::chrono::system_clock::time_point t) {
  using namespace std::chrono;
  const auto ms = floor<milliseconds>(t).time_since_epoch().count();
  const std::time_t secs = static_cast<std::time_t>(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
  char frac[8];
  std::snprintf(frac, sizeof frac, ".%03dZ", static_cast<int>(ms - secs * 1000LL));
  return utc_text(secs, "%Y-%m-%dT%H:%M:%S") + frac;
}

}  // namespace flowperf::core
