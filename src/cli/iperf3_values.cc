#include "cli/iperf3_values.h"

#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>

namespace flowperf::cli::iperf3_values {

// A whole number in decimal (atoi's digits, but all of the text must be one);
// values beyond long long saturate, so range checks still reject them.
std::optional<long long> parse_int(const std::string& text) {
  if (text.empty()) return std::nullopt;
  const char* s = text.c_str();
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(s, &end, 10);
  if (end == s) return std::nullopt;
  // 3.12 reads these with atoi: "-t 3.0" (as scripts that compute a time
  // write it) is 3. A fraction is dropped; any other trailing text is refused.
  if (*end == '.') {
    ++end;
    while (*end >= '0' && *end <= '9') ++end;
  }
  if (*end != '\0') return std::nullopt;
  return v;  // strtoll saturates on ERANGE
}

// strtol(text, 0): decimal, 0x hex or 0 octal, all of the text.
std::optional<long long> parse_int_base0(const std::string& text) {
  if (text.empty()) return std::nullopt;
  const char* s = text.c_str();
  char* end = nullptr;
  long long v = std::strtoll(s, &end, 0);
  if (end == s || *end != '\0') return std::nullopt;
  return v;
}

// A plain number such as 0.5 (all of the text), as atof reads -i's.
std::optional<double> parse_double(const std::string& text) {
  if (text.empty()) return std::nullopt;
  const char* s = text.c_str();
  char* end = nullptr;
  double v = std::strtod(s, &end);
  if (end == s || *end != '\0' || !std::isfinite(v)) return std::nullopt;
  return v;
}

// A number with an optional K/M/G/T suffix (either case), as 3.12's unit_atof
// (base 1024) and unit_atof_rate (base 1000) read them; fractions allowed.
std::optional<double> parse_suffixed(const std::string& text, double base) {
  if (text.empty()) return std::nullopt;
  const char* s = text.c_str();
  char* end = nullptr;
  double v = std::strtod(s, &end);
  if (end == s || !std::isfinite(v)) return std::nullopt;
  double mult = 1;
  switch (*end) {
    case '\0':
      break;
    case 'k':
    case 'K':
      mult = base;
      break;
    case 'm':
    case 'M':
      mult = base * base;
      break;
    case 'g':
    case 'G':
      mult = base * base * base;
      break;
    case 't':
    case 'T':
      mult = base * base * base * base;
      break;
    default:
      return std::nullopt;
  }
  if (*end != '\0' && end[1] != '\0') return std::nullopt;
  return v * mult;
}

// --dscp's value as a TOS byte: a number 0-63 (shifted left by 2) or a name
// (af11..af43, cs0..cs7, ef, and the old lowdelay/throughput/reliability).
std::optional<int> parse_dscp(const std::string& text) {
  std::string s;
  for (char c : text) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (s.size() == 4 && s[0] == 'a' && s[1] == 'f' && s[2] >= '1' && s[2] <= '4' && s[3] >= '1' &&
      s[3] <= '3')
    return (8 * (s[2] - '0') + 2 * (s[3] - '0')) << 2;
  if (s.size() == 3 && s[0] == 'c' && s[1] == 's' && s[2] >= '0' && s[2] <= '7')
    return (8 * (s[2] - '0')) << 2;
  if (s == "ef") return 46 << 2;
  if (s == "lowdelay") return 0x10;
  if (s == "throughput") return 0x08;
  if (s == "reliability") return 0x04;
  auto v = parse_int_base0(text);
  if (!v || *v < 0 || *v > 63) return std::nullopt;
  return static_cast<int>(*v << 2);
}

}  // namespace flowperf::cli::iperf3_values
