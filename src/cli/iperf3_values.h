// The values iperf3's options take, read as the personality reads them:
// whole numbers (decimal, or C's 0/0x prefixes), decimals, numbers with
// iperf3's K/M/G/T suffixes, and --dscp's numbers and names.
#pragma once

#include <optional>
#include <string>

namespace flowperf::cli::iperf3_values {

std::optional<long long> parse_int(const std::string& text);
std::optional<long long> parse_int_base0(const std::string& text);
std::optional<double> parse_double(const std::string& text);
// base: 1024 for sizes, 1000 for rates.
std::optional<double> parse_suffixed(const std::string& text, double base);
std::optional<int> parse_dscp(const std::string& text);

}  // namespace flowperf::cli::iperf3_values
