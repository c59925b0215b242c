// qperf's output shape. Each test prints its name and a colon, then one
// indented row per value, the names padded to one width, the numbers right
// aligned to one width, and the unit after:
//
//   tcp_lat:
//       latency   =  57.2 us
//       msg_size  =     1 bytes
//       time      =     2 sec
//
// Numbers keep `precision` significant digits (never dropping an integer
// digit) and get thousands commas. Rates, bandwidths and times scale by 1000
// (bytes/sec, KB/sec, MB/sec ...; ns, us, ms, sec); sizes that are whole
// multiples of 1024 show as KiB/MiB/GiB with the exact byte count after.
//
// Which rows appear follows qperf's verbosity classes: the main result
// always; message rate with -vs; parameters the user set with -vu (every
// parameter in use with -vvu); with -vt the send/recv costs (CPU seconds per
// GB, bandwidth tests only) and each end's CPUs used ("% cpus": percent of
// one CPU); with -vvt each end's CPU split (user, intr, kernel, iowait),
// real time and CPU time; per-side byte and message counts with -vvs. A row
// whose value is zero or unknown (an end whose CPU was not measured) is left
// out, as qperf leaves it out. Everything is computed from the TestResult,
// so this file only chooses and formats.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "results/test_result.h"

namespace flowperf::report {

// qperf's -v family: 0 off, 1 (-vs, -vt, -vu, -vc, -v), 2 (-vvs ... -vv).
struct QperfVerbosity {
  int conf = 0, stat = 0, time = 0, used = 0;
  friend bool operator==(const QperfVerbosity&, const QperfVerbosity&) = default;
};

struct QperfDisplay {
  int precision = 3;          // -e
  QperfVerbosity verbose;     // -v...
  bool unify_units = false;   // -uu: base units only, no commas
  bool unify_nodes = false;   // -un: loc_/rem_ rows rather than send_/recv_
  bool bits_per_sec = false;  // -ub
  friend bool operator==(const QperfDisplay&, const QperfDisplay&) = default;
};

// A test parameter that -vu / -vvu may show. When both ends use the same
// value one row shows it; otherwise a loc_ and a rem_ row.
struct QperfParam {
  enum class Kind { kCount, kSize, kTime, kText };
  std::string name;  // "msg_size"
  Kind kind = Kind::kCount;
  double loc = 0, rem = 0;         // kCount; kSize in bytes; kTime in seconds
  std::string loc_text, rem_text;  // kText
  bool set = false;                // set on the command line (or by -oo)
};

// One output row: "name = data unit (alt)". No unit: the data is text and
// takes no part in the number alignment.
struct QperfRow {
  std::string name;
  std::string data;
  std::optional<std::string> unit;
  std::string alt;
  friend bool operator==(const QperfRow&, const QperfRow&) = default;
};

// The aligned rows, each "    name  =  data unit\n" (no test-name line).
std::string qperf_rows_text(const std::vector<QperfRow>& rows);

// The rows of one socket test (tcp_bw, tcp_lat, udp_bw, udp_lat and their
// flipped forms), chosen by the spec: a stream test shows bw (UDP: send_bw
// and recv_bw), a request/response test shows latency, half the mean round
// trip. `used` lists the parameters in use, in display order.
std::vector<QperfRow> qperf_test_rows(const results::TestResult& r,
                                      const std::vector<QperfParam>& used, const QperfDisplay& d);

struct QperfHost {
  std::string node, cpu, os, version;
};
// conf: loc_node, loc_cpu, loc_os, loc_qperf, then the rem_ four.
std::vector<QperfRow> qperf_conf_rows(const QperfHost& loc, const QperfHost& rem);

// "N Cores: MODEL FREQ" as qperf writes it: "(R)", "(TM)", "CPU " and
// "Processor " dropped from the model, runs of spaces squeezed, the clock
// (truncated to whole MHz) added unless the model already ends in "Hz", and
// the count left out for a single CPU.
std::string qperf_cpu_text(unsigned cores, std::string_view model, double mhz);

// A number with `precision` significant digits and, unless `commas` is
// false, thousands separators in its integer part: 1234.5 -> "1,235".
std::string qperf_number(double v, int precision, bool commas = true);

}  // namespace flowperf::report
