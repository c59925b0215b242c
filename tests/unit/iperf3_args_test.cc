// Unit tests for cli/iperf3_args: iperf3 3.12's command line as getopt_long
// reads it (bundles, the four argument forms, optional arguments), every
// option's field, size and rate suffixes, 3.12's parameter errors word for
// word (../shared/protocols/iperf3-wire.md §16), client-only options on a
// server, refused options, and -h/-v.
#include "cli/iperf3_args.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

namespace flowperf::cli {
namespace {

std::vector<std::string> Words(std::vector<std::string> rest) {
  rest.insert(rest.begin(), "iperf3");
  return rest;
}

// Parses a command line that must be accepted.
Iperf3Args Ok(std::vector<std::string> rest) {
  auto p = parse_iperf3_args(Words(rest));
  EXPECT_TRUE(p.args.has_value()) << "err: " << p.err;
  EXPECT_EQ(p.exit_code, 0);
  return p.args.value_or(Iperf3Args{});
}

// Parses a command line that must fail with a parameter error; returns the
// message after "iperf3: parameter error - ".
std::string ParamError(std::vector<std::string> rest) {
  auto p = parse_iperf3_args(Words(rest));
  EXPECT_FALSE(p.args.has_value());
  EXPECT_EQ(p.exit_code, 1);
  const std::string head = "iperf3: parameter error - ";
  EXPECT_EQ(p.err.rfind(head, 0), 0u) << p.err;
  EXPECT_EQ(p.out, iperf3_usage()) << "usage goes to stdout";
  EXPECT_GE(p.err.size(), 2u);
  EXPECT_EQ(p.err.substr(p.err.size() - 2), "\n\n") << "an empty line follows: " << p.err;
  if (p.err.rfind(head, 0) != 0 || p.err.size() < head.size() + 2) return "";
  return p.err.substr(head.size(), p.err.size() - head.size() - 2);
}

// A refusal: one "parameter error" line on stderr, nothing on stdout.
std::string Refusal(std::vector<std::string> rest) {
  auto p = parse_iperf3_args(Words(rest));
  EXPECT_FALSE(p.args.has_value());
  EXPECT_EQ(p.exit_code, 1);
  EXPECT_EQ(p.out, "");
  EXPECT_EQ(p.err.rfind("iperf3: parameter error - ", 0), 0u) << p.err;
  EXPECT_EQ(p.err.find('\n'), p.err.size() - 1) << "one line: " << p.err;
  return p.err;
}

bool Contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(Iperf3Args, Defaults) {
  Iperf3Args a = Ok({"-c", "host"});
  EXPECT_EQ(a.mode, Iperf3Args::Mode::kClient);
  EXPECT_EQ(a.host, "host");
  EXPECT_EQ(a.port, 5201);
  EXPECT_EQ(a.format, 'a');
  EXPECT_EQ(a.interval_s, 1);
  EXPECT_EQ(a.affinity_local, -1);
  EXPECT_EQ(a.affinity_remote, -1);
  EXPECT_FALSE(a.timestamps.has_value());
  EXPECT_EQ(a.rcv_timeout_ms, 120000);
  EXPECT_EQ(a.debug, 0);
  EXPECT_EQ(a.family, IpFamily::kAny);
  EXPECT_FALSE(a.udp);
  EXPECT_EQ(a.connect_timeout_ms, -1);
  EXPECT_EQ(a.bitrate, 0u);
  EXPECT_FALSE(a.bitrate_given);
  EXPECT_EQ(a.burst, 0u);
  EXPECT_EQ(a.pacing_timer_us, 1000u);
  EXPECT_EQ(a.duration_s, 10);
  EXPECT_EQ(a.bytes, 0u);
  EXPECT_EQ(a.blocks, 0u);
  EXPECT_EQ(a.length, 0u);
  EXPECT_EQ(a.parallel, 1);
  EXPECT_EQ(a.window, 0u);
  EXPECT_EQ(a.mss, 0);
  EXPECT_EQ(a.tos, -1);
  EXPECT_EQ(a.flowlabel, 0);
  EXPECT_EQ(a.omit_s, 0);
  EXPECT_EQ(a.max_tests, 100u);
  EXPECT_FALSE(a.one_at_a_time);

  Iperf3Args s = Ok({"-s"});
  EXPECT_EQ(s.mode, Iperf3Args::Mode::kServer);
  EXPECT_EQ(s.host, "");
}

TEST(Iperf3Args, UdpWithoutBitrateGetsThe312Default) {
  Iperf3Args a = Ok({"-c", "h", "-u"});
  EXPECT_TRUE(a.udp);
  EXPECT_EQ(a.bitrate, 1048576u);
  EXPECT_FALSE(a.bitrate_given);
  EXPECT_EQ(a.length, 0u) << "0: the control connection's MSS, decided later";
}

TEST(Iperf3Args, BundlesAndTheFourArgumentForms) {
  Iperf3Args a = Ok({"-c", "h", "-uR"});
  EXPECT_TRUE(a.udp);
  EXPECT_TRUE(a.reverse);

  EXPECT_EQ(Ok({"-c", "h", "-t5"}).duration_s, 5);
  EXPECT_EQ(Ok({"-c", "h", "-t", "5"}).duration_s, 5);
  EXPECT_EQ(Ok({"-c", "h", "--time=5"}).duration_s, 5);
  EXPECT_EQ(Ok({"-c", "h", "--time", "5"}).duration_s, 5);

  // A bundle ending in an option with an argument takes the rest, or the next word.
  Iperf3Args b = Ok({"-uRt7", "-ch"});
  EXPECT_TRUE(b.udp);
  EXPECT_TRUE(b.reverse);
  EXPECT_EQ(b.duration_s, 7);
  EXPECT_EQ(b.host, "h");
  Iperf3Args c = Ok({"-NP", "3", "-c", "h"});
  EXPECT_TRUE(c.nodelay);
  EXPECT_EQ(c.parallel, 3);

  // An unambiguous prefix of a long option is that option (getopt_long).
  EXPECT_EQ(Ok({"-c", "h", "--para", "4"}).parallel, 4);
  // Operands are ignored, as 3.12 ignores them.
  EXPECT_EQ(Ok({"-c", "h", "stray", "-P", "2"}).parallel, 2);
  // "--" ends the options.
  EXPECT_EQ(Ok({"-c", "h", "--", "-P", "2"}).parallel, 1);
}

TEST(Iperf3Args, OptionalArgumentsOnlyAttached) {
  EXPECT_EQ(Ok({"-c", "h", "-d"}).debug, 4);
  EXPECT_EQ(Ok({"-c", "h", "-d3"}).debug, 3);
  EXPECT_EQ(Ok({"-c", "h", "-d=2"}).debug, 2);
  EXPECT_EQ(Ok({"-c", "h", "--debug"}).debug, 4);
  EXPECT_EQ(Ok({"-c", "h", "--debug=1"}).debug, 1);
  // Not taken from the next word: "3" is an ignored operand.
  Iperf3Args a = Ok({"-c", "h", "--debug", "3"});
  EXPECT_EQ(a.debug, 4);
  Iperf3Args b = Ok({"-c", "h", "-d", "-V"});
  EXPECT_EQ(b.debug, 4);
  EXPECT_TRUE(b.verbose);

  Iperf3Args t = Ok({"-c", "h", "--timestamps"});
  ASSERT_TRUE(t.timestamps.has_value());
  EXPECT_EQ(*t.timestamps, "");
  Iperf3Args f = Ok({"-c", "h", "--timestamps=%H:%M "});
  ASSERT_TRUE(f.timestamps.has_value());
  EXPECT_EQ(*f.timestamps, "%H:%M ");
}

struct FieldCase {
  std::vector<std::string> rest;  // after "-c h" (or alone when it has -s)
  std::function<bool(const Iperf3Args&)> check;
  const char* what;
};

TEST(Iperf3Args, EveryOptionSetsItsField) {
  const std::vector<FieldCase> cases = {
      {{"-p", "5299"}, [](auto& a) { return a.port == 5299; }, "-p"},
      {{"--port=1"}, [](auto& a) { return a.port == 1; }, "--port"},
      {{"-f", "m"}, [](auto& a) { return a.format == 'm'; }, "-f m"},
      {{"--format", "G"}, [](auto& a) { return a.format == 'G'; }, "--format G"},
      {{"-i", "0.5"}, [](auto& a) { return a.interval_s == 0.5; }, "-i"},
      {{"-i", "0"}, [](auto& a) { return a.interval_s == 0; }, "-i 0"},
      {{"-I", "/tmp/p"}, [](auto& a) { return a.pidfile == "/tmp/p"; }, "-I"},
      {{"-A", "2"}, [](auto& a) { return a.affinity_local == 2 && a.affinity_remote == -1; }, "-A"},
      {{"-A", "1,3"},
       [](auto& a) { return a.affinity_local == 1 && a.affinity_remote == 3; },
       "-A n,m"},
      {{"-B", "10.0.0.1"}, [](auto& a) { return a.bind_host == "10.0.0.1"; }, "-B"},
      {{"-B", "fe80::1%eth0"},
       [](auto& a) { return a.bind_host == "fe80::1%eth0"; },
       "-B link-local%scope"},
      {{"-V"}, [](auto& a) { return a.verbose; }, "-V"},
      {{"-J"}, [](auto& a) { return a.json; }, "-J"},
      {{"--json-stream"}, [](auto& a) { return a.json_stream && !a.json; }, "--json-stream"},
      {{"--logfile", "/tmp/l"}, [](auto& a) { return a.logfile == "/tmp/l"; }, "--logfile"},
      {{"--forceflush"}, [](auto& a) { return a.forceflush; }, "--forceflush"},
      {{"-R", "--rcv-timeout", "5000"},
       [](auto& a) { return a.rcv_timeout_ms == 5000; },
       "--rcv-timeout"},
      {{"-4"}, [](auto& a) { return a.family == IpFamily::kV4; }, "-4"},
      {{"--version6"}, [](auto& a) { return a.family == IpFamily::kV6; }, "--version6"},
      {{"-u"}, [](auto& a) { return a.udp; }, "-u"},
      {{"--connect-timeout", "3000"},
       [](auto& a) { return a.connect_timeout_ms == 3000; },
       "--connect-timeout"},
      {{"--pacing-timer", "500"},
       [](auto& a) { return a.pacing_timer_us == 500u; },
       "--pacing-timer"},
      {{"--fq-rate", "1M"}, [](auto& a) { return a.fq_rate == 1000000u; }, "--fq-rate"},
      {{"-t", "2"}, [](auto& a) { return a.duration_s == 2; }, "-t"},
      {{"-n", "1M"}, [](auto& a) { return a.bytes == 1048576u; }, "-n"},
      {{"-k", "100"}, [](auto& a) { return a.blocks == 100u; }, "-k"},
      {{"--blockcount=1k"}, [](auto& a) { return a.blocks == 1024u; }, "--blockcount"},
      {{"-l", "64K"}, [](auto& a) { return a.length == 65536u; }, "-l"},
      {{"--cport", "6000"}, [](auto& a) { return a.cport == 6000; }, "--cport"},
      {{"-P", "128"}, [](auto& a) { return a.parallel == 128; }, "-P"},
      {{"-R"}, [](auto& a) { return a.reverse && !a.bidir; }, "-R"},
      {{"--bidir"}, [](auto& a) { return a.bidir && !a.reverse; }, "--bidir"},
      {{"-w", "256K"}, [](auto& a) { return a.window == 262144u; }, "-w"},
      {{"-w", "512M"}, [](auto& a) { return a.window == 536870912u; }, "-w max"},
      {{"-C", "reno"}, [](auto& a) { return a.congestion == "reno"; }, "-C"},
      {{"--linux-congestion", "bbr"},
       [](auto& a) { return a.congestion == "bbr"; },
       "--linux-congestion"},
      {{"-M", "1000"}, [](auto& a) { return a.mss == 1000; }, "-M"},
      {{"-N"}, [](auto& a) { return a.nodelay; }, "-N"},
      {{"-S", "0x10"}, [](auto& a) { return a.tos == 16; }, "-S hex"},
      {{"-S", "064"}, [](auto& a) { return a.tos == 52; }, "-S octal"},
      {{"--tos", "52"}, [](auto& a) { return a.tos == 52; }, "--tos"},
      {{"--dscp", "46"}, [](auto& a) { return a.tos == 184; }, "--dscp 46"},
      {{"--dscp", "ef"}, [](auto& a) { return a.tos == 184; }, "--dscp ef"},
      {{"--dscp", "AF11"}, [](auto& a) { return a.tos == 40; }, "--dscp AF11"},
      {{"--dscp", "cs1"}, [](auto& a) { return a.tos == 32; }, "--dscp cs1"},
      {{"-L", "5"}, [](auto& a) { return a.flowlabel == 5; }, "-L"},
      {{"-L", "0xfffff"}, [](auto& a) { return a.flowlabel == 0xFFFFF; }, "-L max"},
      {{"-Z"}, [](auto& a) { return a.zerocopy; }, "-Z"},
      {{"-O", "60"}, [](auto& a) { return a.omit_s == 60; }, "-O"},
      {{"-T", "t"}, [](auto& a) { return a.title == "t"; }, "-T"},
      {{"--extra-data", "e"}, [](auto& a) { return a.extra_data == "e"; }, "--extra-data"},
      {{"--get-server-output"}, [](auto& a) { return a.get_server_output; }, "--get-server-output"},
      {{"--udp-counters-64bit"},
       [](auto& a) { return a.udp_counters_64bit; },
       "--udp-counters-64bit"},
      {{"--repeating-payload"}, [](auto& a) { return a.repeating_payload; }, "--repeating-payload"},
      {{"--dont-fragment"}, [](auto& a) { return a.dont_fragment; }, "--dont-fragment"},
      {{"--bandwidth", "2M"},
       [](auto& a) { return a.bitrate == 2000000u && a.bitrate_given; },
       "--bandwidth"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> rest = {"-c", "h"};
    rest.insert(rest.end(), c.rest.begin(), c.rest.end());
    auto p = parse_iperf3_args(Words(rest));
    ASSERT_TRUE(p.args.has_value()) << c.what << ": " << p.err;
    EXPECT_TRUE(c.check(*p.args)) << c.what;
  }

  const std::vector<FieldCase> server_cases = {
      {{"-s", "-D"}, [](auto& a) { return a.daemon; }, "-D"},
      {{"-s", "-1"}, [](auto& a) { return a.one_off; }, "-1"},
      {{"-s", "--one-off"}, [](auto& a) { return a.one_off; }, "--one-off"},
      {{"-s", "--idle-timeout", "30"},
       [](auto& a) { return a.idle_timeout_s == 30; },
       "--idle-timeout"},
      {{"-s", "--max-tests", "4"}, [](auto& a) { return a.max_tests == 4u; }, "--max-tests"},
      {{"-s", "--one-at-a-time"}, [](auto& a) { return a.one_at_a_time; }, "--one-at-a-time"},
      {{"-s", "-A", "3"}, [](auto& a) { return a.affinity_local == 3; }, "-s -A n"},
      {{"-s", "--udp-counters-64bit"},
       [](auto& a) { return a.udp_counters_64bit; },
       "-s --udp-counters-64bit (not client-only in 3.12)"},
      {{"-s", "--cport", "7"}, [](auto& a) { return a.cport == 7; }, "-s --cport"},
  };
  for (const auto& c : server_cases) {
    auto p = parse_iperf3_args(Words(c.rest));
    ASSERT_TRUE(p.args.has_value()) << c.what << ": " << p.err;
    EXPECT_EQ(p.args->mode, Iperf3Args::Mode::kServer) << c.what;
    EXPECT_TRUE(c.check(*p.args)) << c.what;
  }
}

TEST(Iperf3Args, BitrateSuffixesAndBurst) {
  Iperf3Args a = Ok({"-c", "h", "-u", "-b", "10M/100"});
  EXPECT_EQ(a.bitrate, 10000000u);
  EXPECT_EQ(a.burst, 100u);
  EXPECT_TRUE(a.bitrate_given);

  EXPECT_EQ(Ok({"-c", "h", "-b", "1k"}).bitrate, 1000u);
  EXPECT_EQ(Ok({"-c", "h", "-b", "2.5G"}).bitrate, 2500000000u);
  EXPECT_EQ(Ok({"-c", "h", "-b", "1T"}).bitrate, 1000000000000u);
  EXPECT_EQ(Ok({"-c", "h", "-b", "123"}).bitrate, 123u);

  Iperf3Args unlimited = Ok({"-c", "h", "-u", "-b", "0"});
  EXPECT_EQ(unlimited.bitrate, 0u);
  EXPECT_TRUE(unlimited.bitrate_given);

  // Sizes are 1024-based, rates 1000-based.
  EXPECT_EQ(Ok({"-c", "h", "-n", "1.5K"}).bytes, 1536u);
  EXPECT_EQ(Ok({"-c", "h", "-n", "2g"}).bytes, 2ull << 30);
  EXPECT_EQ(Ok({"-c", "h", "-n", "1T"}).bytes, 1ull << 40);
}

TEST(Iperf3Args, BytesOrBlocksWithoutTimeSendTimeZero) {
  Iperf3Args n = Ok({"-c", "h", "-n", "1M"});
  EXPECT_EQ(n.duration_s, 0);
  EXPECT_EQ(n.bytes, 1048576u);
  Iperf3Args k = Ok({"-c", "h", "-k", "100"});
  EXPECT_EQ(k.duration_s, 0);
  EXPECT_EQ(k.blocks, 100u);
  EXPECT_EQ(Ok({"-c", "h", "-t", "3"}).duration_s, 3);
}

TEST(Iperf3Args, UnknownOptionsAndMissingArguments) {
  auto check = [](std::vector<std::string> rest, const std::string& first_line) {
    auto p = parse_iperf3_args(Words(rest));
    EXPECT_FALSE(p.args.has_value());
    EXPECT_EQ(p.exit_code, 1);
    EXPECT_EQ(p.out, "");
    EXPECT_EQ(p.err, first_line + "\n" + iperf3_usage());
  };
  check({"-c", "h", "-p", "5299", "--bogus"}, "iperf3: unrecognized option '--bogus'");
  check({"-c", "h", "--bogus=1"}, "iperf3: unrecognized option '--bogus=1'");
  // A near long option is named after getopt's line.
  check({"-c", "h", "--revrse"},
        "iperf3: unrecognized option '--revrse'\niperf3: did you mean '--reverse'?");
  check({"-c", "h", "--lenght=100"},
        "iperf3: unrecognized option '--lenght=100'\niperf3: did you mean '--length'?");
  check({"-c", "h", "-Y"}, "iperf3: invalid option -- 'Y'");
  check({"-c", "h", "-uY"}, "iperf3: invalid option -- 'Y'");
  check({"-c", "h", "-t"}, "iperf3: option requires an argument -- 't'");
  check({"-c", "h", "-X"}, "iperf3: option requires an argument -- 'X'");
  check({"-c", "h", "--time"}, "iperf3: option '--time' requires an argument");
  check({"-c"}, "iperf3: option requires an argument -- 'c'");
  check({"-c", "h", "--udp=1"}, "iperf3: option '--udp' doesn't allow an argument");
  auto p = parse_iperf3_args(Words({"-c", "h", "--ti", "1"}));
  EXPECT_EQ(p.exit_code, 1);
  EXPECT_EQ(p.err.rfind("iperf3: option '--ti' is ambiguous; possibilities:", 0), 0u) << p.err;
}

TEST(Iperf3Args, ParameterErrorsIn312sWords) {
  // §16, recorded from 3.12.
  EXPECT_EQ(ParamError({"-c", "h", "-u", "-l", "70000"}),
            "block size invalid (minimum = 16 bytes, maximum = 65507 bytes)");
  EXPECT_EQ(ParamError({"-c", "h", "-u", "-l", "15"}),
            "block size invalid (minimum = 16 bytes, maximum = 65507 bytes)");
  EXPECT_EQ(ParamError({"-c", "h", "-l", "2M"}), "block size too large (maximum = 1048576 bytes)");
  EXPECT_EQ(ParamError({"-c", "h", "-P", "200"}),
            "number of parallel streams too large (maximum = 128)");
  EXPECT_EQ(ParamError({"-c", "h", "-R", "--bidir"}), "cannot be both reverse and bidirectional");
  EXPECT_EQ(ParamError({"-c", "h", "--bidir", "-R"}), "cannot be both reverse and bidirectional");
  EXPECT_EQ(ParamError({"-c", "h", "-t", "86401"}),
            "test duration too long (maximum = 86400 seconds)");
  EXPECT_EQ(ParamError({"-c", "h", "-w", "600M"}),
            "socket buffer size too large (maximum = 536870912 bytes)");
  EXPECT_EQ(ParamError({"-c", "h", "-M", "40000"}), "TCP MSS too large (maximum = 9216 bytes)");
  EXPECT_EQ(ParamError({"-c", "h", "-M", "32767"}), "TCP MSS too large (maximum = 9216 bytes)");
  EXPECT_EQ(ParamError({"-c", "h", "-b", "1M/1001"}), "invalid burst count (maximum = 1000)");
  EXPECT_EQ(ParamError({"-c", "h", "-b", "1M/0"}), "invalid burst count (maximum = 1000)");
  EXPECT_EQ(ParamError({"-c", "h", "-O", "61"}), "bogus value for --omit");
  EXPECT_EQ(ParamError({"-c", "h", "-O", "-1"}), "bogus value for --omit");
  EXPECT_EQ(ParamError({"-c", "h", "-S", "256"}),
            "bad TOS value (must be between 0 and 255 inclusive)");
  EXPECT_EQ(ParamError({"-c", "h", "--dscp", "64"}),
            "bad TOS value (must be between 0 and 255 inclusive)");
  EXPECT_EQ(ParamError({"-c", "h", "-6", "-L", "0"}), "unable to set IPv6 flow label");
  EXPECT_EQ(ParamError({"-c", "h", "-6", "-L", "1048576"}), "unable to set IPv6 flow label");

  // 3.12's own words for cases §16 did not record.
  EXPECT_EQ(ParamError({"-t", "5"}), "must either be a client (-c) or server (-s)");
  EXPECT_EQ(ParamError({}), "must either be a client (-c) or server (-s)");
  EXPECT_EQ(ParamError({"-s", "-c", "h"}), "cannot be both server and client");
  EXPECT_EQ(ParamError({"-c", "h", "-s"}), "cannot be both server and client");
  EXPECT_EQ(ParamError({"-c", "h", "-n", "1M", "-k", "5"}),
            "only one test end condition (-t, -n, -k) may be specified");
  EXPECT_EQ(ParamError({"-c", "h", "-t", "5", "-n", "1M"}),
            "only one test end condition (-t, -n, -k) may be specified");
  EXPECT_EQ(ParamError({"-c", "h", "-i", "0.05"}),
            "invalid report interval (min = 0.1, max = 60 seconds)");
  EXPECT_EQ(ParamError({"-c", "h", "-i", "61"}),
            "invalid report interval (min = 0.1, max = 60 seconds)");
  EXPECT_EQ(ParamError({"-c", "h", "-f", "x"}),
            "bad format specifier (valid formats are in the set [kmgtKMGT])");
  EXPECT_EQ(ParamError({"-c", "h", "-p", "0"}),
            "port number must be between 1 and 65535 inclusive");
  EXPECT_EQ(ParamError({"-c", "h", "-p", "65536"}),
            "port number must be between 1 and 65535 inclusive");
  EXPECT_EQ(ParamError({"-s", "--idle-timeout", "0"}),
            "idle timeout parameter is not positive or larger than allowed limit");
  EXPECT_EQ(ParamError({"-c", "h", "-R", "--rcv-timeout", "99"}),
            "receive timeout value is incorrect or not in range");
  EXPECT_EQ(ParamError({"-c", "h", "--rcv-timeout", "5000"}),
            "client receive timeout is valid only in receiving mode");
}

TEST(Iperf3Args, MalformedNumbersSayWhatWasWrong) {
  for (auto rest : std::vector<std::vector<std::string>>{{"-t", "abc"},
                                                         {"-t", "-5"},
                                                         {"-t", "5s"},
                                                         {"-t", "3.x"},
                                                         {"-P", "x"},
                                                         {"-P", "0"},
                                                         {"-n", "-1"},
                                                         {"-n", "1X"},
                                                         {"-l", "abc"},
                                                         {"-w", "-1K"},
                                                         {"-b", "fast"},
                                                         {"-b", "-1M"},
                                                         {"-i", "abc"},
                                                         {"-A", "x"},
                                                         {"-M", "-1"},
                                                         {"-O", "z"},
                                                         {"-p", "http"},
                                                         {"--fq-rate", "1Q"}}) {
    std::vector<std::string> full = {"-c", "h"};
    full.insert(full.end(), rest.begin(), rest.end());
    std::string m = ParamError(full);
    EXPECT_FALSE(m.empty()) << rest[0] << " " << rest[1];
    if (m.rfind("invalid value", 0) == 0) {
      EXPECT_TRUE(Contains(m, "'" + rest[1] + "'")) << m;
      EXPECT_TRUE(Contains(m, rest[0])) << m;
    }
  }
  std::string t = ParamError({"-c", "h", "--time", "abc"});
  EXPECT_EQ(t, "invalid value 'abc' for --time (expected a whole number of seconds)");
  // As 3.12's atoi: a fraction is dropped, other trailing text is not.
  EXPECT_EQ(Ok({"-c", "h", "-t", "3.0"}).duration_s, 3);
  EXPECT_EQ(Ok({"-c", "h", "-P", "2.9"}).parallel, 2);
  EXPECT_FALSE(ParamError({"-c", "h", "-t", "3.0s"}).empty());
}

TEST(Iperf3Args, ClientOnlyOptionsOnAServer) {
  for (auto opt : std::vector<std::vector<std::string>>{{"-u"},
                                                        {"-t", "5"},
                                                        {"-b", "1M"},
                                                        {"-n", "1M"},
                                                        {"-k", "5"},
                                                        {"-l", "1K"},
                                                        {"-P", "2"},
                                                        {"-R"},
                                                        {"--bidir"},
                                                        {"-w", "1M"},
                                                        {"-C", "reno"},
                                                        {"-M", "1000"},
                                                        {"-N"},
                                                        {"-S", "8"},
                                                        {"--dscp", "ef"},
                                                        {"-L", "5"},
                                                        {"-Z"},
                                                        {"-O", "1"},
                                                        {"-T", "t"},
                                                        {"--extra-data", "x"},
                                                        {"--get-server-output"},
                                                        {"--repeating-payload"},
                                                        {"--dont-fragment"},
                                                        {"--fq-rate", "1M"},
                                                        {"--pacing-timer", "10"},
                                                        {"--connect-timeout", "10"},
                                                        {"-A", "1,2"}}) {
    std::vector<std::string> rest = {"-s"};
    rest.insert(rest.end(), opt.begin(), opt.end());
    EXPECT_EQ(ParamError(rest), "some option you are trying to set is client only") << opt[0];
  }
  for (auto opt : std::vector<std::vector<std::string>>{
           {"-D"}, {"-1"}, {"--idle-timeout", "5"}, {"--max-tests", "2"}, {"--one-at-a-time"}}) {
    std::vector<std::string> rest = {"-c", "h"};
    rest.insert(rest.end(), opt.begin(), opt.end());
    EXPECT_EQ(ParamError(rest), "some option you are trying to set is server only") << opt[0];
  }
}

TEST(Iperf3Args, RefusedOptions) {
  EXPECT_TRUE(Contains(Refusal({"-c", "h", "--sctp"}), "SCTP"));
  EXPECT_TRUE(Contains(Refusal({"-c", "h", "--nstreams", "2"}), "SCTP"));
  EXPECT_TRUE(Contains(Refusal({"-c", "h", "-X", "a"}), "SCTP"));
  EXPECT_TRUE(Contains(Refusal({"-c", "h", "-F", "f"}), "file"));
  EXPECT_TRUE(Contains(Refusal({"-c", "h", "--file", "f"}), "--file"));
  EXPECT_TRUE(Contains(Refusal({"-c", "h", "-B", "10.0.0.1%eth0"}),
                       "binding to a device with -B host%dev is not supported"));
  EXPECT_TRUE(Contains(Refusal({"-c", "h", "--bind-dev", "eth0"}), "use -B with an address"));
  EXPECT_TRUE(Contains(Refusal({"-c", "h%eth0"}), "%dev"));
  EXPECT_TRUE(Contains(Refusal({"-c", "h", "--snd-timeout", "10"}), "--snd-timeout"));
  EXPECT_TRUE(Contains(Refusal({"-s", "--server-bitrate-limit", "1M"}), "--server-bitrate-limit"));
  // Not refused: a field the front end honours.
  EXPECT_TRUE(Ok({"-c", "h", "--dont-fragment"}).dont_fragment);
  // -L is parsed; refusing it is the front end's business.
  EXPECT_EQ(Ok({"-c", "h", "-6", "-L", "5"}).flowlabel, 5);
}

// 3.12's rules for the authentication options, its messages word for word
// (checked against Debian's 3.12). Reading the files is the front end's.
TEST(Iperf3Args, AuthenticationOptions) {
  const Iperf3Args c = Ok({"-c", "h", "--username", "mario", "--rsa-public-key-path", "pub.pem"});
  EXPECT_TRUE(c.client_auth);
  EXPECT_EQ(c.username, "mario");
  EXPECT_EQ(c.rsa_public_key_path, "pub.pem");
  EXPECT_FALSE(Ok({"-c", "h"}).client_auth);

  const Iperf3Args s = Ok({"-s", "--rsa-private-key-path", "k.pem", "--authorized-users-path",
                           "u.csv", "--time-skew-threshold", "30"});
  EXPECT_TRUE(s.server_auth);
  EXPECT_EQ(s.rsa_private_key_path, "k.pem");
  EXPECT_EQ(s.authorized_users_path, "u.csv");
  EXPECT_EQ(s.time_skew_threshold_s, 30);
  EXPECT_EQ(Ok({"-s", "--rsa-private-key-path", "k", "--authorized-users-path", "u"})
                .time_skew_threshold_s,
            10);
  // A threshold without the key and users is taken and unused, as in 3.12.
  EXPECT_FALSE(Ok({"-s", "--time-skew-threshold", "5"}).server_auth);

  const std::string client_auth =
      "you must specify a username, password, and path to a valid RSA public key";
  EXPECT_EQ(ParamError({"-c", "h", "--username", "mario"}), client_auth);
  EXPECT_EQ(ParamError({"-c", "h", "--rsa-public-key-path", "p"}), client_auth);
  const std::string server_auth =
      "you must specify a path to a valid RSA private key and a user credential file";
  EXPECT_EQ(ParamError({"-s", "--rsa-private-key-path", "k"}), server_auth);
  EXPECT_EQ(ParamError({"-s", "--authorized-users-path", "u"}), server_auth);
  for (auto opt : {"--rsa-private-key-path", "--authorized-users-path", "--time-skew-threshold"})
    EXPECT_EQ(ParamError({"-c", "h", opt, "5"}), "some option you are trying to set is server only")
        << opt;
  for (auto opt : {"--username", "--rsa-public-key-path"})
    EXPECT_EQ(ParamError({"-s", opt, "x"}), "some option you are trying to set is client only")
        << opt;
  for (auto bad : {"0", "-3", "abc", ""})
    EXPECT_EQ(ParamError({"-s", "--time-skew-threshold", bad}),
              "skew threshold must be a positive number")
        << bad;

  // --use-pkcs1-padding: OAEP unless given, on either end; alone it would do
  // nothing, and is refused saying what it goes with.
  EXPECT_FALSE(s.use_pkcs1_padding);
  EXPECT_TRUE(Ok({"-s", "--rsa-private-key-path", "k", "--authorized-users-path", "u",
                  "--use-pkcs1-padding"})
                  .use_pkcs1_padding);
  EXPECT_TRUE(
      Ok({"-c", "h", "--username", "mario", "--rsa-public-key-path", "p", "--use-pkcs1-padding"})
          .use_pkcs1_padding);
  EXPECT_NE(ParamError({"-s", "--use-pkcs1-padding"}).find("give --rsa-private-key-path"),
            std::string::npos);
  EXPECT_NE(ParamError({"-c", "h", "--use-pkcs1-padding"}).find("give --username"),
            std::string::npos);
}

TEST(Iperf3Args, HelpAndVersion) {
  for (auto w : {"-h", "--help"}) {
    auto p = parse_iperf3_args(Words({w}));
    EXPECT_FALSE(p.args.has_value());
    EXPECT_EQ(p.exit_code, 0);
    EXPECT_EQ(p.out, iperf3_usage());
    EXPECT_EQ(p.err, "");
  }
  for (auto w : {"-v", "--version"}) {
    auto p = parse_iperf3_args(Words({"-c", "h", w}));
    EXPECT_FALSE(p.args.has_value());
    EXPECT_EQ(p.exit_code, 0);
    EXPECT_EQ(p.out.rfind("iperf 3.12 (flowperf", 0), 0u) << p.out;
    EXPECT_TRUE(Contains(p.out, "iperf3 personality")) << p.out;
    EXPECT_GE(std::count(p.out.begin(), p.out.end(), '\n'), 2) << "a system line follows";
    EXPECT_EQ(p.err, "");
  }
  // An error before -h wins, as getopt meets it first.
  EXPECT_EQ(parse_iperf3_args(Words({"--bogus", "-h"})).exit_code, 1);
}

TEST(Iperf3Args, UsageListsIperf3sOptions) {
  std::string u = iperf3_usage();
  EXPECT_EQ(u.rfind("Usage: iperf3 [-s|-c host] [options]\n", 0), 0u);
  for (auto part : {"Server or Client:", "Server specific:", "Client specific:", "-p, --port",
                    "-f, --format   [kmgtKMGT]", "-A, --affinity n/n,m", "--timestamps<=format>",
                    "-d, --debug[=#]", "-b, --bitrate #[KMG][/#]", "-k, --blockcount #[KMG]",
                    "--cport         <port>", "-C, --congestion <algo>", "--dscp N or --dscp val",
                    "--dont-fragment", "--max-tests", "--one-at-a-time", "--idle-timeout #"})
    EXPECT_TRUE(Contains(u, part)) << part;
}

// 3.19-3.21's options: --cntl-ka at either end with its three optional
// parts, --server-max-duration on the server, --json-stream-full-output at
// either end; -m, --skip-rx-copy and --gsro refused by name until built.
TEST(Iperf3Args, OptionsOf321) {
  for (const char* role : {"-s", "-c"}) {
    std::vector<std::string> base = {role};
    if (std::string(role) == "-c") base.push_back("h");
    auto with = [&](std::vector<std::string> more) {
      std::vector<std::string> w = base;
      w.insert(w.end(), more.begin(), more.end());
      return w;
    };
    SCOPED_TRACE(role);
    EXPECT_FALSE(Ok(with({})).control_keepalive.has_value());
    auto k = Ok(with({"--cntl-ka"})).control_keepalive;
    ASSERT_TRUE(k.has_value());
    EXPECT_EQ(k->idle_s + k->interval_s + k->count, 0);
    k = Ok(with({"--cntl-ka=30/5/3"})).control_keepalive;
    ASSERT_TRUE(k.has_value());
    EXPECT_EQ(k->idle_s, 30);
    EXPECT_EQ(k->interval_s, 5);
    EXPECT_EQ(k->count, 3);
    k = Ok(with({"--cntl-ka=//4"})).control_keepalive;
    ASSERT_TRUE(k.has_value());
    EXPECT_EQ(k->idle_s, 0);
    EXPECT_EQ(k->count, 4);
    EXPECT_EQ(ParamError(with({"--cntl-ka=5/2/3"})),
              "control connection Keepalive period should be larger than the full retry period "
              "(interval * count): ");
    EXPECT_TRUE(Contains(ParamError(with({"--cntl-ka=x"})), "30/5/3"));
    EXPECT_TRUE(Contains(ParamError(with({"--cntl-ka=1/2/3/4"})), "at most three parts"));
    EXPECT_TRUE(Ok(with({"--json-stream-full-output"})).json_stream_full_output);
    EXPECT_TRUE(Contains(Refusal(with({"-m"})), "MPTCP"));
  }
  EXPECT_EQ(Ok({"-s", "--server-max-duration", "30"}).server_max_duration_s, 30);
  EXPECT_EQ(Ok({"-s"}).server_max_duration_s, 0);
  EXPECT_EQ(ParamError({"-s", "--server-max-duration", "86401"}),
            "test duration valid values are 0 to 86400 seconds");
  EXPECT_EQ(ParamError({"-c", "h", "--server-max-duration", "30"}),
            "some option you are trying to set is server only");
  EXPECT_TRUE(Contains(Refusal({"-c", "h", "--skip-rx-copy"}), "MSG_TRUNC"));
  EXPECT_TRUE(Contains(Refusal({"-c", "h", "--gsro"}), "GSO/GRO"));
  for (auto part : {"--cntl-ka[=#/#/#]", "-m, --mptcp", "--server-max-duration #",
                    "--json-stream-full-output", "--skip-rx-copy", "--gsro"})
    EXPECT_TRUE(Contains(iperf3_usage(), part)) << part;
}

}  // namespace
}  // namespace flowperf::cli
