// qperf's command line, parsed into plain values. The syntax is qperf's own
// (0.4.11): whole-word options (-vu, -ar1, -oo, no bundling), each option's
// value in the next word, the server's name as the first word that is not an
// option, then test names. Options apply to the tests named after them, so
// every test gets its own snapshot of the settings (a Run); -oo loops are
// expanded here, one Run per value. Nothing here touches the network.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "report/qperf_report.h"

namespace flowperf::cli::qperf {

inline constexpr uint16_t kDefaultListenPort = 19765;

enum class TestKind {
  kConf,
  kQuit,
  kTcpBw,
  kTcpLat,
  kUdpBw,
  kUdpLat,
  kSctpBw,
  kSctpLat,
  kSdpBw,
  kSdpLat,
  kRdsBw,
  kRdsLat,
  kRdma,  // any RDMA or InfiniBand test: named so the user hears why it cannot run
};

struct TestName {
  const char* name;  // as typed: "tcp_bw"
  TestKind kind;
  const char* group;    // "Miscellaneous", "Socket Based", "RDMA Send/Receive" ...
  const char* purpose;  // one line
};

// Every test qperf 0.4.11 knows, grouped as its help lists them.
const std::vector<TestName>& all_tests();
const TestName* find_test(std::string_view name);
// Whether `qperf --help topic` has something to show: a category or a test.
bool is_help_topic(std::string_view topic);

// qperf's parameters: each has a local and a remote value. The order is the
// order -vu shows them in.
enum class Param {
  kAccessRecv,
  kAffinity,
  kAltPort,
  kFlip,
  kId,
  kMsgSize,
  kMtuSize,
  kNoMsgs,
  kPollMode,
  kPort,
  kRdAtomic,
  kServiceLevel,
  kSockBufSize,
  kSrcPathBits,
  kStaticRate,
  kTime,
  kTimeout,
  kUseCm,
};
inline constexpr size_t kParamCount = static_cast<size_t>(Param::kUseCm) + 1;

struct Value {
  double num = 0;      // counts, sizes in bytes, times in seconds
  std::string text;    // text parameters, and the CPU for affinity ("any" or a number)
  std::string set_by;  // the option that set it ("-m"); empty: a default
  bool set() const { return !set_by.empty(); }
};
struct Setting {
  Value loc, rem;
};

struct Params {
  std::array<Setting, kParamCount> all{};
  Setting& operator[](Param p) { return all[static_cast<size_t>(p)]; }
  const Setting& operator[](Param p) const { return all[static_cast<size_t>(p)]; }
};

// One test to run with the settings in force where it was named.
struct Run {
  TestName test{};
  std::string host;
  uint16_t listen_port = kDefaultListenPort;
  double wait_server_s = 5;
  Params params;  // with the test's defaults filled in
  report::QperfDisplay display;
};

struct Args {
  enum class Mode { kServer, kClient, kHelp, kVersion };
  Mode mode = Mode::kServer;
  std::string help_topic = "main";
  uint16_t listen_port = kDefaultListenPort;  // server mode
  double server_timeout_s = 0;                // server mode, -lto; 0: the server's default
  std::vector<Run> runs;                      // client mode, in order
  std::vector<std::string> warnings;          // obsolete option names used
};

// Parses the words after the program name. Throws a usage Error (exit 2)
// whose one-line message names the option or word at fault.
Args parse_args(const std::vector<std::string>& words);

// qperf's size syntax: a number with an optional suffix, K/kib/M/mib/G/gib
// for 1024-based and k/kb/m/mb/g/gb for 1000-based multiples (the two- and
// three-letter forms in any case). The result must be whole bytes. Returns
// false with a reason in *why.
bool parse_qperf_size(std::string_view text, uint64_t* bytes, std::string* why);
// qperf's time syntax: seconds, or with a trailing s, m, h or d (any case).
// Fractions are allowed.
bool parse_qperf_time(std::string_view text, double* seconds, std::string* why);

// Whether a test uses a parameter (an unused one that was set is warned about).
bool in_use(TestKind test, Param p);
// "warning: -f set but not used in test udp_bw", one per option.
std::vector<std::string> unused_warnings(const Run& run);
// The parameters a test uses, as the report shows them with -vu/-vvu.
std::vector<report::QperfParam> used_params(const Run& run);

}  // namespace flowperf::cli::qperf
