// netperf 2.7's command line, read into a plain value. No I/O, no sockets:
// parse_netperf_args() only reads argv (and throws a usage Error, exit 2,
// with a one-line message naming the option), so every rule is testable.
//
// The grammar is netperf's own:
//   netperf [global options] [-- test options]
// Both halves are read the way getopt reads them: flags may be bundled
// (`-cC`), a value may be attached (`-l10`) or be the next word (`-l 10`,
// `-l -1000`), and a word that is not an option is skipped (netperf ignores
// the stray `32` in `-- -r 32 32`). Options that take two values ("pairs")
// follow netperf's comma rules:
//   "x"  sets both values      "x,"  sets only the first
//   ",y" sets only the second  "x,y" sets each
// except the explicit pairs (the starred options of `netperf -h`, and the
// test options -m, -M, -H, -L), where a lone "x" sets only the first.
// A size is read up to an 'x' as netperf's atoi() reads it: `-r 32x32` is
// 32 and 32 (a warning says so when the part after the 'x' differs).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "spec/test_spec.h"

namespace flowperf::cli {

// The tests netperf 2.7 runs that this personality understands.
enum class NetperfTest {
  kTcpStream,
  kTcpMaerts,
  kTcpSendfile,  // TCP_STREAM sent with sendfile() (spec.sendfile)
  kUdpStream,
  kTcpRr,
  kTcpCrr,
  kTcpCc,  // connect/close without data (netperf runs it on its classic messages)
  kUdpRr,
  kOmni,
};

// What the command asks for besides running a test.
enum class NetperfAction {
  kRun,
  kGlobalHelp,        // -h before `--`
  kTestHelp,          // -h after `--`
  kVersion,           // -V
  kListSelectors,     // -O ?   one name per line
  kListSelectorsCsv,  // -o ? / -k ?   one comma-separated line
};

// The two halves of a pair option; absent where the command left them alone.
template <typename T>
struct Pair {
  std::optional<T> first, second;
  bool operator==(const Pair&) const = default;
};

// netperf's OMNI direction bits (`-d`): 2 = transmit, 4 = receive.
inline constexpr int kNetperfXmit = 0x2;
inline constexpr int kNetperfRecv = 0x4;

// How omni output was asked for (-O, -o, -k).
enum class OmniOutputStyle { kNone, kHuman, kCsv, kKeyval };

struct NetperfArgs {
  NetperfAction action = NetperfAction::kRun;
  std::string command_line;  // argv joined by spaces (the COMMAND_LINE selector)

  // ---- Global options (before `--`) ----
  std::string test_name = "TCP_STREAM";  // -t, upper-cased as netperf does
  NetperfTest test = NetperfTest::kTcpStream;
  std::string host;                  // -H name; empty: netperf's default (localhost, ::1 with -6)
  IpFamily family = IpFamily::kAny;  // -H name,family / -4 / -6
  std::string local_host;            // -L name: control connection source
  IpFamily local_family = IpFamily::kAny;  // -L name,family / -4 / -6
  uint16_t port = 12865;                   // -p port
  uint16_t local_port = 0;                 // -p ,lport
  double duration_s = 10;                  // -l, positive
  uint64_t count = 0;                      // -l negative: bytes (stream) or transactions (RR)
  int verbosity = 1;                       // -v
  bool headers = true;                     // -P 0|1
  char unit = 0;                   // -f letter; 0: netperf's default (x for RR, m otherwise)
  double interim_s = 0;            // -D interval, seconds (its absolute value); 0: off
  bool interim_timestamp = false;  // -D negative: netperf's "always timestamp" mode
  bool local_cpu = false, remote_cpu = false;  // -c, -C (optional rate after each)
  int confidence_level = 0;                    // -I level (95 or 99); 0 = not asked
  double confidence_width = 0;                 // -I ,width in percent
  int iterations_max = 1, iterations_min = 1;  // -i max,min
  bool result_confidence_only = false;         // -r: only the throughput must be confident
  Pair<int> cpu_bind;                          // -T lcpu,rcpu
  std::string brand;                           // -B
  Pair<std::string> fill_file;                 // -F lfill,rfill (explicit pair; rfill refused)
  Pair<std::string> tos;                       // -Y local,remote
  Pair<int> priority;                          // -y local,remote
  Pair<uint64_t> remote_alignment;             // -A send,recv (netserver's buffers)
  int wait_s = 0;                              // -s seconds between setup and start
  bool keepalive = false;                      // -S
  std::string passphrase;                      // -Z
  bool no_control = false;                     // -N

  // ---- Test options (after `--`) ----
  Pair<uint64_t> send_size;      // -m local,remote send sizes (explicit pair)
  Pair<uint64_t> recv_size;      // -M remote,local receive sizes (explicit pair, netperf's order)
  Pair<uint64_t> local_buf;      // -s send,recv socket buffers here
  Pair<uint64_t> remote_buf;     // -S send,recv socket buffers at the server
  Pair<uint64_t> rr_size;        // -r request,response
  bool nodelay = false;          // -D (TCP_NODELAY both ends)
  int first_burst = 0;           // -b
  bool cork = false;             // -C
  bool connection_test = false;  // -c
  int direction = 0;             // OMNI: netperf's direction bits after -d/-m/-M/-r
  spec::Protocol protocol = spec::Protocol::kTcp;  // -T tcp|udp, -t stream|dgram (OMNI)
  std::string data_host;                  // -H name[/mask][,family]: target of the data connection
  IpFamily data_family = IpFamily::kAny;  // also -4 / -6 after `--`
  std::string data_local_host;            // -L name[,family]
  Pair<std::string> data_ports;           // -P local,remote
  Pair<std::string> cong_control;         // -K local,remote
  std::string uuid;                       // -u
  OmniOutputStyle omni_style = OmniOutputStyle::kNone;  // -O / -o / -k
  std::string omni_selection;  // the file or list after -O/-o/-k; empty: the test's default

  // Words skipped because they were neither options nor option values.
  std::vector<std::string> strays;
  // What the command means to netperf but may not mean to its writer (a
  // size written "32x64"): printed on standard error before the test.
  std::vector<std::string> warnings;
};

// Parses argv (argv[0] is the program name). Throws Error(kUsage).
NetperfArgs parse_netperf_args(int argc, const char* const* argv);

// -Y's value as netperf's parse_ipqos() reads it ("0x10", "lowdelay", "af11"):
// the TOS byte. Throws Error(kUsage) naming -Y.
int parse_netperf_tos(std::string_view text);

// The netperf test names this personality knows, upper case ("TCP_STREAM").
std::optional<NetperfTest> parse_netperf_test(std::string_view upper_name);
const char* netperf_test_name(NetperfTest test);

// The flowperf test that runs for these arguments: TCP_SENDFILE is TCP_STREAM
// (with spec.sendfile, which netperf_spec sets),
// OMNI follows -d/-T/-c. Throws Error(kUsage) for what flowperf cannot run
// (one-way TCP connection tests, UDP receive-only, UDP connection tests).
spec::TestKind netperf_test_kind(const NetperfArgs& args);

// True for the request/response family (netperf's 'x' default unit).
bool netperf_is_rr(const NetperfArgs& args);

// Facts about the local system that netperf's defaults depend on: it sends
// messages as large as the socket's send buffer. Read from /proc by the
// front end; fixed values here keep the spec builder pure.
struct NetperfSystemDefaults {
  uint32_t tcp_sndbuf = 16384;   // net.ipv4.tcp_wmem, middle value
  uint32_t udp_sndbuf = 212992;  // net.core.wmem_default
  uint32_t wmem_max = 212992;    // net.core.wmem_max: setsockopt's ceiling
};

// The socket buffer Linux reports after SO_SNDBUF was set to `requested`:
// the request (capped at wmem_max) doubled for bookkeeping.
uint32_t linux_effective_sndbuf(uint64_t requested, const NetperfSystemDefaults& sys);

// The TestSpec netperf's defaults and these arguments describe: -l 10,
// send size = the send socket buffer (16384 for TCP on Linux; UDP capped at
// 65507), RR 1,1. Throws Error(kUsage) for a test flowperf cannot run or a
// spec validate() rejects.
spec::TestSpec netperf_spec(const NetperfArgs& args, const NetperfSystemDefaults& sys);

// Help in netperf's layout (our own words): global options, test options.
std::string netperf_global_help();
std::string netperf_test_help();

}  // namespace flowperf::cli
