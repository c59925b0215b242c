// netperf's OMNI output selectors: the names netperf 2.7 prints values by
// (THROUGHPUT, MEAN_LATENCY, LSS_SIZE_END, ...), their column headers, how
// each value is written, and the three ways of printing a selection:
//   -O  columns under up-to-four-line headers ("human")
//   -o  one header line and one value line, comma separated ("CSV")
//   -k  one NAME=value line each ("keyval")
// A selection is up to four lines of names ("blocks"), given as a list
// ("A,B C;D" — ';' starts the next line), the word "all", or a file with one
// line of comma-separated names per block.
//
// OmniValues holds what netperf keeps in its variables, filled by the
// netperf front end from a TestResult. A value flowperf did not measure
// keeps netperf's "no value" (-1, -1.00, "Deprecated", ...), so output lines
// up with what netperf prints in the same situation.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace flowperf::report {

// One selector: its name and its header, lines separated by '|'.
struct OmniSelector {
  const char* name;
  const char* header;
};

// All of netperf 2.7's selectors, in netperf's order (the order `?` lists).
const std::vector<OmniSelector>& omni_selectors();
// Index into omni_selectors() of a name, case-insensitive.
std::optional<size_t> find_omni_selector(std::string_view name);

// Up to four lines of selector indices.
using OmniSelection = std::vector<std::vector<size_t>>;

// Parses a selection: "all", a list of names (',' or ' ' between names, ';'
// between lines), or the name of a file. Unknown names are an error (netperf
// drops them silently; a typo deserves a message). nullopt and *why on error.
std::optional<OmniSelection> parse_omni_selection(std::string_view spec, std::string* why);

// netperf's columns when none are selected: sizes, time, throughput and
// units for the test's direction, plus the CPU columns with -c/-C.
enum class OmniShape { kSend, kReceive, kRequestResponse };
OmniSelection default_omni_selection(OmniShape shape, bool cpu);

// What `-O ?` (one per line) and `-o ?`/`-k ?` (comma separated) print.
std::string omni_selector_list(bool comma_separated);

// One end's CPU figures as netperf keeps them: utilization and its split in
// percent of all CPUs, netperf's method letter, service demand (us per KB or
// per transaction), the CPU count and the busiest CPU. The defaults are what
// netperf prints for a local end it did not measure; a remote end it did not
// measure differs only in the busiest CPU (0.00 and 0, from netserver's
// zeroed reply).
struct OmniCpu {
  double util = -1;
  double user = 0, system = 0, iowait = 0, irq = 0, swintr = 0;
  char method = 'U';
  double sd = -1;
  int count = 0;
  double peak_util = -1;
  int peak_id = -1;

  static OmniCpu remote_unmeasured() {
    OmniCpu c;
    c.peak_util = 0;
    c.peak_id = 0;
    return c;
  }
};

// netperf's variables, as printed by the selectors.
struct OmniValues {
  std::string socket_type = "Stream", protocol = "TCP", direction = "Send";
  double elapsed_s = 0;
  double throughput = 0;                     // in `units`
  std::string units = "10^6bits";            // netperf's unit word; "/s" is added when printed
  int lss_req = -1, lss = -1, lss_end = -1;  // local send socket buffer: asked, initial, final
  int lsr_req = -1, lsr = -1, lsr_end = -1;
  int rss_req = -1, rss = -1, rss_end = -1;
  int rsr_req = -1, rsr = -1, rsr_end = -1;
  int local_send_size = -1, local_recv_size = -1;
  // Buffer-ring widths: how many buffers each end's sends and receives cycle
  // through (0 for a direction an end does not move data in, as netperf).
  int local_send_width = -1, local_recv_width = -1;
  int remote_send_width = -1, remote_recv_width = -1;
  int remote_send_size = -1, remote_recv_size = -1;
  int request_size = -1, response_size = -1;
  // CPU, filled only for the ends -c/-C asked for (as netperf does); the
  // other end keeps netperf's "not measured" values.
  OmniCpu local_cpu;
  OmniCpu remote_cpu = OmniCpu::remote_unmeasured();
  std::string sd_units = "usec/KB";
  // -I/-i: the level, the full width asked for and the runs made; the
  // widths achieved (percent of the mean). netperf's "not asked" values
  // unless the test could repeat.
  int confidence_level = 0;
  double confidence_interval = -1;
  int confidence_iteration = 1;
  double throughput_confid = -1, local_cpu_confid = -1, remote_cpu_confid = -1;
  double transaction_rate = 1.0;  // netperf's initial value in stream tests
  double rt_latency = -1;         // usec per transaction
  int burst_size = 0;
  int local_retrans = -1, remote_retrans = -1, transport_mss = -1;
  double local_send_tput = 0, local_recv_tput = 0, remote_send_tput = 0, remote_recv_tput = 0;
  std::string source_port = "0", source_addr = "0.0.0.0", dest_port = "0", dest_addr;
  int source_family = 0, dest_family = 0;  // AF_* numbers
  uint64_t local_send_calls = 0, local_recv_calls = 0;
  uint64_t local_bytes_sent = 0, local_bytes_recvd = 0;
  uint64_t remote_send_calls = 0, remote_recv_calls = 0;
  uint64_t remote_bytes_sent = 0, remote_bytes_recvd = 0;
  int local_nodelay = 0, remote_nodelay = 0;
  std::optional<std::string> brand;  // RESULT_BRAND: absent without -B
  std::string uuid;
  // Latency in microseconds; absent when not measured (netperf prints -1).
  std::optional<int> min_latency, max_latency, p50_latency, p90_latency, p99_latency;
  std::optional<double> mean_latency, stddev_latency;
  std::string local_cong_control, remote_cong_control;  // TCP tests but TCP_CRR/TCP_CC
  // -y / -Y as set on the data sockets; -1 (printed 0xffffffff for TOS): not set.
  int local_socket_prio = -1, remote_socket_prio = -1;
  int local_socket_tos = -1, remote_socket_tos = -1;
  std::string command_line;
};

// The text of one selector's value; nullopt where netperf has no value to
// print at all (RESULT_BRAND without -B, OUTPUT_END).
std::optional<std::string> omni_value(size_t selector, const OmniValues& v);

enum class OmniStyle { kHuman, kCsv, kKeyval };

// The selection printed in a style; `headers` is netperf's -P.
std::string render_omni(OmniStyle style, const OmniSelection& selection, const OmniValues& v,
                        bool headers);

}  // namespace flowperf::report
