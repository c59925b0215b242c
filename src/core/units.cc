// Implementation of flowperf's unit parsing and scaling (see units.h). Sizes and rates are parsed
// with exact integer arithmetic so that large values and fractions never suffer rounding error.
#include "core/units.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <span>
#include <system_error>
#include <utility>

namespace flowperf::core {
namespace {

constexpr std::uint64_t kU64Max = std::numeric_limits<std::uint64_t>::max();

// Stores `message` in `*why` when the caller asked for a reason; always returns "no value".
std::nullopt_t fail(std::string* why, std::string message) {
  if (why != nullptr) *why = std::move(message);
  return std::nullopt;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

// A number split into its parts: "12.50Mbps" -> {"12", "50", "Mbps"}.
struct Lexed {
  std::string_view int_digits;   // never empty
  std::string_view frac_digits;  // empty when there is no decimal point
  std::string_view suffix;       // whatever follows the number
};

// Splits `text` into number and suffix, applying the rules shared by all parsers. `what` names
// the kind of quantity ("size", "rate", "duration") for messages.
std::optional<Lexed> lex(std::string_view text, std::string_view what, std::string* why) {
  if (text.empty()) return fail(why, fmt::format("an empty string is not a valid {}", what));
  for (char c : text) {
    if (is_space(c)) return fail(why, fmt::format("'{}' contains whitespace", text));
  }
  if (text.front() == '-') {
    return fail(why, fmt::format("'{}' is negative (a {} cannot be negative)", text, what));
  }
  if (text.front() == '.') {
    return fail(why, fmt::format("'{}' needs a digit before the decimal point", text));
  }
  if (!is_digit(text.front())) {
    return fail(why, fmt::format("'{}' does not start with a number", text));
  }
  std::size_t pos = 0;
  while (pos < text.size() && is_digit(text[pos])) ++pos;
  Lexed out;
  out.int_digits = text.substr(0, pos);
  if (pos < text.size() && text[pos] == '.') {
    const std::size_t frac_start = ++pos;
    while (pos < text.size() && is_digit(text[pos])) ++pos;
    if (pos == frac_start) {
      return fail(why, fmt::format("'{}' needs a digit after the decimal point", text));
    }
    out.frac_digits = text.substr(frac_start, pos - frac_start);
  }
  out.suffix = text.substr(pos);
  if (!out.suffix.empty() && out.suffix.front() == '.') {
    return fail(why, fmt::format("'{}' is not a valid number", text));
  }
  return out;
}

// Parses a run of decimal digits; nullopt if the value exceeds UINT64_MAX.
std::optional<std::uint64_t> digits_to_u64(std::string_view digits) {
  std::uint64_t value = 0;
  for (char c : digits) {
    const auto d = static_cast<std::uint64_t>(c - '0');
    if (value > (kU64Max - d) / 10) return std::nullopt;
    value = value * 10 + d;
  }
  return value;
}

// Returns a * mult + add, or nullopt on overflow.
std::optional<std::uint64_t> mul_add(std::uint64_t a, std::uint64_t mult, std::uint64_t add) {
  if (mult != 0 && a > kU64Max / mult) return std::nullopt;
  const std::uint64_t product = a * mult;
  if (product > kU64Max - add) return std::nullopt;
  return product + add;
}

struct SizeSuffix {
  std::string_view name;
  std::uint64_t multiplier;
};

constexpr std::uint64_t kKi = 1024;
constexpr std::array<SizeSuffix, 17> kSizeSuffixes{{
    {"", 1},
    {"B", 1},
    {"K", kKi},
    {"KB", kKi},
    {"KiB", kKi},
    {"M", kKi* kKi},
    {"MB", kKi* kKi},
    {"MiB", kKi* kKi},
    {"G", kKi* kKi* kKi},
    {"GB", kKi* kKi* kKi},
    {"GiB", kKi* kKi* kKi},
    {"k", 1000},
    {"kb", 1000},
    {"m", 1000 * 1000},
    {"mb", 1000 * 1000},
    {"g", 1000 * 1000 * 1000},
    {"gb", 1000 * 1000 * 1000},
}};

// Exact value of 0.<frac_digits> * multiplier, or nullopt if that is not a whole number.
// Evaluated Horner-style from the last digit: t = d * multiplier + t / 10. Once some t is not a
// multiple of 10 the total can no longer be whole, and t stays below 10 * multiplier throughout.
std::optional<std::uint64_t> exact_fraction(std::string_view frac_digits,
                                            std::uint64_t multiplier) {
  std::uint64_t t = 0;
  for (auto it = frac_digits.rbegin(); it != frac_digits.rend(); ++it) {
    if (t % 10 != 0) return std::nullopt;
    t = static_cast<std::uint64_t>(*it - '0') * multiplier + t / 10;
  }
  if (t % 10 != 0) return std::nullopt;
  return t / 10;
}

// Rounded value of 0.<frac_digits> * 10^exponent, halves rounding up.
std::uint64_t rounded_fraction(std::string_view frac_digits, int exponent) {
  std::uint64_t value = 0;
  for (int i = 0; i < exponent; ++i) {
    const std::size_t idx = static_cast<std::size_t>(i);
    const char c = idx < frac_digits.size() ? frac_digits[idx] : '0';
    value = value * 10 + static_cast<std::uint64_t>(c - '0');
  }
  const std::size_t next = static_cast<std::size_t>(exponent);
  if (next < frac_digits.size() && frac_digits[next] >= '5') ++value;
  return value;
}

// Shared by the three Scaled-returning functions: `steps` is ordered by increasing factor and
// starts with factor 1. Picks the largest step that leaves a magnitude of at least 1.
struct Step {
  double factor;
  std::string_view unit;
};

Scaled pick_unit(double v, std::span<const Step> steps) {
  for (auto it = steps.rbegin(); it != steps.rend(); ++it) {
    const double scaled = v / it->factor;
    if (std::fabs(scaled) >= 1.0) return {scaled, std::string(it->unit)};
  }
  return {v, std::string(steps.front().unit)};
}

}  // namespace

std::optional<std::uint64_t> parse_size(std::string_view text, std::string* why) {
  const std::optional<Lexed> lexed = lex(text, "size", why);
  if (!lexed) return std::nullopt;

  const SizeSuffix* suffix = nullptr;
  for (const SizeSuffix& s : kSizeSuffixes) {
    if (s.name == lexed->suffix) suffix = &s;
  }
  if (suffix == nullptr) {
    return fail(why,
                fmt::format("'{}' has an unknown unit suffix '{}' (use K, KB or KiB, M, MB or MiB, "
                            "G, GB or GiB for powers of 1024; k, kb, m, mb, g or gb for "
                            "powers of 1000; B for bytes)",
                            text, lexed->suffix));
  }

  const std::optional<std::uint64_t> frac = exact_fraction(lexed->frac_digits, suffix->multiplier);
  if (!frac) return fail(why, fmt::format("'{}' is not a whole number of bytes", text));

  const std::optional<std::uint64_t> whole = digits_to_u64(lexed->int_digits);
  std::optional<std::uint64_t> total;
  if (whole) total = mul_add(*whole, suffix->multiplier, *frac);
  if (!total) {
    return fail(why, fmt::format("'{}' is too large (the maximum is {} bytes)", text, kU64Max));
  }
  return total;
}

std::optional<std::uint64_t> parse_rate_bps(std::string_view text, std::string* why) {
  const std::optional<Lexed> lexed = lex(text, "rate", why);
  if (!lexed) return std::nullopt;

  std::string_view rest = lexed->suffix;
  int exponent = 0;
  if (!rest.empty()) {
    switch (rest.front()) {
      case 'k':
      case 'K':
        exponent = 3;
        break;
      case 'm':
      case 'M':
        exponent = 6;
        break;
      case 'g':
      case 'G':
        exponent = 9;
        break;
      case 't':
      case 'T':
        exponent = 12;
        break;
      default:
        break;
    }
    if (exponent != 0) rest.remove_prefix(1);
  }
  if (!(rest.empty() || rest == "bps" || rest == "bit" || rest == "bit/s")) {
    return fail(why, fmt::format("'{}' has an unknown unit suffix '{}' (use k, M, G or T, "
                                 "optionally followed by bps, bit or bit/s)",
                                 text, lexed->suffix));
  }

  std::uint64_t multiplier = 1;
  for (int i = 0; i < exponent; ++i) multiplier *= 10;
  const std::uint64_t frac = rounded_fraction(lexed->frac_digits, exponent);
  const std::optional<std::uint64_t> whole = digits_to_u64(lexed->int_digits);
  std::optional<std::uint64_t> total;
  if (whole) total = mul_add(*whole, multiplier, frac);
  if (!total) {
    return fail(why, fmt::format("'{}' is too large (the maximum is {} bit/s)", text, kU64Max));
  }
  return total;
}

std::optional<double> parse_seconds(std::string_view text, std::string* why) {
  const std::optional<Lexed> lexed = lex(text, "duration", why);
  if (!lexed) return std::nullopt;

  const std::string_view suffix = lexed->suffix;
  // Dividing for ms and us keeps e.g. "1500ms" exactly 1.5.
  double multiplier = 1.0;
  double divisor = 1.0;
  if (suffix == "ms") {
    divisor = 1e3;
  } else if (suffix == "us") {
    divisor = 1e6;
  } else if (suffix == "m") {
    multiplier = 60.0;
  } else if (suffix == "h") {
    multiplier = 3600.0;
  } else if (!suffix.empty() && suffix != "s") {
    return fail(why, fmt::format("'{}' has an unknown unit suffix '{}' (use s, ms, us, m or h)",
                                 text, suffix));
  }

  const std::string_view number = text.substr(0, text.size() - suffix.size());
  double value = 0.0;
  const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value,
                                         std::chars_format::fixed);
  if (ec == std::errc::result_out_of_range) {
    // from_chars reports both overflow and underflow this way; only a zero integer part can
    // underflow.
    if (lexed->int_digits.find_first_not_of('0') == std::string_view::npos) {
      return fail(why, fmt::format("'{}' is too small to represent", text));
    }
    return fail(why, fmt::format("'{}' is too large", text));
  }
  if (ec != std::errc() || end != number.data() + number.size()) {
    return fail(why, fmt::format("'{}' is not a valid number", text));  // not reachable after lex
  }
  value = value * multiplier / divisor;
  if (!std::isfinite(value)) return fail(why, fmt::format("'{}' is too large", text));
  return value;
}

std::optional<RateUnit> parse_rate_unit(std::string_view text, std::string* why) {
  if (text == "a" || text == "auto") return RateUnit::Auto;
  if (text.size() == 1) {
    switch (text.front()) {
      case 'b':
        return RateUnit::bits;
      case 'k':
        return RateUnit::Kbits;
      case 'm':
        return RateUnit::Mbits;
      case 'g':
        return RateUnit::Gbits;
      case 'B':
        return RateUnit::bytes;
      case 'K':
        return RateUnit::KBytes;
      case 'M':
        return RateUnit::MBytes;
      case 'G':
        return RateUnit::GBytes;
      default:
        break;
    }
  }
  return fail(why, fmt::format("'{}' is not a rate unit (use b, k, m or g for bits, B, K, M or G "
                               "for bytes, or a for automatic)",
                               text));
}

Scaled scale_rate(double bits_per_second, RateUnit unit) {
  static constexpr std::array<Step, 5> kAuto{{
      {1.0, "bit/s"},
      {1e3, "Kbit/s"},
      {1e6, "Mbit/s"},
      {1e9, "Gbit/s"},
      {1e12, "Tbit/s"},
  }};
  const double bytes = bits_per_second / 8.0;
  switch (unit) {
    case RateUnit::Auto:
      return pick_unit(bits_per_second, kAuto);
    case RateUnit::bits:
      return {bits_per_second, "bit/s"};
    case RateUnit::Kbits:
      return {bits_per_second / 1e3, "Kbit/s"};
    case RateUnit::Mbits:
      return {bits_per_second / 1e6, "Mbit/s"};
    case RateUnit::Gbits:
      return {bits_per_second / 1e9, "Gbit/s"};
    case RateUnit::bytes:
      return {bytes, "B/s"};
    case RateUnit::KBytes:
      return {bytes / 1024.0, "KB/s"};
    case RateUnit::MBytes:
      return {bytes / (1024.0 * 1024.0), "MB/s"};
    case RateUnit::GBytes:
      return {bytes / (1024.0 * 1024.0 * 1024.0), "GB/s"};
  }
  return {bits_per_second, "bit/s"};  // only for an out-of-range enum value
}

Scaled scale_bytes(double bytes) {
  static constexpr double kK = 1024.0;
  static constexpr std::array<Step, 5> kSteps{{
      {1.0, "B"},
      {kK, "KiB"},
      {kK * kK, "MiB"},
      {kK * kK * kK, "GiB"},
      {kK * kK * kK * kK, "TiB"},
  }};
  return pick_unit(bytes, kSteps);
}

Scaled scale_duration_ns(double ns) {
  static constexpr std::array<Step, 4> kSteps{{
      {1.0, "ns"},
      {1e3, "us"},
      {1e6, "ms"},
      {1e9, "s"},
  }};
  return pick_unit(ns, kSteps);
}

std::string format_sig(double v, int significant) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  if (v == 0.0) return "0";
  const std::size_t sig = significant < 1 ? 1 : static_cast<std::size_t>(significant);

  // Shortest round-trip form, e.g. "1.2345e+03" or "-5e-324".
  std::array<char, 64> buf{};
  const auto res = std::to_chars(buf.data(), buf.data() + buf.size(), std::fabs(v),
                                 std::chars_format::scientific);
  const std::string_view sci(buf.data(), static_cast<std::size_t>(res.ptr - buf.data()));
  const std::size_t e_pos = sci.find('e');

  // Mantissa digits without the point: value = 0.<digits> * 10^(exp10 + 1).
  std::string digits;
  for (char c : sci.substr(0, e_pos)) {
    if (c != '.') digits.push_back(c);
  }
  std::string_view exp_text = sci.substr(e_pos + 1);
  if (!exp_text.empty() && exp_text.front() == '+') exp_text.remove_prefix(1);
  int exp10 = 0;
  std::from_chars(exp_text.data(), exp_text.data() + exp_text.size(), exp10);

  // Keep at least `sig` digits, and every integer digit.
  const std::size_t int_count = exp10 >= 0 ? static_cast<std::size_t>(exp10) + 1 : 0;
  const std::size_t keep = std::max(sig, int_count);
  if (keep < digits.size()) {
    const bool round_up = digits[keep] >= '5';
    digits.resize(keep);
    if (round_up) {
      std::size_t i = keep;
      while (i > 0 && digits[i - 1] == '9') digits[--i] = '0';
      if (i > 0) {
        ++digits[i - 1];
      } else {
        digits.insert(digits.begin(), '1');  // 999.96 -> 1000: one more integer digit
        digits.pop_back();
        ++exp10;
      }
    }
  }
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();

  std::string out = v < 0 ? "-" : "";
  if (exp10 >= 0) {
    const std::size_t n_int = static_cast<std::size_t>(exp10) + 1;
    if (digits.size() <= n_int) {
      out += digits;
      out.append(n_int - digits.size(), '0');
    } else {
      out.append(digits, 0, n_int);
      out += '.';
      out.append(digits, n_int, std::string::npos);
    }
  } else {
    out += "0.";
    out.append(static_cast<std::size_t>(-exp10 - 1), '0');
    out += digits;
  }
  return out;
}

}  // namespace flowperf::core
