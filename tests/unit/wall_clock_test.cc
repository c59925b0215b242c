// Wall-clock times as text (core/wall_clock.h).
#include "core/wall_clock.h"

#include <gtest/gtest.h>

namespace flowperf::core {
namespace {

using std::chrono::milliseconds;
using std::chrono::system_clock;

TEST(WallClock, Iso8601HasMillisecondsAndZ) {
  // 2026-12-07 01:05:00.123 UTC.
  EXPECT_EQ(utc_iso8601(system_clock::time_point(milliseconds(1796605500123))),
            "2026-12-07T01:05:00.123Z");
  EXPECT_EQ(utc_iso8601(system_clock::time_point(milliseconds(1796605500007))),
            "2026-12-07T01:05:00.007Z");
  EXPECT_EQ(utc_iso8601(system_clock::time_point{}), "1970-01-01T00:00:00.000Z");
  // Before 1970 the milliseconds still count up from the whole second below.
  EXPECT_EQ(utc_iso8601(system_clock::time_point(milliseconds(-1))), "1969-12-31T23:59:59.999Z");
}

TEST(WallClock, AnyStrftimeFormatInUtc) {
  EXPECT_EQ(utc_text(1796605500, "%Y-%m-%d %H:%M:%S UTC"), "2026-12-07 01:05:00 UTC");
  EXPECT_EQ(utc_text(1796605500, "%a, %d %b %Y %H:%M:%S GMT"), "Mon, 07 Dec 2026 01:05:00 GMT");
  EXPECT_EQ(utc_text(0, ""), "");
}

}  // namespace
}  // namespace flowperf::core
