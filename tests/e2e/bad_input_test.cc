// Wrong values for the options of every front end: the native CLI (client
// and `server`), the netperf personality and the qperf personality. Each
// must be refused before anything runs, with the front end's exit code for
// a bad option (flowperf's 2; netperf's and qperf's 1, as theirs), a
// one-line error that names the option, and no crash.
//
// Client commands point at 127.0.0.1 and a port that is bound but not
// listening, so a value that is wrongly accepted ends quickly in "no server
// is listening" (a line that names no option; netperf exits 255 for it)
// instead of running a test. Server commands bind
// 127.0.0.1 and an ephemeral port; a server that wrongly starts is killed
// after a few seconds.
//
// A case given a `bug` (a string saying why; none today) is known to fail:
// it is reported as skipped with the reason, and fails once it passes, so
// that the marker gets removed.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cctype>
#include <sstream>
#include <string>
#include <vector>

#include "net/fd.h"
#include "support/paths.h"
#include "support/process.h"

namespace flowperf::testing {
namespace {

using namespace std::chrono_literals;

const std::string kBin = ::flowperf::testing::flowperf_bin();
// Stands for the port where nothing listens.
const std::string kDeadPort = "<dead port>";

enum class Front { kNative, kServer, kNetperf, kQperf };

struct BadInput {
  std::string name;  // the test's name: letters, digits, _
  Front front;
  std::vector<std::string> args;   // after the common prefix (see argv_for)
  std::vector<std::string> names;  // the error must name one of these
  const char* bug = nullptr;       // known to fail today, and why
  bool full_args = false;          // args replace the prefix (for the port options)
};

// How gtest (and so ctest's test list) shows a case.
void PrintTo(const BadInput& c, std::ostream* os) { *os << c.name; }

std::vector<BadInput> native_cases() {
  const std::vector<std::string> l = {"-l", "--length"}, t = {"-t", "--test"},
                                 n = {"-n", "--count"}, m = {"-m", "--send-size"},
                                 M = {"-M", "--recv-size"}, s = {"-s", "--local-buffer"},
                                 S = {"-S", "--remote-buffer"}, r = {"-r", "--request-response"},
                                 b = {"-b", "--bitrate"}, P = {"-P", "--parallel"},
                                 th = {"--threads"}, i = {"-i", "--interval"},
                                 f = {"-f", "--format"}, K = {"-K", "--cc"},
                                 u = {"--udp-rr-min-timeout"}, H = {"-H", "--host"};
  const std::vector<std::string> port = {"-p", "--port"};
  std::vector<BadInput> c = {
      {"port_over_65535", Front::kNative, {"-H", "127.0.0.1", "-p", "70000"}, port, nullptr, true},
      {"port_negative", Front::kNative, {"-H", "127.0.0.1", "-p", "-1"}, port, nullptr, true},
      {"port_not_a_number", Front::kNative, {"-H", "127.0.0.1", "-p", "abc"}, port, nullptr, true},
      {"port_fraction", Front::kNative, {"-H", "127.0.0.1", "-p", "1.5"}, port, nullptr, true},
      {"port_zero", Front::kNative, {"-H", "127.0.0.1", "-p", "0", "-l", "1"}, port, nullptr, true},
      {"host_empty", Front::kNative, {"-H", "", "-p", kDeadPort, "-l", "0.1"}, H, nullptr, true},
      {"host_missing_value", Front::kNative, {"-p", kDeadPort, "-H"}, H, nullptr, true},
      {"test_unknown", Front::kNative, {"-t", "FOO"}, t},
      {"test_empty", Front::kNative, {"-t", ""}, t},
      {"test_missing_value", Front::kNative, {"-t"}, t},
      {"length_negative", Front::kNative, {"-l", "-1"}, l},
      {"length_zero", Front::kNative, {"-l", "0"}, l},
      {"length_not_a_number", Front::kNative, {"-l", "abc"}, l},
      {"length_huge", Front::kNative, {"-l", "1e99"}, l},
      {"length_over_a_year", Front::kNative, {"-l", "31536001"}, l},
      {"length_nan", Front::kNative, {"-l", "nan"}, l},
      {"length_inf", Front::kNative, {"-l", "inf"}, l},
      {"length_with_unit", Front::kNative, {"-l", "5s"}, l},
      {"count_zero", Front::kNative, {"-n", "0"}, n},
      {"count_negative", Front::kNative, {"-n", "-5"}, n},
      {"count_not_a_number", Front::kNative, {"-n", "abc"}, n},
      {"count_huge", Front::kNative, {"-n", "99999999999999999999999"}, n},
      {"count_bad_unit", Front::kNative, {"-n", "10Q"}, n},
      {"send_size_zero", Front::kNative, {"-m", "0"}, m},
      {"send_size_empty", Front::kNative, {"-m", ""}, m},
      {"send_size_negative", Front::kNative, {"-m", "-1"}, m},
      {"send_size_not_a_number", Front::kNative, {"-m", "abc"}, m},
      {"send_size_bad_unit", Front::kNative, {"-m", "1T"}, m},
      {"send_size_over_4g", Front::kNative, {"-m", "5G"}, m},
      {"send_size_over_1g_tcp", Front::kNative, {"-m", "2G"}, m},
      {"send_size_udp_over_65507", Front::kNative, {"-t", "UDP_STREAM", "-m", "70000"}, m},
      {"recv_size_zero", Front::kNative, {"-M", "0"}, M},
      {"recv_size_negative", Front::kNative, {"-M", "-3"}, M},
      {"recv_size_not_a_number", Front::kNative, {"-M", "abc"}, M},
      {"recv_size_over_1g", Front::kNative, {"-M", "2G"}, M},
      {"local_buffer_negative", Front::kNative, {"-s", "-1"}, s},
      {"local_buffer_not_a_number", Front::kNative, {"-s", "abc"}, s},
      {"local_buffer_second_bad", Front::kNative, {"-s", "1,abc"}, s},
      {"local_buffer_bad_unit", Front::kNative, {"-s", "99T"}, s},
      {"local_buffer_over_4g", Front::kNative, {"-s", "5G"}, s},
      {"local_buffer_comma_only", Front::kNative, {"-s", ","}, s},
      {"local_buffer_empty", Front::kNative, {"-s", ""}, s},
      {"remote_buffer_negative", Front::kNative, {"-S", "-1"}, S},
      {"remote_buffer_not_a_number", Front::kNative, {"-S", "x"}, S},
      {"remote_buffer_comma_only", Front::kNative, {"-S", ","}, S},
      {"remote_buffer_empty", Front::kNative, {"-S", ""}, S},
      {"rr_not_a_number", Front::kNative, {"-t", "TCP_RR", "-r", "abc"}, r},
      {"rr_negative", Front::kNative, {"-t", "TCP_RR", "-r", "-1,1"}, r},
      {"rr_response_zero", Front::kNative, {"-t", "TCP_RR", "-r", "1,0"}, r},
      {"rr_three_values", Front::kNative, {"-t", "TCP_RR", "-r", "1,2,3"}, r},
      {"rr_empty_second", Front::kNative, {"-t", "TCP_RR", "-r", "1,,"}, r},
      {"rr_zero", Front::kNative, {"-t", "TCP_RR", "-r", "0"}, r},
      {"cc_has_no_sizes", Front::kNative, {"-t", "TCP_CC", "-r", "32"}, r},
      {"cc_has_no_send_size", Front::kNative, {"-t", "TCP_CC", "-m", "32"}, {"-m"}},
      {"rr_over_1g", Front::kNative, {"-t", "TCP_RR", "-r", "2G"}, r},
      {"rr_comma_only", Front::kNative, {"-t", "TCP_RR", "-r", ","}, r},
      {"rr_udp_over_65507", Front::kNative, {"-t", "UDP_RR", "-r", "70000"}, r},
      {"bitrate_on_tcp", Front::kNative, {"-t", "TCP_STREAM", "-b", "10M"}, b},
      {"bitrate_on_rr", Front::kNative, {"-t", "TCP_RR", "-b", "1M"}, b},
      {"bitrate_negative", Front::kNative, {"-t", "UDP_STREAM", "-b", "-5"}, b},
      {"bitrate_not_a_number", Front::kNative, {"-t", "UDP_STREAM", "-b", "abc"}, b},
      {"bitrate_bad_unit", Front::kNative, {"-t", "UDP_STREAM", "-b", "1e30"}, b},
      {"bitrate_unit_q", Front::kNative, {"-t", "UDP_STREAM", "-b", "10Q"}, b},
      {"bitrate_empty", Front::kNative, {"-t", "UDP_STREAM", "-b", ""}, b},
      {"parallel_zero", Front::kNative, {"-P", "0"}, P},
      {"parallel_negative", Front::kNative, {"-P", "-1"}, P},
      {"parallel_not_a_number", Front::kNative, {"-P", "abc"}, P},
      {"parallel_over_limit", Front::kNative, {"-P", "100001"}, P},
      {"parallel_over_32_bits", Front::kNative, {"-P", "99999999999"}, P},
      {"threads_negative", Front::kNative, {"--threads", "-1"}, th},
      {"threads_not_a_number", Front::kNative, {"--threads", "x"}, th},
      {"threads_over_1024", Front::kNative, {"--threads", "5000"}, th},
      {"interval_negative", Front::kNative, {"-i", "-1"}, i},
      {"interval_too_small", Front::kNative, {"-i", "0.001"}, i},
      {"interval_not_a_number", Front::kNative, {"-i", "abc"}, i},
      {"interval_nan", Front::kNative, {"-i", "nan"}, i},
      {"interval_inf", Front::kNative, {"-i", "inf"}, i},
      {"format_unknown", Front::kNative, {"-f", "x"}, f},
      {"format_empty", Front::kNative, {"-f", ""}, f},
      {"format_two_letters", Front::kNative, {"-f", "kk"}, f},
      {"cc_too_long", Front::kNative, {"-K", std::string(100, 'a')}, K},
      {"cc_bad_characters", Front::kNative, {"-K", "bad name!"}, K},
      {"cc_on_udp", Front::kNative, {"-t", "UDP_RR", "-K", "reno"}, K},
      {"cc_empty", Front::kNative, {"-K", ""}, K},
      {"v4_and_v6", Front::kNative, {"-4", "-6"}, {"-4", "-6"}},
      {"udp_rr_timeout_negative", Front::kNative, {"--udp-rr-min-timeout", "-1"}, u},
      {"udp_rr_timeout_not_a_number", Front::kNative, {"--udp-rr-min-timeout", "abc"}, u},
      {"udp_rr_timeout_over_32_bits", Front::kNative, {"--udp-rr-min-timeout", "99999999999"}, u},
      {"json_with_value", Front::kNative, {"--json=maybe"}, {"--json"}},
      {"unknown_option", Front::kNative, {"--bogus"}, {"--bogus"}},
      // Options that mean nothing for the test they are given with.
      {"send_size_on_rr", Front::kNative, {"-t", "TCP_RR", "-m", "100"}, m},
      {"recv_size_on_rr", Front::kNative, {"-t", "TCP_RR", "-M", "100"}, M},
      {"rr_sizes_on_stream", Front::kNative, {"-t", "TCP_STREAM", "-r", "10,10"}, r},
      {"nodelay_on_udp", Front::kNative, {"-t", "UDP_STREAM", "-D"}, {"-D", "--nodelay"}},
      {"udp_rr_timeout_on_tcp", Front::kNative, {"-t", "TCP_RR", "--udp-rr-min-timeout", "5"}, u},
      {"count_and_length", Front::kNative, {"-n", "10", "-l", "5"}, {"-n", "-l"}},
  };
  return c;
}

std::vector<BadInput> server_cases() {
  const std::vector<std::string> port = {"-p", "--port"}, mt = {"--max-tests"},
                                 md = {"--max-duration"}, ct = {"--control-timeout"};
  return {
      {"port_over_65535", Front::kServer, {"-B", "127.0.0.1", "-p", "70000"}, port, nullptr, true},
      {"port_negative", Front::kServer, {"-B", "127.0.0.1", "-p", "-1"}, port, nullptr, true},
      {"port_not_a_number", Front::kServer, {"-B", "127.0.0.1", "-p", "abc"}, port, nullptr, true},
      {"max_tests_zero", Front::kServer, {"--max-tests", "0"}, mt},
      {"max_tests_negative", Front::kServer, {"--max-tests", "-1"}, mt},
      {"max_tests_over_limit", Front::kServer, {"--max-tests", "100001"}, mt},
      {"max_tests_not_a_number", Front::kServer, {"--max-tests", "x"}, mt},
      {"max_duration_zero", Front::kServer, {"--max-duration", "0"}, md},
      {"max_duration_negative", Front::kServer, {"--max-duration", "-1"}, md},
      {"max_duration_huge", Front::kServer, {"--max-duration", "1e99"}, md},
      {"max_duration_inf", Front::kServer, {"--max-duration", "inf"}, md},
      {"max_duration_not_a_number", Front::kServer, {"--max-duration", "x"}, md},
      {"max_duration_nan", Front::kServer, {"--max-duration", "nan"}, md},
      {"control_timeout_zero", Front::kServer, {"--control-timeout", "0"}, ct},
      {"control_timeout_negative", Front::kServer, {"--control-timeout", "-2"}, ct},
      {"control_timeout_nan", Front::kServer, {"--control-timeout", "nan"}, ct},
      {"control_timeout_huge", Front::kServer, {"--control-timeout", "1e9"}, ct},
      {"v4_and_v6", Front::kServer, {"-4", "-6"}, {"-4", "-6"}},
      {"quiet_with_value", Front::kServer, {"-q=3"}, {"-q", "-=3"}},
      {"stray_word", Front::kServer, {"stray"}, {"stray"}},
  };
}

std::vector<BadInput> netperf_cases() {
  const std::vector<std::string> port = {"-p"};
  auto g = [](std::string name, std::vector<std::string> args, std::string opt,
              const char* bug = nullptr) {
    return BadInput{name, Front::kNetperf, args, {opt}, bug};
  };
  // Test options, after `--`.
  auto t = [](std::string name, std::string test, std::vector<std::string> args, std::string opt,
              const char* bug = nullptr) {
    std::vector<std::string> a = {"-t", test, "--"};
    a.insert(a.end(), args.begin(), args.end());
    return BadInput{name, Front::kNetperf, a, {opt}, bug};
  };
  return {
      {"port_over_65535", Front::kNetperf, {"-H", "127.0.0.1", "-p", "70000"}, port, nullptr, true},
      {"port_negative", Front::kNetperf, {"-H", "127.0.0.1", "-p", "-1"}, port, nullptr, true},
      {"port_not_a_number", Front::kNetperf, {"-H", "127.0.0.1", "-p", "abc"}, port, nullptr, true},
      {"port_zero", Front::kNetperf, {"-H", "127.0.0.1", "-p", "0"}, port, nullptr, true},
      {"local_port_over_65535",
       Front::kNetperf,
       {"-H", "127.0.0.1", "-p", "1,99999"},
       port,
       nullptr,
       true},
      g("length_zero", {"-l", "0"}, "-l"),
      g("length_minus_zero", {"-l", "-0"}, "-l"),
      g("length_not_a_number", {"-l", "abc"}, "-l"),
      g("length_huge", {"-l", "1e99"}, "-l"),
      g("length_over_a_year", {"-l", "99999999999"}, "-l"),
      g("length_with_unit", {"-l", "5s"}, "-l"),
      g("length_nan", {"-l", "nan"}, "-l"),
      g("length_count_over_64_bits", {"-l", "-99999999999999999999999"}, "-l"),
      g("length_missing_value", {"-l"}, "-l"),
      g("test_unknown", {"-t", "FOO"}, "-t"),
      g("test_empty", {"-t", ""}, "-t"),
      g("verbosity_not_a_number", {"-v", "abc"}, "-v"),
      g("verbosity_negative", {"-v", "-5"}, "-v"),
      g("verbosity_huge", {"-v", "99999999999"}, "-v"),
      g("headers_not_a_number", {"-P", "abc"}, "-P"),
      g("format_unknown", {"-f", "q"}, "-f"),
      g("format_empty", {"-f", ""}, "-f"),
      g("interim_not_a_number", {"-D", "abc"}, "-D"),
      g("interim_zero", {"-D", "0"}, "-D"),
      g("interim_too_small", {"-D", "-0.0001"}, "-D"),
      g("confidence_level_50", {"-I", "50"}, "-I"),
      g("confidence_width_not_a_number", {"-I", "95,abc"}, "-I"),
      g("confidence_not_a_number", {"-I", "abc"}, "-I"),
      g("confidence_width_negative", {"-I", "99,-5"}, "-I"),
      g("iterations_zero", {"-i", "0"}, "-i"),
      g("iterations_negative", {"-i", "-1"}, "-i"),
      g("iterations_not_a_number", {"-i", "abc"}, "-i"),
      g("cpu_bind_not_a_number", {"-T", "abc"}, "-T"),
      g("priority_not_a_number", {"-y", "abc"}, "-y"),
      g("tos_not_hex", {"-Y", "zz"}, "-Y"),
      g("alignment_not_a_number", {"-a", "abc"}, "-a"),
      g("offset_not_a_number", {"-o", "abc"}, "-o"),
      g("width_not_a_number", {"-W", "abc"}, "-W"),
      g("wait_negative", {"-s", "-1"}, "-s"),
      g("wait_not_a_number", {"-s", "abc"}, "-s"),
      g("wait_huge", {"-s", "99999999999"}, "-s"),
      g("cpus_zero", {"-n", "0"}, "-n"),
      g("cpus_not_a_number", {"-n", "abc"}, "-n"),
      g("cpus_negative", {"-n", "-1"}, "-n"),
      g("host_family_unknown", {"-H", "127.0.0.1,99"}, "-H"),
      g("host_missing_value", {"-H"}, "-H"),
      g("passphrase_missing_value", {"-Z"}, "-Z"),
      t("send_size_negative", "TCP_STREAM", {"-m", "-1"}, "-m"),
      t("send_size_not_a_number", "TCP_STREAM", {"-m", "abc"}, "-m"),
      t("send_size_over_4g", "TCP_STREAM", {"-m", "5G"}, "-m"),
      t("send_size_bad_unit", "TCP_STREAM", {"-m", "99T"}, "-m"),
      t("send_size_missing_value", "TCP_STREAM", {"-m"}, "-m"),
      t("send_size_udp_over_65507", "UDP_STREAM", {"-m", "70000"}, "-m"),
      t("recv_size_not_a_number", "TCP_STREAM", {"-M", "abc"}, "-M"),
      t("recv_size_over_1g", "TCP_STREAM", {"-M", "2G"}, "-M"),
      t("local_buffer_negative", "TCP_STREAM", {"-s", "-1"}, "-s"),
      t("local_buffer_not_a_number", "TCP_STREAM", {"-s", "abc"}, "-s"),
      t("local_buffer_huge", "TCP_STREAM", {"-s", "99999999999999"}, "-s"),
      t("remote_buffer_not_a_number", "TCP_STREAM", {"-S", "abc"}, "-S"),
      t("remote_buffer_negative", "TCP_STREAM", {"-S", "-5"}, "-S"),
      t("rr_not_a_number", "TCP_RR", {"-r", "abc"}, "-r"),
      t("rr_negative", "TCP_RR", {"-r", "-1"}, "-r"),
      t("rr_response_zero", "TCP_RR", {"-r", "1,0"}, "-r"),
      t("rr_zero", "TCP_RR", {"-r", "0"}, "-r"),
      t("rr_over_1g", "TCP_RR", {"-r", "2G"}, "-r"),
      t("rr_udp_over_65507", "UDP_RR", {"-r", "70000"}, "-r"),
      t("burst_negative", "TCP_RR", {"-b", "-1"}, "-b"),
      t("burst_not_a_number", "TCP_RR", {"-b", "abc"}, "-b"),
      t("direction_unknown", "OMNI", {"-d", "foo"}, "-d"),
      t("direction_bits_unknown", "OMNI", {"-d", "99"}, "-d"),
      t("protocol_sctp", "OMNI", {"-T", "sctp"}, "-T"),
      t("socket_type_raw", "OMNI", {"-t", "raw"}, "-t"),
      t("selector_unknown", "OMNI", {"-O", "NOSUCHSEL"}, "-O"),
      t("selector_file_missing", "OMNI", {"-k", "/nonexistent/file"}, "-k"),
      t("data_port_not_a_number", "TCP_STREAM", {"-P", "abc"}, "-P"),
      t("data_port_over_65535", "TCP_STREAM", {"-P", "99999"}, "-P"),
      t("cc_too_long", "TCP_STREAM", {"-K", std::string(60, 'a')}, "-K"),
      t("data_host_missing_value", "TCP_STREAM", {"-H"}, "-H"),
      t("unknown_test_option", "TCP_STREAM", {"-Z"}, "-Z"),
  };
}

std::vector<BadInput> qperf_cases() {
  // Options before the test name, which comes last.
  auto q = [](std::string name, std::vector<std::string> args, std::string opt,
              const char* bug = nullptr, std::string test = "tcp_bw") {
    args.push_back(test);
    return BadInput{name, Front::kQperf, args, {opt}, bug};
  };
  auto lp = [](std::string name, std::string value) {
    return BadInput{name,    Front::kQperf, {"127.0.0.1", "-lp", value, "tcp_bw"},
                    {"-lp"}, nullptr,       true};
  };
  return {
      lp("listen_port_over_65535", "70000"),
      lp("listen_port_negative", "-1"),
      lp("listen_port_not_a_number", "abc"),
      lp("listen_port_zero", "0"),
      q("time_zero", {"-t", "0"}, "-t"),
      q("time_negative", {"-t", "-1"}, "-t"),
      q("time_not_a_number", {"-t", "abc"}, "-t"),
      q("time_bad_unit", {"-t", "5x"}, "-t"),
      q("time_exponent", {"-t", "1e99"}, "-t"),
      q("time_nan", {"-t", "nan"}, "-t"),
      q("msg_size_zero", {"-m", "0"}, "-m"),
      q("msg_size_negative", {"-m", "-1"}, "-m"),
      q("msg_size_not_a_number", {"-m", "abc"}, "-m"),
      q("msg_size_fraction", {"-m", "1.5"}, "-m"),
      q("msg_size_over_4g", {"-m", "5G"}, "-m"),
      q("msg_size_bad_unit", {"-m", "1T"}, "-m"),
      q("msg_size_too_many_digits", {"-m", "99999999999999999999"}, "-m"),
      q("msg_size_udp_over_65507", {"-m", "70000"}, "-m", nullptr, "udp_bw"),
      q("no_msgs_zero", {"-n", "0"}, "-n"),
      q("no_msgs_negative", {"-n", "-1"}, "-n"),
      q("no_msgs_not_a_number", {"-n", "abc"}, "-n"),
      q("sock_buf_negative", {"-sb", "-1"}, "-sb"),
      q("sock_buf_not_a_number", {"-sb", "abc"}, "-sb"),
      q("sock_buf_over_4g", {"-sb", "99G"}, "-sb"),
      q("loc_sock_buf_not_a_number", {"-lsb", "x"}, "-lsb"),
      q("rem_sock_buf_negative", {"-rsb", "-3"}, "-rsb"),
      q("timeout_zero", {"-to", "0"}, "-to"),
      q("timeout_negative", {"-to", "-1"}, "-to"),
      q("timeout_not_a_number", {"-to", "abc"}, "-to"),
      q("loc_timeout_negative", {"-lto", "-5"}, "-lto"),
      q("rem_timeout_not_a_number", {"-rto", "abc"}, "-rto"),
      q("wait_server_negative", {"-ws", "-1"}, "-ws"),
      q("wait_server_not_a_number", {"-ws", "abc"}, "-ws"),
      q("precision_negative", {"-e", "-1"}, "-e"),
      q("precision_not_a_number", {"-e", "abc"}, "-e"),
      q("precision_huge", {"-e", "99999"}, "-e"),
      q("affinity_not_a_number", {"-ca", "abc"}, "-ca"),
      q("affinity_negative", {"-ca", "-2"}, "-ca"),
      q("loc_affinity_huge", {"-lca", "99999999"}, "-lca"),
      q("rem_affinity_not_a_number", {"-rca", "abc"}, "-rca"),
      q("flip_not_a_number", {"-f", "abc"}, "-f"),
      q("access_recv_not_a_number", {"-ar", "abc"}, "-ar"),
      q("ip_port_negative", {"-ip", "-1"}, "-ip"),
      q("ip_port_over_65535", {"-ip", "70000"}, "-ip"),
      q("loop_no_colons", {"-oo", "bad"}, "-oo"),
      q("loop_unknown_variable", {"-oo", "nosuch:1:2:1"}, "-oo"),
      q("loop_zero_increment", {"-oo", "msg_size:1:10:0"}, "-oo"),
      q("loop_not_numbers", {"-oo", "msg_size:a:b:c"}, "-oo"),
      q("loop_too_many_tests", {"-oo", "msg_size:1:1000000000:1"}, "-oo"),
      q("loop_last_below_first", {"-oo", "msg_size:1:0:1"}, "-oo"),
      q("time_missing_value", {"-t"}, "-t", nullptr, ""),
      q("host_missing_value", {"-H"}, "-H", nullptr, ""),
      q("help_topic_unknown", {"-h", "nosuchtopic"}, "-h", nullptr, ""),
      q("test_unknown", {}, "nosuch_test", nullptr, "nosuch_test"),
      q("unknown_option", {"--bogus"}, "--bogus"),
  };
}

std::vector<std::string> argv_for(const BadInput& c, const std::string& dead_port) {
  std::vector<std::string> argv = {kBin};
  switch (c.front) {
    case Front::kNative:
      if (!c.full_args) argv.insert(argv.end(), {"-H", "127.0.0.1", "-p", kDeadPort});
      break;
    case Front::kServer:
      argv.push_back("server");
      if (!c.full_args) argv.insert(argv.end(), {"-B", "127.0.0.1", "-p", "0"});
      break;
    case Front::kNetperf:
      argv.push_back("netperf");
      if (!c.full_args) argv.insert(argv.end(), {"-H", "127.0.0.1", "-p", kDeadPort});
      break;
    case Front::kQperf:
      argv.push_back("qperf");
      if (!c.full_args) argv.insert(argv.end(), {"127.0.0.1", "-lp", kDeadPort});
      break;
  }
  argv.insert(argv.end(), c.args.begin(), c.args.end());
  for (auto& a : argv)
    if (a == kDeadPort) a = dead_port;
  // An empty last word is a test name for qperf's table; drop it.
  if (c.front == Front::kQperf && argv.back().empty()) argv.pop_back();
  return argv;
}

// Whether line names the option: it appears as a word of its own.
bool names_option(const std::string& line, const std::string& opt) {
  for (size_t at = line.find(opt); at != std::string::npos; at = line.find(opt, at + 1)) {
    const char before = at == 0 ? ' ' : line[at - 1];
    const char after = at + opt.size() < line.size() ? line[at + opt.size()] : ' ';
    const bool word_before = std::isalnum(static_cast<unsigned char>(before)) || before == '-';
    const bool word_after =
        std::isalnum(static_cast<unsigned char>(after)) || after == '-' || after == '_';
    if (!word_before && !word_after) return true;
  }
  return false;
}

class BadInputTest : public ::testing::TestWithParam<BadInput> {
 protected:
  // A port bound on 127.0.0.1 where nothing listens: connecting is refused.
  static void SetUpTestSuite() {
    dead_ = new net::Fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    ::bind(dead_->get(), reinterpret_cast<sockaddr*>(&a), sizeof a);
    ::getsockname(dead_->get(), reinterpret_cast<sockaddr*>(&a), &len);
    dead_port_ = std::to_string(ntohs(a.sin_port));
  }
  static void TearDownTestSuite() {
    delete dead_;
    dead_ = nullptr;
  }
  static net::Fd* dead_;
  static std::string dead_port_;
};
net::Fd* BadInputTest::dead_ = nullptr;
std::string BadInputTest::dead_port_;

// A bad option's exit code in each front end.
int usage_exit(Front f) { return f == Front::kNetperf || f == Front::kQperf ? 1 : 2; }

TEST_P(BadInputTest, RefusedWithOneLineNamingTheOptionAndTheToolsExitCode) {
  const BadInput& c = GetParam();
  ASSERT_NE(dead_port_, "0");
  const std::vector<std::string> argv = argv_for(c, dead_port_);
  std::string command;
  for (size_t i = 1; i < argv.size(); ++i) command += " '" + argv[i] + "'";
  SCOPED_TRACE("flowperf" + command);

  Process p(argv);
  // A server that wrongly starts runs until killed; anything else is quick.
  Outcome o = p.wait(c.front == Front::kServer ? 3s : 15s);

  std::vector<std::string> problems;
  if (o.signal != 0 && !o.timed_out)
    problems.push_back("killed by signal " + std::to_string(o.signal) + " (a crash)");
  if (o.timed_out) problems.push_back("still running after the time limit (the value was taken)");
  const int want = usage_exit(c.front);
  if (!o.timed_out && o.signal == 0 && o.exit_code != want)
    problems.push_back("exit code " + std::to_string(o.exit_code) + ", not " +
                       std::to_string(want));
  // The error: stderr without the "Run `flowperf --help`" pointer line.
  std::vector<std::string> lines;
  std::istringstream err(o.err);
  for (std::string line; std::getline(err, line);)
    if (!line.empty() && line.rfind("Run `", 0) != 0) lines.push_back(line);
  if (lines.size() != 1) problems.push_back(std::to_string(lines.size()) + " error lines");
  if (!lines.empty()) {
    bool named = false;
    for (const auto& n : c.names) named = named || names_option(lines[0], n);
    if (!named) problems.push_back("the error does not name the option");
  }

  std::string report;
  for (const auto& pr : problems) report += "\n  - " + pr;
  report += "\n  stderr: " + o.err.substr(0, 600) + "\n  stdout: " + o.out.substr(0, 300);
  EXPECT_EQ(o.signal == 0 || o.timed_out, true) << "crashed:" << report;
  if (!c.bug) {
    EXPECT_TRUE(problems.empty()) << report;
  } else if (problems.empty()) {
    ADD_FAILURE() << "marked as a known bug (" << c.bug
                  << ") but passes now: remove the marker from the table";
  } else {
    GTEST_SKIP() << "KNOWN " << c.bug << ":" << report;
  }
}

std::string case_name(const ::testing::TestParamInfo<BadInput>& info) { return info.param.name; }

INSTANTIATE_TEST_SUITE_P(Native, BadInputTest, ::testing::ValuesIn(native_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Server, BadInputTest, ::testing::ValuesIn(server_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Netperf, BadInputTest, ::testing::ValuesIn(netperf_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Qperf, BadInputTest, ::testing::ValuesIn(qperf_cases()), case_name);

// A mistyped option or test name gets the nearest known one, in each front
// end's own words, with its tool's exit code; nothing runs.
TEST(DidYouMean, EveryFrontEndOffersTheNearestName) {
  struct Case {
    std::vector<std::string> args;
    const char* says;
    int exit_code;
  } cases[] = {
      {{"--raet", "2000"}, "flowperf: --raet: unknown option; did you mean --rate?", 2},
      {{"-t", "TCP_SREAM"}, "-t TCP_SREAM: unknown test; did you mean TCP_STREAM?", 2},
      {{"server", "--max-test", "3"}, "--max-test: unknown option; did you mean --max-tests?", 2},
      {{"netperf", "-t", "TCP_SREAM"}, "(did you mean TCP_STREAM? known:", 1},
      {{"qperf", "127.0.0.1", "tcp_bww"}, "tcp_bww: bad test (did you mean tcp_bw?)", 1},
      {{"qperf", "127.0.0.1", "--msg_sise", "1", "tcp_bw"},
       "--msg_sise: bad option (did you mean --msg_size?)",
       1},
      {{"iperf3", "-c", "127.0.0.1", "--revrse"},
       "iperf3: unrecognized option '--revrse'\niperf3: did you mean '--reverse'?\n",
       1},
  };
  for (const Case& c : cases) {
    std::vector<std::string> argv = {kBin};
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    const Outcome o = Process(argv).wait(15s);
    SCOPED_TRACE(c.args[0] + " " + c.args[1]);
    ASSERT_FALSE(o.timed_out);
    EXPECT_EQ(o.exit_code, c.exit_code) << o.err;
    EXPECT_NE(o.err.find(c.says), std::string::npos) << o.err;
  }
}

}  // namespace
}  // namespace flowperf::testing
