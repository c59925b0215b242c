// netperf 2.7's output for a TestResult: the banner line, the classic column
// tables of each test (widths and decimals as netperf prints them), the
// interim results of -D, and the OMNI selector output of -O/-o/-k.
//
//   MIGRATED TCP STREAM TEST from 0.0.0.0 (0.0.0.0) port 0 AF_INET to ...
//   Recv   Send    Send
//   Socket Socket  Message  Elapsed
//   ...
//   131072  16384  16384    10.00    20824.23
//
// -P 0 drops the banner and headers (data lines only); -v 0 prints the
// result alone; -v 2 adds netperf's extra blocks where flowperf has the
// numbers (RR latency histogram, bytes per call). With -I/-i the banner
// names the confidence asked for, the figures netperf averages are the
// means over the runs, and a run that fell short says so in netperf's
// "!!! WARNING" block before the table. The socket sizes are the
// ones in effect on each side's data sockets (TestResult sndbuf/rcvbuf).
//
// With -c/-C the tables take netperf's CPU layout: utilization (percent of
// all CPUs), the method letter ("S": /proc/stat) and service demand (us/KB,
// or us/Tr in transactions) of each end asked for. An end not asked for, or
// asked for but not measured (its SideResult::cpu is empty, as from a
// netserver that did not measure), shows netperf's unmeasured values: -1.00,
// -1.000, method 'U'. The CPU selectors follow the same rule.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "measure/confidence.h"
#include "report/netperf_demo.h"
#include "report/omni_selectors.h"
#include "results/test_result.h"

namespace flowperf::report {

// How netperf was asked to present the test (the front end's choices).
struct NetperfReportOptions {
  std::string title;    // "MIGRATED TCP STREAM TEST", "OMNI Send TEST", ...
  char unit = 0;        // -f letter; 0: 'x' (transactions) for RR, 'm' otherwise
  int verbosity = 1;    // -v
  bool headers = true;  // -P
  bool local_cpu = false, remote_cpu = false;  // -c, -C
  std::string brand;                           // -B: printed after the result when headers are off

  // Banner: the data connection's ends as netperf names them, and their
  // numeric addresses (empty: the host itself if it is numeric).
  std::string source_host = "0.0.0.0", source_address;
  uint16_t source_port = 0;
  bool source_v6 = false;
  std::string dest_host, dest_address;
  uint16_t dest_port = 0;
  bool dest_v6 = false;
  bool nodelay = false;   // test -D: " : nodelay"
  int first_burst = 0;    // " : first burst N" on REQUEST/RESPONSE tests
  bool cpu_bind = false;  // " : cpu bind" (-T)

  // OMNI output; kNone keeps the classic table (named tests only).
  std::optional<OmniStyle> omni;
  OmniSelection selection;  // empty: netperf's default columns for the test
  std::string direction;    // "Send", "Receive", "Send|Recv", "Connect|Send|Recv"
  std::string command_line, uuid;
  int source_family = 0, dest_family = 0;  // AF_* numbers for the *_FAMILY selectors
  int lss_req = -1, lsr_req = -1, rss_req = -1, rsr_req = -1;  // -s/-S as asked

  // -I level,width and -i max,min as asked. netperf speaks of confidence
  // only when the test may run more than once (iteration_max > 1).
  int confidence_level = 0;         // 95 or 99; 0 when neither -I nor -i
  double confidence_width_pct = 5;  // the interval's full width, percent of the mean
  int iteration_min = 1, iteration_max = 1;
  bool result_confidence_only = false;  // -r: the throughput alone decides
};

// The banner line (with its newline), or "" with -P 0.
std::string netperf_banner(const NetperfReportOptions& o);

// The result: classic table or OMNI output, per the options.
std::string netperf_result(const results::TestResult& r, const NetperfReportOptions& o);

// A test repeated for a confidence interval (-i/-I). netperf averages six
// figures over the runs: throughput, elapsed time, and each end's CPU
// utilization and service demand; the throughput and the two utilizations
// decide when the runs may stop (the throughput alone with -r). An end whose
// CPU was not measured counts as netperf's constant -1, which never stands
// in the way.
//
//   auto loop = netperf_confidence_loop(o);
//   runs = run_netperf_tests(spec, c, [&](auto& r) {
//     return loop.add(netperf_confidence_sample(r, o)); });
//   out(netperf_result(runs, loop, o));
measure::ConfidenceLoop netperf_confidence_loop(const NetperfReportOptions& o);
std::vector<double> netperf_confidence_sample(const results::TestResult& r,
                                              const NetperfReportOptions& o);

// The result of all the runs, as netperf prints it: the last run's counts
// with the means of the averaged figures, the latency histogram of every
// run, the confidence selectors filled in, and, in the classic tables,
// netperf's "!!! WARNING" block when the confidence was not achieved.
// `loop` has seen every run (runs.size() samples).
std::string netperf_result(const std::vector<results::TestResult>& runs,
                           const measure::ConfidenceLoop& loop, const NetperfReportOptions& o);

// The units of work one interval sample holds for -D: bytes sent (received
// for TCP_MAERTS, both ways for request/response), or transactions when the
// unit is netperf's 'x'.
double netperf_interim_work(const spec::TestSpec& spec, const results::IntervalSample& s,
                            const NetperfReportOptions& o);

// One interim result (-D) for an interval NetperfDemo says is due:
// "Interim result: ..." (classic and -O), CSV with -o, or the four indexed
// NETPERF_*[n]= lines with -k. `ending` is the wall clock time the interval
// ended.
std::string netperf_interim(const spec::TestSpec& spec, const DemoInterval& d,
                            const NetperfReportOptions& o, int index,
                            std::chrono::system_clock::time_point ending);

// The TCP_INFO lines netperf writes to stderr at the end of a TCP test when
// the environment has DUMP_TCP_INFO (flent sets it and keeps the values in
// its metadata), with its misspelt "tpci_snd_cwnd" kept as netperf prints it.
std::string netperf_tcp_info_dump(const net::TcpInfo& t);

// netperf's unit word for a -f letter ("10^6bits", "KBytes", "Trans").
std::string netperf_unit_name(char unit);
// The -f letter in effect for a test: the option, or netperf's default.
char netperf_effective_unit(char unit, spec::TestKind kind);
// bytes (or transactions for 'x') over seconds, in the unit.
double netperf_rate(double units, double seconds, char unit);

// netperf's variables for a result, as the OMNI selectors print them.
OmniValues netperf_values(const results::TestResult& r, const NetperfReportOptions& o);
// ... and for the runs of a repeated test (see netperf_result above).
OmniValues netperf_values(const std::vector<results::TestResult>& runs,
                          const measure::ConfidenceLoop& loop, const NetperfReportOptions& o);

// netperf's latency histogram block (--enable-histogram builds): eight rows
// of ten counts, each row a decade of whole microseconds (UNIT_USEC: 0-9 us,
// TEN_USEC: 10-99 us, ... TEN_SEC: 10-99 s), then >100_SECS and HIST_TOTAL.
// flowperf's buckets are at most 1/64 of their values wide; one that
// straddles a column's edge shares its count between the two columns in
// proportion, so the columns are estimates there (exact for a lone value,
// and always adding up to HIST_TOTAL).
std::string netperf_histogram(const measure::Histogram& h);

}  // namespace flowperf::report
