// Units for flowperf: parsing the sizes, bit rates and durations typed on the command line, and
// scaling rates, byte counts and durations to a readable unit for reports.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace flowperf::core {

// Rules shared by every parse_* function below:
//  * Nothing throws. On failure the function returns std::nullopt and, if `why` is non-null,
//    stores a one-line reason that quotes the offending text, e.g.
//      '12Q' has an unknown unit suffix 'Q' (use ...)
//    On success `*why` is left untouched.
//  * The number is plain decimal: one or more digits, optionally followed by '.' and one or more
//    digits ("1.5" yes; "1.", ".5", "1e3", "0x10", "+1", "-1" no).
//  * No whitespace anywhere: not leading, not trailing, not between number and suffix.
//  * Unit suffixes are case-sensitive and follow the number directly.

// Parses a byte count (socket buffer, message size, transfer size).
//   "" or "B"              bytes
//   "K", "KB", "KiB"       x 1024        "k", "kb"   x 1000
//   "M", "MB", "MiB"       x 1024^2      "m", "mb"   x 1000^2
//   "G", "GB", "GiB"       x 1024^3      "g", "gb"   x 1000^3
// A fraction is allowed only if the result is a whole number of bytes: "1.5K" is 1536, while
// "1.3", "1.5B" and "0.1K" are rejected. Results above UINT64_MAX are rejected.
std::optional<std::uint64_t> parse_size(std::string_view text, std::string* why = nullptr);

// Parses a bit rate in bits per second, as for iperf3 -b. The multiplier is decimal in either
// case: k/K = 10^3, m/M = 10^6, g/G = 10^9, t/T = 10^12. The multiplier (or the bare number) may
// be followed by "bps", "bit" or "bit/s": "100", "100M", "2.5G", "10Mbps", "1.5Gbit/s".
// Fractions are rounded to the nearest whole bit/s, halves rounding up ("0.5" is 1). Zero is
// accepted and means "unlimited". Results above UINT64_MAX are rejected.
std::optional<std::uint64_t> parse_rate_bps(std::string_view text, std::string* why = nullptr);

// Parses a non-negative duration and returns it in seconds. Suffixes: "" or "s" seconds,
// "ms" milliseconds, "us" microseconds, "m" minutes, "h" hours. "1.5h" is 5400.
std::optional<double> parse_seconds(std::string_view text, std::string* why = nullptr);

// Unit for reporting a rate; mirrors netperf's -f option.
enum class RateUnit { Auto, bits, Kbits, Mbits, Gbits, bytes, KBytes, MBytes, GBytes };

// A value expressed in a unit, e.g. {9.41, "Gbit/s"}.
struct Scaled {
  double value;
  std::string unit;
};

// Parses a netperf -f letter: "b" bits, "k" Kbits, "m" Mbits, "g" Gbits, "B" bytes, "K" KBytes,
// "M" MBytes, "G" GBytes, and "a" or "auto" for Auto. Case-sensitive; anything else fails.
std::optional<RateUnit> parse_rate_unit(std::string_view text, std::string* why = nullptr);

// Expresses `bits_per_second` in `unit`. Bit units are decimal (Kbit/s = 10^3 bit/s, ...); byte
// units are binary as in netperf (KB/s = 2^10 bytes/s, MB/s = 2^20, GB/s = 2^30).
// Auto picks the largest of bit/s, Kbit/s, Mbit/s, Gbit/s, Tbit/s that leaves a magnitude of at
// least 1, so the value is in [1, 1000) except below 1 bit/s (bit/s) and from 1000 Tbit/s up.
// Unit strings: "bit/s", "Kbit/s", "Mbit/s", "Gbit/s", "Tbit/s", "B/s", "KB/s", "MB/s", "GB/s".
// Rounding while printing is the caller's concern: 999999 bit/s is 999.999 Kbit/s here, which
// prints as "1000.0" with one decimal.
Scaled scale_rate(double bits_per_second, RateUnit unit);

// Expresses a byte count in "B", "KiB", "MiB", "GiB" or "TiB" (1024-based), the largest unit that
// leaves a magnitude of at least 1, so the value is in [1, 1024) except below 1 B and from
// 1024 TiB up.
Scaled scale_bytes(double bytes);

// Expresses a duration given in nanoseconds in "ns", "us", "ms" or "s", the largest unit that
// leaves a magnitude of at least 1: [1, 1000) for ns, us and ms; anything from 1 s up is in s.
Scaled scale_duration_ns(double ns);

// Formats `v` with `significant` significant digits (a count below 1 means 1) in plain
// positional notation: never exponent notation, integer digits are never dropped, and trailing
// zeros and a trailing '.' are removed. With 3 digits: 57.23 -> "57.2", 0.0571 -> "0.0571",
// 1234.5 -> "1235", 2.0 -> "2", 10 -> "10", 999.96 -> "1000". Rounding is half away from zero on
// the shortest decimal form of `v` (so 1.005 -> "1.01"). Zero is "0"; NaN and infinities are
// "nan", "inf" and "-inf".
std::string format_sig(double v, int significant);

}  // namespace flowperf::core
