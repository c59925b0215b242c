// Unit tests for core/units: every accepted and rejected input form of the parsers, overflow
// boundaries, the wording of failure reasons, unit choice at each scaling boundary, and
// format_sig.
#include "core/units.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace flowperf::core {
namespace {

constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();

struct Accept {
  std::string text;
  std::uint64_t want;
};

struct Reject {
  std::string text;
  std::string why_contains;  // substring the failure reason must contain
};

// ---------------------------------------------------------------------------------------------
// parse_size

TEST(ParseSize, AcceptsPlainBytesAndEverySuffix) {
  const std::vector<Accept> cases = {
      {"0", 0},
      {"1", 1},
      {"007", 7},
      {"65536", 65536},
      {"0B", 0},
      {"64B", 64},
      {"4K", 4096},
      {"4KB", 4096},
      {"4KiB", 4096},
      {"4M", 4194304},
      {"4MB", 4194304},
      {"4MiB", 4194304},
      {"4G", 4294967296},
      {"4GB", 4294967296},
      {"4GiB", 4294967296},
      {"4k", 4000},
      {"4kb", 4000},
      {"4m", 4000000},
      {"4mb", 4000000},
      {"4g", 4000000000},
      {"4gb", 4000000000},
      {"0K", 0},
      {"0g", 0},
  };
  for (const Accept& c : cases) {
    SCOPED_TRACE(c.text);
    std::string why;
    const std::optional<std::uint64_t> got = parse_size(c.text, &why);
    ASSERT_TRUE(got.has_value()) << why;
    EXPECT_EQ(*got, c.want);
  }
}

TEST(ParseSize, AcceptsFractionsThatGiveWholeBytes) {
  const std::vector<Accept> cases = {
      {"1.0", 1},          {"12.000", 12},
      {"1.5K", 1536},      {"1.5KiB", 1536},
      {"0.5K", 512},       {"0.0009765625K", 1},
      {"1.5M", 1572864},   {"2.25G", 2415919104},
      {"1.5k", 1500},      {"1.5kb", 1500},
      {"0.001k", 1},       {"2.5m", 2500000},
      {"0.000000001g", 1}, {"1.000000000000000000000000000000000000000000K", 1024},
  };
  for (const Accept& c : cases) {
    SCOPED_TRACE(c.text);
    std::string why;
    const std::optional<std::uint64_t> got = parse_size(c.text, &why);
    ASSERT_TRUE(got.has_value()) << why;
    EXPECT_EQ(*got, c.want);
  }
}

TEST(ParseSize, AcceptsValuesUpToUint64Max) {
  const std::vector<Accept> cases = {
      {"18446744073709551615", kMax},
      {"18446744073709551615B", kMax},
      {"00018446744073709551615", kMax},
      {"17179869183G", kMax - 1073741823},  // 2^64 - 2^30
      {"18014398509481983K", kMax - 1023},  // 2^64 - 2^10
      {"18014398509481983.5K", kMax - 511},
      {"18014398509481983.9990234375K", kMax},  // .9990234375 = 1023/1024
      {"18446744073709551.615k", kMax},
      {"18446744073.709551615g", kMax},
  };
  for (const Accept& c : cases) {
    SCOPED_TRACE(c.text);
    std::string why;
    const std::optional<std::uint64_t> got = parse_size(c.text, &why);
    ASSERT_TRUE(got.has_value()) << why;
    EXPECT_EQ(*got, c.want);
  }
}

TEST(ParseSize, RejectsMalformedInputWithReason) {
  const std::vector<Reject> cases = {
      {"", "empty"},
      {" 5K", "' 5K' contains whitespace"},
      {"5K ", "'5K ' contains whitespace"},
      {"5 K", "'5 K' contains whitespace"},
      {"5\tK", "contains whitespace"},
      {"-5", "'-5' is negative"},
      {"-0", "'-0' is negative"},
      {"-1K", "'-1K' is negative"},
      {"+5", "'+5' does not start with a number"},
      {"abc", "'abc' does not start with a number"},
      {"K", "'K' does not start with a number"},
      {".5K", "'.5K' needs a digit before the decimal point"},
      {"1.", "'1.' needs a digit after the decimal point"},
      {"1.K", "'1.K' needs a digit after the decimal point"},
      {"1..5", "'1..5' needs a digit after the decimal point"},
      {"1.2.3", "'1.2.3' is not a valid number"},
      {"12Q", "'12Q' has an unknown unit suffix 'Q'"},
      {"4T", "'4T' has an unknown unit suffix 'T'"},
      {"4kB", "unknown unit suffix 'kB'"},
      {"4Kib", "unknown unit suffix 'Kib'"},
      {"4KIB", "unknown unit suffix 'KIB'"},
      {"4b", "unknown unit suffix 'b'"},
      {"5KK", "unknown unit suffix 'KK'"},
      {"1e3", "'1e3' has an unknown unit suffix 'e3'"},
      {"0x10", "unknown unit suffix 'x10'"},
      {"1,000", "unknown unit suffix ',000'"},
  };
  for (const Reject& c : cases) {
    SCOPED_TRACE(c.text);
    std::string why;
    EXPECT_FALSE(parse_size(c.text, &why).has_value());
    EXPECT_NE(why.find(c.why_contains), std::string::npos) << "why: " << why;
    EXPECT_EQ(why.find('\n'), std::string::npos) << "why should be one line: " << why;
  }
}

TEST(ParseSize, RejectsFractionalBytes) {
  for (const std::string text :
       {"1.3", "1.5B", "0.1K", "1.1K", "0.00048828125K", "0.0001k", "0.0000000001g"}) {
    SCOPED_TRACE(text);
    std::string why;
    EXPECT_FALSE(parse_size(text, &why).has_value());
    EXPECT_EQ(why, "'" + text + "' is not a whole number of bytes");
  }
}

TEST(ParseSize, RejectsOverflow) {
  for (const std::string text :
       {"18446744073709551616", "99999999999999999999999", "18446744073709551616B", "17179869184G",
        "18014398509481984K", "18446744073709551.616k", "18446744073.709551616g", "18446744074g"}) {
    SCOPED_TRACE(text);
    std::string why;
    EXPECT_FALSE(parse_size(text, &why).has_value());
    EXPECT_NE(why.find("'" + text + "' is too large"), std::string::npos) << "why: " << why;
  }
}

TEST(ParseSize, UnknownSuffixMessageListsTheAlternatives) {
  std::string why;
  EXPECT_FALSE(parse_size("12Q", &why).has_value());
  EXPECT_EQ(why.rfind("'12Q' has an unknown unit suffix 'Q' (use K", 0), 0u) << why;
  EXPECT_NE(why.find("KiB"), std::string::npos);
  EXPECT_NE(why.find("powers of 1000"), std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// parse_rate_bps

TEST(ParseRate, AcceptsEveryMultiplierAndUnitSpelling) {
  const std::vector<Accept> cases = {
      {"0", 0},
      {"0.0", 0},
      {"0M", 0},
      {"100", 100},
      {"1k", 1000},
      {"1K", 1000},
      {"10m", 10000000},
      {"10M", 10000000},
      {"2.5G", 2500000000},
      {"2.5g", 2500000000},
      {"1t", 1000000000000},
      {"1T", 1000000000000},
      {"1.5T", 1500000000000},
      {"100bps", 100},
      {"100bit", 100},
      {"100bit/s", 100},
      {"10kbps", 10000},
      {"10Mbps", 10000000},
      {"10Mbit", 10000000},
      {"10Mbit/s", 10000000},
      {"1.5Gbit/s", 1500000000},
      {"2Tbps", 2000000000000},
  };
  for (const Accept& c : cases) {
    SCOPED_TRACE(c.text);
    std::string why;
    const std::optional<std::uint64_t> got = parse_rate_bps(c.text, &why);
    ASSERT_TRUE(got.has_value()) << why;
    EXPECT_EQ(*got, c.want);
  }
}

TEST(ParseRate, RoundsFractionsToNearestBitHalvesUp) {
  const std::vector<Accept> cases = {
      {"0.4", 0},
      {"0.5", 1},
      {"1.4999", 1},
      {"2.5", 3},
      {"0.0004k", 0},
      {"0.0005k", 1},
      {"1.23456789k", 1235},
      {"1.00000049M", 1000000},
      {"1.0000005M", 1000001},
      {"0.000000000001T", 1},
      {"0.0000000000005T", 1},
      {"0.0000000000004999T", 0},
  };
  for (const Accept& c : cases) {
    SCOPED_TRACE(c.text);
    std::string why;
    const std::optional<std::uint64_t> got = parse_rate_bps(c.text, &why);
    ASSERT_TRUE(got.has_value()) << why;
    EXPECT_EQ(*got, c.want);
  }
}

TEST(ParseRate, AcceptsValuesUpToUint64Max) {
  const std::vector<Accept> cases = {
      {"18446744073709551615", kMax},   {"18446744073709551615bps", kMax},
      {"18446744073709551615.4", kMax}, {"18446744073709551614.5", kMax},
      {"18446744073709551.615k", kMax}, {"18446744073709551.6149k", kMax},
      {"18446744.073709551615T", kMax}, {"18446744.0737095516154T", kMax},
  };
  for (const Accept& c : cases) {
    SCOPED_TRACE(c.text);
    std::string why;
    const std::optional<std::uint64_t> got = parse_rate_bps(c.text, &why);
    ASSERT_TRUE(got.has_value()) << why;
    EXPECT_EQ(*got, c.want);
  }
}

TEST(ParseRate, RejectsOverflowIncludingByRounding) {
  for (const std::string text :
       {"18446744073709551616", "18446744073709551615.5", "18446744073709551.6155k",
        "18446744.073709551616T", "18446745T", "99999999999999999999999bps"}) {
    SCOPED_TRACE(text);
    std::string why;
    EXPECT_FALSE(parse_rate_bps(text, &why).has_value());
    EXPECT_NE(why.find("'" + text + "' is too large"), std::string::npos) << "why: " << why;
  }
}

TEST(ParseRate, RejectsMalformedInputWithReason) {
  const std::vector<Reject> cases = {
      {"", "empty"},
      {" 1M", "' 1M' contains whitespace"},
      {"1M ", "'1M ' contains whitespace"},
      {"1 M", "'1 M' contains whitespace"},
      {"-1", "'-1' is negative"},
      {"-0", "'-0' is negative"},
      {"-2.5G", "'-2.5G' is negative"},
      {"+1", "'+1' does not start with a number"},
      {"abc", "'abc' does not start with a number"},
      {"M", "'M' does not start with a number"},
      {"bps", "'bps' does not start with a number"},
      {".5G", "'.5G' needs a digit before the decimal point"},
      {"1.", "'1.' needs a digit after the decimal point"},
      {"1.G", "'1.G' needs a digit after the decimal point"},
      {"1.2.3", "'1.2.3' is not a valid number"},
      {"10X", "'10X' has an unknown unit suffix 'X'"},
      {"10P", "unknown unit suffix 'P'"},
      {"10MM", "unknown unit suffix 'MM'"},
      {"10Mb", "unknown unit suffix 'Mb'"},
      {"10MBps", "unknown unit suffix 'MBps'"},
      {"10Mbps/s", "unknown unit suffix 'Mbps/s'"},
      {"10bits", "unknown unit suffix 'bits'"},
      {"10Kbit/", "unknown unit suffix 'Kbit/'"},
      {"10KiB", "unknown unit suffix 'KiB'"},
      {"1e6", "'1e6' has an unknown unit suffix 'e6'"},
  };
  for (const Reject& c : cases) {
    SCOPED_TRACE(c.text);
    std::string why;
    EXPECT_FALSE(parse_rate_bps(c.text, &why).has_value());
    EXPECT_NE(why.find(c.why_contains), std::string::npos) << "why: " << why;
  }
}

// ---------------------------------------------------------------------------------------------
// parse_seconds

TEST(ParseSeconds, AcceptsEverySuffix) {
  const struct {
    std::string text;
    double want;
  } cases[] = {
      {"0", 0.0},      {"007", 7.0},    {"10", 10.0},     {"1.5", 1.5},    {"10s", 10.0},
      {"0.25s", 0.25}, {"250ms", 0.25}, {"1500ms", 1.5},  {"100us", 1e-4}, {"2m", 120.0},
      {"0.5m", 30.0},  {"1h", 3600.0},  {"1.5h", 5400.0}, {"0.0s", 0.0},   {"86400", 86400.0},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    std::string why;
    const std::optional<double> got = parse_seconds(c.text, &why);
    ASSERT_TRUE(got.has_value()) << why;
    EXPECT_DOUBLE_EQ(*got, c.want);
  }
}

TEST(ParseSeconds, RejectsMalformedInputWithReason) {
  const std::vector<Reject> cases = {
      {"", "empty"},
      {" 1", "' 1' contains whitespace"},
      {"1 ", "'1 ' contains whitespace"},
      {"1 s", "'1 s' contains whitespace"},
      {"-1", "'-1' is negative"},
      {"-1s", "'-1s' is negative"},
      {"s", "'s' does not start with a number"},
      {"+1", "'+1' does not start with a number"},
      {".5", "'.5' needs a digit before the decimal point"},
      {"1.", "'1.' needs a digit after the decimal point"},
      {"1.s", "'1.s' needs a digit after the decimal point"},
      {"1x", "'1x' has an unknown unit suffix 'x'"},
      {"1min", "unknown unit suffix 'min'"},
      {"1sec", "unknown unit suffix 'sec'"},
      {"1ns", "unknown unit suffix 'ns'"},
      {"1S", "unknown unit suffix 'S'"},
      {"1H", "unknown unit suffix 'H'"},
      {"1e3", "unknown unit suffix 'e3'"},
      {"1:30", "unknown unit suffix ':30'"},
  };
  for (const Reject& c : cases) {
    SCOPED_TRACE(c.text);
    std::string why;
    EXPECT_FALSE(parse_seconds(c.text, &why).has_value());
    EXPECT_NE(why.find(c.why_contains), std::string::npos) << "why: " << why;
  }
}

TEST(ParseSeconds, RejectsValuesOutsideDoubleRange) {
  const std::string huge(400, '9');
  const std::string e308 = "1" + std::string(308, '0');  // 1e308 s is finite, 1e308 h is not
  const std::string tiny = "0." + std::string(400, '0') + "1";

  std::string why;
  EXPECT_FALSE(parse_seconds(huge, &why).has_value());
  EXPECT_NE(why.find("' is too large"), std::string::npos) << why;

  ASSERT_TRUE(parse_seconds(e308).has_value());
  EXPECT_DOUBLE_EQ(*parse_seconds(e308), 1e308);
  why.clear();
  EXPECT_FALSE(parse_seconds(e308 + "h", &why).has_value());
  EXPECT_EQ(why, "'" + e308 + "h' is too large");

  why.clear();
  EXPECT_FALSE(parse_seconds(tiny, &why).has_value());
  EXPECT_EQ(why, "'" + tiny + "' is too small to represent");
}

// ---------------------------------------------------------------------------------------------
// Behaviour common to the parsers

TEST(ParseCommon, WhyIsUntouchedOnSuccess) {
  std::string why = "untouched";
  EXPECT_TRUE(parse_size("1K", &why).has_value());
  EXPECT_TRUE(parse_rate_bps("1M", &why).has_value());
  EXPECT_TRUE(parse_seconds("1s", &why).has_value());
  EXPECT_TRUE(parse_rate_unit("k", &why).has_value());
  EXPECT_EQ(why, "untouched");
}

TEST(ParseCommon, NullWhyIsAllowedOnFailure) {
  EXPECT_FALSE(parse_size("12Q").has_value());
  EXPECT_FALSE(parse_size("18446744073709551616").has_value());
  EXPECT_FALSE(parse_size("1.3").has_value());
  EXPECT_FALSE(parse_rate_bps("-1").has_value());
  EXPECT_FALSE(parse_seconds("").has_value());
  EXPECT_FALSE(parse_rate_unit("x").has_value());
}

TEST(ParseCommon, ExactExampleMessage) {
  std::string why;
  EXPECT_FALSE(parse_seconds("12Q", &why).has_value());
  EXPECT_EQ(why, "'12Q' has an unknown unit suffix 'Q' (use s, ms, us, m or h)");
  EXPECT_FALSE(parse_rate_bps("-3M", &why).has_value());
  EXPECT_EQ(why, "'-3M' is negative (a rate cannot be negative)");
}

// ---------------------------------------------------------------------------------------------
// parse_rate_unit

TEST(ParseRateUnit, AcceptsNetperfLetters) {
  const struct {
    std::string text;
    RateUnit want;
  } cases[] = {
      {"b", RateUnit::bits},    {"k", RateUnit::Kbits},  {"m", RateUnit::Mbits},
      {"g", RateUnit::Gbits},   {"B", RateUnit::bytes},  {"K", RateUnit::KBytes},
      {"M", RateUnit::MBytes},  {"G", RateUnit::GBytes}, {"a", RateUnit::Auto},
      {"auto", RateUnit::Auto},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    std::string why;
    const std::optional<RateUnit> got = parse_rate_unit(c.text, &why);
    ASSERT_TRUE(got.has_value()) << why;
    EXPECT_EQ(*got, c.want);
  }
}

TEST(ParseRateUnit, RejectsEverythingElse) {
  for (const std::string text :
       {"", "x", "t", "T", "A", "Auto", "AUTO", "kb", "KB", "Mbits", " k", "k ", "kk", "1"}) {
    SCOPED_TRACE(text);
    std::string why;
    EXPECT_FALSE(parse_rate_unit(text, &why).has_value());
    EXPECT_EQ(why.rfind("'" + text + "' is not a rate unit", 0), 0u) << why;
  }
}

// ---------------------------------------------------------------------------------------------
// Scaling

struct ScaleCase {
  double in;
  double value;
  std::string unit;
};

void expect_scaled(const Scaled& got, const ScaleCase& want) {
  EXPECT_EQ(got.unit, want.unit);
  EXPECT_DOUBLE_EQ(got.value, want.value);
}

TEST(ScaleRate, AutoSwitchesUnitAtEachThousand) {
  const std::vector<ScaleCase> cases = {
      {0.0, 0.0, "bit/s"},         {0.5, 0.5, "bit/s"},        {1.0, 1.0, "bit/s"},
      {999.9, 999.9, "bit/s"},     {1000.0, 1.0, "Kbit/s"},    {999999.0, 999.999, "Kbit/s"},
      {1e6, 1.0, "Mbit/s"},        {999.9e6, 999.9, "Mbit/s"}, {1e9, 1.0, "Gbit/s"},
      {9.41e9, 9.41, "Gbit/s"},    {999.9e9, 999.9, "Gbit/s"}, {1e12, 1.0, "Tbit/s"},
      {999.9e12, 999.9, "Tbit/s"}, {2.5e15, 2500.0, "Tbit/s"}, {-2000.0, -2.0, "Kbit/s"},
  };
  for (const ScaleCase& c : cases) {
    SCOPED_TRACE(c.in);
    expect_scaled(scale_rate(c.in, RateUnit::Auto), c);
  }
}

TEST(ScaleRate, AutoKeepsValueInOneToThousand) {
  for (double v = 1.0; v < 1e15; v *= 1.37) {
    SCOPED_TRACE(v);
    const Scaled s = scale_rate(v, RateUnit::Auto);
    EXPECT_GE(s.value, 1.0);
    EXPECT_LT(s.value, 1000.0);
  }
}

TEST(ScaleRate, FixedUnitsBitsDecimalBytesBinary) {
  const struct {
    double in;
    RateUnit unit;
    double value;
    std::string name;
  } cases[] = {
      {1e9, RateUnit::bits, 1e9, "bit/s"},
      {1500.0, RateUnit::Kbits, 1.5, "Kbit/s"},
      {2.5e6, RateUnit::Mbits, 2.5, "Mbit/s"},
      {1e6, RateUnit::Gbits, 0.001, "Gbit/s"},
      {8.0, RateUnit::bytes, 1.0, "B/s"},
      {8192.0, RateUnit::KBytes, 1.0, "KB/s"},
      {8000.0, RateUnit::KBytes, 0.9765625, "KB/s"},
      {8.0 * 1048576.0, RateUnit::MBytes, 1.0, "MB/s"},
      {8e6, RateUnit::MBytes, 0.95367431640625, "MB/s"},
      {8.0 * 1073741824.0, RateUnit::GBytes, 1.0, "GB/s"},
      {1e9, RateUnit::GBytes, 0.116415321826934814453125, "GB/s"},
      {0.0, RateUnit::Mbits, 0.0, "Mbit/s"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    expect_scaled(scale_rate(c.in, c.unit), {c.in, c.value, c.name});
  }
}

TEST(ScaleBytes, SwitchesUnitAtEach1024) {
  const double k = 1024.0;
  const std::vector<ScaleCase> cases = {
      {0.0, 0.0, "B"},
      {0.5, 0.5, "B"},
      {1.0, 1.0, "B"},
      {1023.9, 1023.9, "B"},
      {1024.0, 1.0, "KiB"},
      {1536.0, 1.5, "KiB"},
      {k * k - 1, 1023.9990234375, "KiB"},
      {k * k, 1.0, "MiB"},
      {k * k * k - 1024, 1023.9990234375, "MiB"},
      {k * k * k, 1.0, "GiB"},
      {k * k * k * k, 1.0, "TiB"},
      {k * k * k * k * k, 1024.0, "TiB"},
  };
  for (const ScaleCase& c : cases) {
    SCOPED_TRACE(c.in);
    expect_scaled(scale_bytes(c.in), c);
  }
}

TEST(ScaleDuration, SwitchesUnitAtEachThousandUpToSeconds) {
  const std::vector<ScaleCase> cases = {
      {0.0, 0.0, "ns"},      {0.25, 0.25, "ns"},
      {1.0, 1.0, "ns"},      {999.9, 999.9, "ns"},
      {1000.0, 1.0, "us"},   {999999.0, 999.999, "us"},
      {1e6, 1.0, "ms"},      {999999999.0, 999.999999, "ms"},
      {1e9, 1.0, "s"},       {1.5e9, 1.5, "s"},
      {3.6e12, 3600.0, "s"},
  };
  for (const ScaleCase& c : cases) {
    SCOPED_TRACE(c.in);
    expect_scaled(scale_duration_ns(c.in), c);
  }
}

// ---------------------------------------------------------------------------------------------
// format_sig

TEST(FormatSig, Table) {
  const struct {
    double v;
    int sig;
    std::string want;
  } cases[] = {
      // The examples from the header.
      {57.23, 3, "57.2"},
      {0.0571, 3, "0.0571"},
      {1234.5, 3, "1235"},
      {2.0, 3, "2"},
      {10.0, 3, "10"},
      // Rounding that carries into a new leading digit.
      {999.96, 3, "1000"},
      {999.94, 3, "1000"},
      {99.96, 3, "100"},
      {99.94, 3, "99.9"},
      {0.99996, 3, "1"},
      {0.9994, 3, "0.999"},
      {9.5, 1, "10"},
      {0.96, 1, "1"},
      {0.94, 1, "0.9"},
      // Halves round away from zero on the shortest decimal form.
      {100.5, 3, "101"},
      {1.005, 3, "1.01"},
      {2.675, 3, "2.68"},
      {0.125, 2, "0.13"},
      // Integer digits are never dropped.
      {57.0, 1, "57"},
      {123.0, 2, "123"},
      {1234.5, 4, "1235"},
      {1e20, 3, "100000000000000000000"},
      {1.23456e20, 3, "123456000000000000000"},
      // Small values keep their leading zeros and never use exponents.
      {0.05, 1, "0.05"},
      {0.000123456, 2, "0.00012"},
      {1.23456e-7, 3, "0.000000123"},
      // More digits requested than the value has.
      {1234.5, 5, "1234.5"},
      {1234.5, 6, "1234.5"},
      {1.0, 10, "1"},
      {0.5, 3, "0.5"},
      {0.1 + 0.2, 17, "0.30000000000000004"},
      {0.1 + 0.2, 3, "0.3"},
      // Negative values, zero, and nonsensical digit counts.
      {-57.23, 3, "-57.2"},
      {-0.0571, 3, "-0.0571"},
      {-999.96, 3, "-1000"},
      {0.0, 3, "0"},
      {-0.0, 3, "0"},
      {57.23, 0, "57"},
      {57.23, -5, "57"},
      {0.0571, 0, "0.06"},
      // Non-finite values.
      {std::numeric_limits<double>::quiet_NaN(), 3, "nan"},
      {std::numeric_limits<double>::infinity(), 3, "inf"},
      {-std::numeric_limits<double>::infinity(), 3, "-inf"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(testing::Message() << c.v << " sig " << c.sig);
    EXPECT_EQ(format_sig(c.v, c.sig), c.want);
  }
}

TEST(FormatSig, ExtremeMagnitudes) {
  const double denorm_min = std::numeric_limits<double>::denorm_min();  // 4.9e-324
  EXPECT_EQ(format_sig(denorm_min, 3), "0." + std::string(323, '0') + "5");

  const std::string max = format_sig(std::numeric_limits<double>::max(), 3);  // 1.797...e308
  EXPECT_EQ(max, "17976931348623157" + std::string(292, '0'));
}

}  // namespace
}  // namespace flowperf::core
