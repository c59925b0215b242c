// iperf3 3.12's command line (../shared/protocols/iperf3-wire.md §6, §16 and
// Appendix A for what each option means): parsed by hand, as getopt_long
// parses iperf3's (short options bundle, "-t5" and "-t 5", "--time=5" and
// "--time 5", an optional argument only with '='), into plain values with
// iperf3's defaults. Errors are worded as iperf3 words them, so scripts that
// match its messages keep working; the usage text is flowperf's own words.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/ip_family.h"
#include "net/socket.h"

namespace flowperf::cli {

struct Iperf3Args {
  enum class Mode { kClient, kServer };
  Mode mode = Mode::kClient;

  // Both ends
  uint16_t port = 5201;      // -p
  char format = 'a';         // -f [kmgtKMGT]; 'a': adaptive
  double interval_s = 1;     // -i; 0: no interval reports
  std::string pidfile;       // -I
  int affinity_local = -1;   // -A n[,m]: n
  int affinity_remote = -1;  // -A n,m: m (sent as server_affinity)
  std::string bind_host;     // -B host (a "%dev" part is refused)
  bool verbose = false;      // -V
  bool json = false;         // -J
  bool json_stream = false;  // --json-stream (3.17's line-per-event JSON)
  // --json-stream-full-output (3.20): with --json-stream, the whole -J
  // document after the events too; alone, nothing.
  bool json_stream_full_output = false;
  std::string logfile;                    // --logfile
  bool forceflush = false;                // --forceflush
  std::optional<std::string> timestamps;  // --timestamps[=strftime format]; "" → iperf3's default
  int rcv_timeout_ms = 120000;            // --rcv-timeout
  int debug = 0;                          // -d[=level]; -d alone: 4
  IpFamily family = IpFamily::kAny;       // -4 / -6
  // --cntl-ka[=IDLE/INTERVAL/COUNT] (3.19): TCP keepalive on the control
  // connection; a value 0 (not given) keeps the system's.
  std::optional<net::Keepalive> control_keepalive;

  // Server
  bool daemon = false;     // -D
  bool one_off = false;    // -1
  int idle_timeout_s = 0;  // --idle-timeout; 0: none
  // flowperf's own: tests served at once (--max-tests), and iperf3's
  // one-at-a-time behaviour ("the server is busy") with --one-at-a-time.
  uint32_t max_tests = 100;
  bool one_at_a_time = false;
  std::string rsa_private_key_path;   // --rsa-private-key-path
  std::string authorized_users_path;  // --authorized-users-path
  int time_skew_threshold_s = 10;     // --time-skew-threshold
  // --server-max-duration (3.20): a test longer than this (-t plus -O), or
  // one without a time (-t 0, -n, -k), is refused; 0: no such limit.
  int server_max_duration_s = 0;

  // Client
  std::string host;             // -c
  bool udp = false;             // -u
  int connect_timeout_ms = -1;  // --connect-timeout; -1: the system's
  uint64_t bitrate = 0;         // -b bits/s; set from the UDP default when not given
  bool bitrate_given = false;
  uint32_t burst = 0;               // -b rate/N; 0: none
  uint32_t pacing_timer_us = 1000;  // --pacing-timer
  uint64_t fq_rate = 0;             // --fq-rate bits/s; 0: none
  int duration_s = 10;              // -t (0 when -n or -k alone is given, as 3.12 sends it)
  uint64_t bytes = 0;               // -n
  uint64_t blocks = 0;              // -k
  uint32_t length = 0;              // -l; 0: the default (TCP 128 KiB, UDP the control MSS)
  uint16_t cport = 0;               // --cport
  int parallel = 1;                 // -P
  bool reverse = false;             // -R
  bool bidir = false;               // --bidir
  uint32_t window = 0;              // -w; 0: the system's buffers
  std::string congestion;           // -C
  int mss = 0;                      // -M; 0: the system's
  bool nodelay = false;             // -N
  int tos = -1;                     // -S / --tos (also --dscp N as tos = N << 2); -1: none
  int flowlabel = 0;                // -L (IPv6); 0: none
  bool zerocopy = false;            // -Z
  int omit_s = 0;                   // -O
  std::string title;                // -T
  std::string extra_data;           // --extra-data
  bool get_server_output = false;   // --get-server-output
  bool udp_counters_64bit = false;  // --udp-counters-64bit
  bool repeating_payload = false;   // --repeating-payload
  bool dont_fragment = false;       // --dont-fragment
  std::string username;             // --username (with --rsa-public-key-path)
  std::string rsa_public_key_path;  // --rsa-public-key-path
  // --use-pkcs1-padding: the token's padding is PKCS#1 v1.5, not OAEP. A
  // server option in iperf3 3.17+ (to take clients before 3.17); on the
  // client, flowperf's own (to reach servers before 3.17).
  bool use_pkcs1_padding = false;
  // Both auth paths of one end given: the client sends a token, the server
  // asks for one (the files are read by the front end, not the parser).
  bool client_auth = false, server_auth = false;
};

// What parsing decided. With `args`, run; without, print `out` to stdout
// and `err` to stderr (either may be empty) and exit with `exit_code`:
// -h (usage on stdout, 0), -v (version, 0), an unknown or malformed option
// ("iperf3: unrecognized option '--bogus'" + usage on stderr, 1), a parameter
// error ("iperf3: parameter error - ..." and an empty line on stderr, usage
// on stdout, 1), or an option flowperf does not honour (refused: one
// "iperf3: parameter error - ..." line saying what and why, 1).
struct Iperf3Parse {
  std::optional<Iperf3Args> args;
  std::string out, err;
  int exit_code = 0;
};

// argv[0] is the program's name.
Iperf3Parse parse_iperf3_args(const std::vector<std::string>& argv);

// The usage text (flowperf's words, iperf3's option list).
std::string iperf3_usage();

}  // namespace flowperf::cli
