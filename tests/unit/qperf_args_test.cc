// Unit tests for cli/qperf_args: qperf's size and time syntax, server or
// client mode, settings that apply to the tests named after them, test
// defaults, -oo loops, the -v family, obsolete names, unused-option warnings,
// the parameters -vu shows, and one-line errors for bad input.
#include "cli/qperf_args.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.h"

namespace flowperf::cli::qperf {
namespace {

uint64_t Size(const std::string& text) {
  uint64_t v = 0;
  std::string why;
  EXPECT_TRUE(parse_qperf_size(text, &v, &why)) << text << ": " << why;
  return v;
}

std::string SizeError(const std::string& text) {
  uint64_t v = 0;
  std::string why;
  EXPECT_FALSE(parse_qperf_size(text, &v, &why)) << text << " parsed as " << v;
  return why;
}

double Time(const std::string& text) {
  double v = 0;
  std::string why;
  EXPECT_TRUE(parse_qperf_time(text, &v, &why)) << text << ": " << why;
  return v;
}

bool TimeFails(const std::string& text) {
  double v = 0;
  std::string why;
  return !parse_qperf_time(text, &v, &why) && !why.empty();
}

Args Parse(std::vector<std::string> words) { return parse_args(words); }

// The one-line message of the usage error parsing throws (fails if none).
std::string ErrorOf(std::vector<std::string> words) {
  try {
    parse_args(words);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kUsage);
    std::string m = e.what();
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    return m;
  }
  ADD_FAILURE() << "no error";
  return "";
}

bool Contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// ---- sizes and times ------------------------------------------------------

TEST(QperfSize, PlainBytes) {
  EXPECT_EQ(Size("0"), 0u);
  EXPECT_EQ(Size("1"), 1u);
  EXPECT_EQ(Size("1500"), 1500u);
}

TEST(QperfSize, UpperCaseLettersAndIbFormsAre1024Based) {
  EXPECT_EQ(Size("64K"), 65536u);
  EXPECT_EQ(Size("64kib"), 65536u);
  EXPECT_EQ(Size("64KiB"), 65536u);
  EXPECT_EQ(Size("2M"), 2u << 20);
  EXPECT_EQ(Size("2mib"), 2u << 20);
  EXPECT_EQ(Size("1G"), 1u << 30);
  EXPECT_EQ(Size("1gib"), 1u << 30);
}

TEST(QperfSize, LowerCaseLettersAndBFormsAre1000Based) {
  EXPECT_EQ(Size("64k"), 64000u);
  EXPECT_EQ(Size("64kb"), 64000u);
  EXPECT_EQ(Size("64kB"), 64000u);
  EXPECT_EQ(Size("2m"), 2000000u);
  EXPECT_EQ(Size("2mb"), 2000000u);
  EXPECT_EQ(Size("1g"), 1000000000u);
  EXPECT_EQ(Size("1GB"), 1000000000u);
}

TEST(QperfSize, FractionsMustComeToWholeBytes) {
  EXPECT_EQ(Size("1.5K"), 1536u);
  EXPECT_EQ(Size("0.5k"), 500u);
  EXPECT_EQ(Size("2.0"), 2u);
  EXPECT_TRUE(Contains(SizeError("1.3"), "whole number of bytes"));
  EXPECT_TRUE(Contains(SizeError("0.0001k"), "whole number of bytes"));
}

TEST(QperfSize, RejectsJunk) {
  EXPECT_TRUE(Contains(SizeError("12Q"), "'Q'"));
  EXPECT_TRUE(Contains(SizeError("12Q"), "1024"));
  EXPECT_FALSE(SizeError("").empty());
  EXPECT_FALSE(SizeError("K").empty());
  EXPECT_FALSE(SizeError("-1").empty());
  EXPECT_FALSE(SizeError(".5K").empty());
  EXPECT_FALSE(SizeError("1 K").empty());
  EXPECT_EQ(Size("64Kb"), 64000u);  // the two-letter forms in any case
  EXPECT_FALSE(SizeError("1KK").empty());
  EXPECT_FALSE(SizeError("99999999999999999").empty());
}

TEST(QperfTime, SecondsAndSuffixes) {
  EXPECT_DOUBLE_EQ(Time("2"), 2);
  EXPECT_DOUBLE_EQ(Time("0.2"), 0.2);
  EXPECT_DOUBLE_EQ(Time("10s"), 10);
  EXPECT_DOUBLE_EQ(Time("3S"), 3);
  EXPECT_DOUBLE_EQ(Time("1m"), 60);
  EXPECT_DOUBLE_EQ(Time("1.5M"), 90);
  EXPECT_DOUBLE_EQ(Time("2h"), 7200);
  EXPECT_DOUBLE_EQ(Time("1d"), 86400);
}

TEST(QperfTime, RejectsJunk) {
  EXPECT_TRUE(TimeFails(""));
  EXPECT_TRUE(TimeFails("abc"));
  EXPECT_TRUE(TimeFails("1x"));
  EXPECT_TRUE(TimeFails("1ms"));
  EXPECT_TRUE(TimeFails(".5"));
  EXPECT_TRUE(TimeFails("5."));
  EXPECT_TRUE(TimeFails("-1"));
}

// ---- modes --------------------------------------------------------------------

TEST(QperfMode, NoArgumentsServesOnTheDefaultPort) {
  Args a = Parse({});
  EXPECT_EQ(a.mode, Args::Mode::kServer);
  EXPECT_EQ(a.listen_port, 19765);
  EXPECT_TRUE(a.runs.empty());
}

TEST(QperfMode, ServerOptionsKeepServerMode) {
  Args a = Parse({"-lp", "5000"});
  EXPECT_EQ(a.mode, Args::Mode::kServer);
  EXPECT_EQ(a.listen_port, 5000);
  a = Parse({"--listen_port", "6000", "-D", "-lto", "7"});
  EXPECT_EQ(a.mode, Args::Mode::kServer);
  EXPECT_EQ(a.listen_port, 6000);
  EXPECT_DOUBLE_EQ(a.server_timeout_s, 7);
}

TEST(QperfMode, HelpAndVersionWinWhereTheyAppear) {
  Args a = Parse({"--help"});
  EXPECT_EQ(a.mode, Args::Mode::kHelp);
  EXPECT_EQ(a.help_topic, "main");
  a = Parse({"-h", "tests"});
  EXPECT_EQ(a.help_topic, "tests");
  a = Parse({"host", "--help", "tcp_bw"});
  EXPECT_EQ(a.mode, Args::Mode::kHelp);
  EXPECT_EQ(a.help_topic, "tcp_bw");
  EXPECT_EQ(Parse({"-V"}).mode, Args::Mode::kVersion);
  EXPECT_EQ(Parse({"host", "--version"}).mode, Args::Mode::kVersion);
}

TEST(QperfMode, ClientRunsTestsInOrder) {
  Args a = Parse({"10.0.0.2", "tcp_bw", "tcp_lat", "udp_bw", "udp_lat", "conf", "quit"});
  EXPECT_EQ(a.mode, Args::Mode::kClient);
  ASSERT_EQ(a.runs.size(), 6u);
  const char* names[] = {"tcp_bw", "tcp_lat", "udp_bw", "udp_lat", "conf", "quit"};
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_STREQ(a.runs[i].test.name, names[i]);
    EXPECT_EQ(a.runs[i].host, "10.0.0.2");
    EXPECT_EQ(a.runs[i].listen_port, 19765);
  }
}

TEST(QperfMode, HostOptionThenTests) {
  Args a = Parse({"-H", "server1", "-lp", "19766", "tcp_lat"});
  ASSERT_EQ(a.runs.size(), 1u);
  EXPECT_EQ(a.runs[0].host, "server1");
  EXPECT_EQ(a.runs[0].listen_port, 19766);
  EXPECT_EQ(Parse({"--host", "s2", "udp_lat"}).runs[0].host, "s2");
}

TEST(QperfMode, ClientMistakesAreExplained) {
  EXPECT_TRUE(Contains(ErrorOf({"-t", "5"}), "did not give the server's name"));
  EXPECT_TRUE(Contains(ErrorOf({"tcp_bw"}), "must specify host name first"));
  EXPECT_TRUE(Contains(ErrorOf({"myhost"}), "must specify a test type"));
  EXPECT_EQ(ErrorOf({"myhost", "tcp_bandwidth"}),
            "tcp_bandwidth: bad test; try: qperf --help tests");
  // A near name is offered, in qperf's words around it.
  EXPECT_EQ(ErrorOf({"myhost", "tcp_bww"}),
            "tcp_bww: bad test (did you mean tcp_bw?); try: qperf --help tests");
  EXPECT_EQ(ErrorOf({"myhost", "udplat"}),
            "udplat: bad test (did you mean udp_lat?); try: qperf --help tests");
  EXPECT_EQ(ErrorOf({"myhost", "--msg_sise", "1", "tcp_bw"}),
            "--msg_sise: bad option (did you mean --msg_size?); try: qperf --help options");
}

// ---- settings and defaults -----------------------------------------------------

TEST(QperfDefaults, MessageSizeTimeAndTimeoutPerTest) {
  Args a = Parse({"h", "tcp_bw", "udp_bw", "tcp_lat", "udp_lat"});
  const double sizes[] = {65536, 32768, 1, 1};
  for (size_t i = 0; i < 4; ++i) {
    const Params& p = a.runs[i].params;
    EXPECT_EQ(p[Param::kMsgSize].loc.num, sizes[i]) << i;
    EXPECT_EQ(p[Param::kMsgSize].rem.num, sizes[i]) << i;
    EXPECT_FALSE(p[Param::kMsgSize].loc.set());
    EXPECT_EQ(p[Param::kTime].loc.num, 2);
    EXPECT_FALSE(p[Param::kTime].loc.set());
    EXPECT_EQ(p[Param::kTimeout].loc.num, 5);
    EXPECT_EQ(a.runs[i].display, report::QperfDisplay{});
    EXPECT_DOUBLE_EQ(a.runs[i].wait_server_s, 5);
  }
}

TEST(QperfDefaults, CountReplacesTheDefaultTime) {
  Args a = Parse({"h", "-n", "1000", "tcp_lat"});
  const Params& p = a.runs[0].params;
  EXPECT_EQ(p[Param::kNoMsgs].loc.num, 1000);
  EXPECT_EQ(p[Param::kNoMsgs].loc.set_by, "-n");
  EXPECT_EQ(p[Param::kTime].loc.num, 0);
}

TEST(QperfSettings, OptionsApplyToTheTestsAfterThem) {
  Args a = Parse({"h", "-t", "5", "tcp_bw", "-t", "10", "-m", "4K", "tcp_lat", "udp_lat"});
  ASSERT_EQ(a.runs.size(), 3u);
  EXPECT_EQ(a.runs[0].params[Param::kTime].loc.num, 5);
  EXPECT_EQ(a.runs[0].params[Param::kMsgSize].loc.num, 65536);
  EXPECT_EQ(a.runs[1].params[Param::kTime].loc.num, 10);
  EXPECT_EQ(a.runs[1].params[Param::kMsgSize].loc.num, 4096);
  EXPECT_EQ(a.runs[1].params[Param::kMsgSize].loc.set_by, "-m");
  EXPECT_EQ(a.runs[2].params[Param::kMsgSize].loc.num, 4096);
}

TEST(QperfSettings, LocalAndRemoteForms) {
  Args a = Parse({"h", "-lsb", "64K", "--rem_sock_buf_size", "1M", "-lca", "1", "tcp_bw"});
  const Params& p = a.runs[0].params;
  EXPECT_EQ(p[Param::kSockBufSize].loc.num, 65536);
  EXPECT_EQ(p[Param::kSockBufSize].rem.num, 1 << 20);
  EXPECT_EQ(p[Param::kAffinity].loc.text, "1");
  EXPECT_FALSE(p[Param::kAffinity].rem.set());
  a = Parse({"h", "-ca", "any", "-sb", "2K", "tcp_bw"});
  EXPECT_EQ(a.runs[0].params[Param::kAffinity].loc.num, -1);
  EXPECT_EQ(a.runs[0].params[Param::kAffinity].rem.num, -1);
  EXPECT_EQ(a.runs[0].params[Param::kSockBufSize].rem.num, 2048);
}

TEST(QperfSettings, FlipAndFlagsThatSetOne) {
  Args a = Parse({"h", "-f1", "-ar1", "tcp_bw", "-f", "0", "tcp_bw"});
  EXPECT_EQ(a.runs[0].params[Param::kFlip].loc.num, 1);
  EXPECT_EQ(a.runs[0].params[Param::kAccessRecv].rem.num, 1);
  EXPECT_EQ(a.runs[1].params[Param::kFlip].loc.num, 0);
  EXPECT_EQ(Parse({"h", "--flip", "1", "tcp_bw"}).runs[0].params[Param::kFlip].loc.set_by,
            "--flip");
}

TEST(QperfSettings, DisplayOptions) {
  Args a = Parse({"h", "-e", "5", "-uu", "-ub", "-un", "-ws", "0", "-ip", "7000", "tcp_bw"});
  const qperf::Run& r = a.runs[0];
  EXPECT_EQ(r.display.precision, 5);
  EXPECT_TRUE(r.display.unify_units);
  EXPECT_TRUE(r.display.bits_per_sec);
  EXPECT_TRUE(r.display.unify_nodes);
  EXPECT_DOUBLE_EQ(r.wait_server_s, 0);
  EXPECT_EQ(r.params[Param::kPort].loc.num, 7000);
}

TEST(QperfSettings, ObsoleteNamesWorkWithAWarning) {
  Args a = Parse({"h", "-a", "1", "-S", "8K", "tcp_bw"});
  ASSERT_EQ(a.warnings.size(), 2u);
  EXPECT_EQ(a.warnings[0], "warning: obsolete option: -a; use -ca instead");
  EXPECT_EQ(a.warnings[1], "warning: obsolete option: -S; use -sb instead");
  EXPECT_EQ(a.runs[0].params[Param::kAffinity].loc.text, "1");
  EXPECT_EQ(a.runs[0].params[Param::kSockBufSize].loc.num, 8192);
}

// ---- verbosity --------------------------------------------------------------

report::QperfVerbosity VerbosityOf(std::vector<std::string> flags) {
  flags.insert(flags.begin(), "h");
  flags.push_back("tcp_bw");
  return Parse(flags).runs[0].display.verbose;
}

TEST(QperfVerbose, EachClassAlone) {
  EXPECT_EQ(VerbosityOf({"-vc"}), (report::QperfVerbosity{1, 0, 0, 0}));
  EXPECT_EQ(VerbosityOf({"-vs"}), (report::QperfVerbosity{0, 1, 0, 0}));
  EXPECT_EQ(VerbosityOf({"-vt"}), (report::QperfVerbosity{0, 0, 1, 0}));
  EXPECT_EQ(VerbosityOf({"-vu"}), (report::QperfVerbosity{0, 0, 0, 1}));
  EXPECT_EQ(VerbosityOf({"-vvc"}), (report::QperfVerbosity{2, 0, 0, 0}));
  EXPECT_EQ(VerbosityOf({"-vvs"}), (report::QperfVerbosity{0, 2, 0, 0}));
  EXPECT_EQ(VerbosityOf({"-vvt"}), (report::QperfVerbosity{0, 0, 2, 0}));
  EXPECT_EQ(VerbosityOf({"-vvu"}), (report::QperfVerbosity{0, 0, 0, 2}));
}

TEST(QperfVerbose, LongForms) {
  EXPECT_EQ(VerbosityOf({"--verbose_conf", "--verbose_stat", "--verbose_time", "--verbose_used"}),
            (report::QperfVerbosity{1, 1, 1, 1}));
  EXPECT_EQ(VerbosityOf({"--verbose_more_conf", "--verbose_more_stat"}),
            (report::QperfVerbosity{2, 2, 0, 0}));
  EXPECT_EQ(VerbosityOf({"--verbose_more_time", "--verbose_more_used"}),
            (report::QperfVerbosity{0, 0, 2, 2}));
  EXPECT_EQ(VerbosityOf({"--verbose"}), (report::QperfVerbosity{1, 1, 1, 1}));
  EXPECT_EQ(VerbosityOf({"--verbose_more"}), (report::QperfVerbosity{2, 2, 2, 2}));
}

TEST(QperfVerbose, VerboseRaisesAndSingleClassesSet) {
  EXPECT_EQ(VerbosityOf({"-v"}), (report::QperfVerbosity{1, 1, 1, 1}));
  EXPECT_EQ(VerbosityOf({"-vv"}), (report::QperfVerbosity{2, 2, 2, 2}));
  EXPECT_EQ(VerbosityOf({"-vv", "-v"}), (report::QperfVerbosity{2, 2, 2, 2}));
  EXPECT_EQ(VerbosityOf({"-vvu", "-v"}), (report::QperfVerbosity{1, 1, 1, 2}));
  EXPECT_EQ(VerbosityOf({"-vv", "-vc"}), (report::QperfVerbosity{1, 2, 2, 2}));
  EXPECT_EQ(VerbosityOf({"-vU"}), (report::QperfVerbosity{0, 0, 0, 2}));  // old name of -vvu
}

TEST(QperfVerbose, NoBundling) {
  EXPECT_TRUE(Contains(ErrorOf({"h", "-vcu", "tcp_bw"}), "-vcu: bad option"));
}

// ---- loops ----------------------------------------------------------------------

std::vector<double> MsgSizes(const Args& a, const char* test) {
  std::vector<double> out;
  for (const auto& r : a.runs)
    if (std::string(r.test.name) == test) out.push_back(r.params[Param::kMsgSize].loc.num);
  return out;
}

TEST(QperfLoop, SeedLoopMakesSeventeenSizesPerTest) {
  Args a = Parse({"192.168.0.8", "-oo", "msg_size:1:64K:*2", "-vu", "tcp_bw", "tcp_lat"});
  ASSERT_EQ(a.runs.size(), 34u);
  std::vector<double> want;
  for (double v = 1; v <= 65536; v *= 2) want.push_back(v);
  EXPECT_EQ(MsgSizes(a, "tcp_bw"), want);
  EXPECT_EQ(MsgSizes(a, "tcp_lat"), want);
  EXPECT_STREQ(a.runs[16].test.name, "tcp_bw");
  EXPECT_STREQ(a.runs[17].test.name, "tcp_lat");
  for (const auto& r : a.runs) {
    EXPECT_EQ(r.params[Param::kMsgSize].loc.set_by, "--msg_size");
    EXPECT_EQ(r.display.verbose.used, 1);
  }
}

TEST(QperfLoop, EmptyVariableIsMsgSizeAndEmptyInitDependsOnTheStep) {
  EXPECT_EQ(MsgSizes(Parse({"h", "-oo", ":1:8:*2", "tcp_lat"}), "tcp_lat"),
            (std::vector<double>{1, 2, 4, 8}));
  EXPECT_EQ(MsgSizes(Parse({"h", "-oo", "::8:*2", "tcp_lat"}), "tcp_lat"),
            (std::vector<double>{1, 2, 4, 8}));
  EXPECT_EQ(MsgSizes(Parse({"h", "-oo", "m:5:15:+5", "tcp_lat"}), "tcp_lat"),
            (std::vector<double>{5, 10, 15}));
  EXPECT_EQ(MsgSizes(Parse({"h", "--loop", "msg_size:1:10:3", "tcp_lat"}), "tcp_lat"),
            (std::vector<double>{1, 4, 7, 10}));
  EXPECT_EQ(MsgSizes(Parse({"h", "-oo", "m:1K:4K:+1K", "tcp_bw"}), "tcp_bw"),
            (std::vector<double>{1024, 2048, 3072, 4096}));
}

TEST(QperfLoop, NeverPastLast) {
  EXPECT_EQ(MsgSizes(Parse({"h", "-oo", "m:1:100:*3", "tcp_lat"}), "tcp_lat"),
            (std::vector<double>{1, 3, 9, 27, 81}));
  EXPECT_EQ(MsgSizes(Parse({"h", "-oo", "m:8:8:*2", "tcp_lat"}), "tcp_lat"),
            (std::vector<double>{8}));
}

TEST(QperfLoop, ALoopThatRunsNoTestIsAnError) {
  EXPECT_EQ(
      ErrorOf({"h", "-oo", "msg_size:1:0:1", "tcp_bw"}),
      "-oo msg_size:1:0:1: the last value is below the initial one, so the loop runs no test");
  EXPECT_TRUE(Contains(ErrorOf({"h", "-oo", "m:8:4:*2", "tcp_lat"}), "-oo m:8:4:*2: the last"));
  EXPECT_TRUE(Contains(ErrorOf({"h", "-oo", "t:2:1:+1", "tcp_lat"}), "-oo t:2:1:+1: the last"));
}

// fuzz/regressions/qperf_args/empty_inner_loop_hang.args: an empty inner
// loop made no test, so the cap on the number of tests never counted and
// the billion values of the outer loop were walked to the end (a hang).
TEST(QperfLoop, EmptyInnerLoopUnderAHugeOuterLoopFailsAtOnce) {
  EXPECT_TRUE(
      Contains(ErrorOf({"127.0.0.1", "-oo", "msg_size:1:1G:1", "-oo", "msg_size:2:1:1", "tcp_lat"}),
               "-oo msg_size:2:1:1: the last value is below"));
  // And fuzz/regressions/qperf_args/timeout-a819605901bd6ab9d5cef2044073a229cf3348b4, cut
  // down: loops of 1537 values each outside an empty one.
  EXPECT_TRUE(Contains(ErrorOf({"-oo", "msg_size:0:6K:4", "-oo", "msg_size:0:6K:4", "host", "-oo",
                                "msg_size:56:4.:*4", "udp_bw"}),
                       "-oo msg_size:56:4.:*4: the last value is below"));
}

TEST(QperfLoop, OverTime) {
  Args a = Parse({"h", "-oo", "time:0.1:0.3:+0.1", "tcp_lat"});
  ASSERT_EQ(a.runs.size(), 3u);
  EXPECT_NEAR(a.runs[0].params[Param::kTime].loc.num, 0.1, 1e-9);
  EXPECT_NEAR(a.runs[1].params[Param::kTime].loc.num, 0.2, 1e-9);
  EXPECT_NEAR(a.runs[2].params[Param::kTime].loc.num, 0.3, 1e-9);
  a = Parse({"h", "-oo", "t:1:4:*2", "tcp_bw"});
  ASSERT_EQ(a.runs.size(), 3u);
  EXPECT_EQ(a.runs[2].params[Param::kTime].loc.num, 4);
  EXPECT_EQ(a.runs[2].params[Param::kTime].loc.set_by, "-t");
}

TEST(QperfLoop, LoopsNestFirstOutermost) {
  Args a = Parse({"h", "-oo", "m:1:2:+1", "-oo", "t:1:3:+1", "tcp_lat"});
  ASSERT_EQ(a.runs.size(), 6u);
  EXPECT_EQ(a.runs[0].params[Param::kMsgSize].loc.num, 1);
  EXPECT_EQ(a.runs[0].params[Param::kTime].loc.num, 1);
  EXPECT_EQ(a.runs[2].params[Param::kMsgSize].loc.num, 1);
  EXPECT_EQ(a.runs[2].params[Param::kTime].loc.num, 3);
  EXPECT_EQ(a.runs[3].params[Param::kMsgSize].loc.num, 2);
  EXPECT_EQ(a.runs[3].params[Param::kTime].loc.num, 1);
}

TEST(QperfLoop, BadLoopsNameTheOption) {
  EXPECT_TRUE(Contains(ErrorOf({"h", "-oo", "x:1:2:+1", "tcp_bw"}), "x: no such variable"));
  EXPECT_TRUE(Contains(ErrorOf({"h", "-oo", "m:1:2", "tcp_bw"}), "give an increment"));
  EXPECT_TRUE(Contains(ErrorOf({"h", "-oo", "m:1::*2", "tcp_bw"}), "give the last value"));
  EXPECT_TRUE(Contains(ErrorOf({"h", "-oo", "m:1:4:*1", "tcp_bw"}), "more than 1"));
  EXPECT_TRUE(Contains(ErrorOf({"h", "-oo", "m:0:4:*2", "tcp_bw"}), "start above 0"));
  EXPECT_TRUE(Contains(ErrorOf({"h", "-oo", "m:1:4:+0", "tcp_bw"}), "more than 0"));
  EXPECT_TRUE(Contains(ErrorOf({"h", "-oo", "H:1:2:+1", "tcp_bw"}), "cannot be looped over"));
  EXPECT_TRUE(Contains(ErrorOf({"h", "-oo", "m:1:4:+1:9", "tcp_bw"}), "too many fields"));
  EXPECT_TRUE(Contains(ErrorOf({"h", "-oo", "m:1:4Q:+1", "tcp_bw"}), "last value"));
  EXPECT_TRUE(Contains(ErrorOf({"h", "-oo", "m:1:4:+1", "-oo"}), "-oo: missing argument"));
  for (const auto& m : {ErrorOf({"h", "-oo", "m:1:2", "tcp_bw"})})
    EXPECT_EQ(m.rfind("-oo m:1:2: ", 0), 0u) << m;
  EXPECT_TRUE(Contains(ErrorOf({"h", "-oo", "m:1:1000000:+1", "tcp_lat"}), "more than 10000"));
}

TEST(QperfLoop, LoopValuesAreCheckedPerTest) {
  // 64 KiB is a fine TCP message but no UDP datagram.
  EXPECT_EQ(Parse({"h", "-oo", "m:1:64K:*2", "tcp_lat"}).runs.size(), 17u);
  EXPECT_TRUE(Contains(ErrorOf({"h", "-oo", "m:1:64K:*2", "udp_lat"}), "-m 65536: udp_lat"));
  EXPECT_TRUE(Contains(ErrorOf({"h", "-oo", "msg_size:1:64K:*2", "udp_bw"}), "--msg_size 65536"));
}

// ---- bad values -----------------------------------------------------------------

TEST(QperfBadInput, EachMessageNamesTheOption) {
  EXPECT_EQ(ErrorOf({"h", "-x", "tcp_bw"}), "-x: bad option; try: qperf --help options");
  EXPECT_TRUE(Contains(ErrorOf({"h", "tcp_bw", "-m"}), "-m: missing argument"));
  EXPECT_TRUE(Contains(ErrorOf({"h", "-m", "12Q", "tcp_bw"}), "-m 12Q: bad size suffix 'Q'"));
  EXPECT_TRUE(Contains(ErrorOf({"h", "--msg_size", "1.3", "tcp_bw"}), "--msg_size 1.3:"));
  EXPECT_TRUE(Contains(ErrorOf({"h", "-t", "abc", "tcp_bw"}), "-t abc: bad time"));
  EXPECT_TRUE(Contains(ErrorOf({"h", "-t", "2y", "tcp_bw"}), "-t 2y: bad time suffix"));
  EXPECT_TRUE(Contains(ErrorOf({"h", "-t", "400d", "tcp_bw"}), "-t 400d: at most"));
  EXPECT_TRUE(Contains(ErrorOf({"h", "-n", "many", "tcp_bw"}), "-n many: expected a whole"));
  EXPECT_TRUE(Contains(ErrorOf({"h", "-n", "-5", "tcp_bw"}), "-n -5:"));
  EXPECT_TRUE(Contains(ErrorOf({"-lp", "0"}), "-lp 0: the port must be from 1 to 65535"));
  EXPECT_TRUE(Contains(ErrorOf({"-lp", "70000"}), "-lp 70000: at most 65535"));
  EXPECT_TRUE(Contains(ErrorOf({"h", "-ip", "70000", "tcp_bw"}), "-ip 70000"));
  EXPECT_TRUE(Contains(ErrorOf({"h", "-e", "99", "tcp_bw"}), "-e 99: at most 17"));
  EXPECT_TRUE(Contains(ErrorOf({"h", "-sl", "16", "tcp_bw"}), "-sl 16: the service level"));
  EXPECT_TRUE(Contains(ErrorOf({"h", "-ca", "first", "tcp_bw"}), "-ca first:"));
  EXPECT_TRUE(Contains(ErrorOf({"h", "-ws", "soon", "tcp_bw"}), "-ws soon: bad time"));
  EXPECT_TRUE(Contains(ErrorOf({"h", "-sb", "5G", "tcp_bw"}), "-sb 5G: at most"));
  EXPECT_TRUE(Contains(ErrorOf({"h", "-to", "0", "tcp_bw"}), "-to 0: the timeout must be more"));
  EXPECT_TRUE(Contains(ErrorOf({"h", "--rem_timeout", "0s", "tcp_bw"}), "--rem_timeout 0s:"));
  EXPECT_TRUE(Contains(ErrorOf({"-lto", "0"}), "-lto 0: the timeout"));
  EXPECT_DOUBLE_EQ(Parse({"h", "-to", "0.5", "tcp_bw"}).runs[0].params[Param::kTimeout].loc.num,
                   0.5);
}

TEST(QperfBadInput, UnknownHelpTopicNamesTheOptionAndTheTopics) {
  std::string e = ErrorOf({"-h", "nosuchtopic"});
  EXPECT_EQ(e.rfind("-h nosuchtopic: cannot find help category nosuchtopic; ", 0), 0u) << e;
  for (const char* topic : {"main", "categories", "examples", "opts", "options", "tests"})
    EXPECT_TRUE(Contains(e, topic)) << topic;
  EXPECT_EQ(ErrorOf({"host", "--help", "x"}).rfind("--help x: ", 0), 0u);
  for (const char* topic : {"main", "categories", "examples", "opts", "options", "tests", "tcp_lat",
                            "rc_rdma_read_bw"}) {
    EXPECT_TRUE(is_help_topic(topic)) << topic;
    EXPECT_EQ(Parse({"-h", topic}).mode, Args::Mode::kHelp) << topic;
  }
}

TEST(QperfBadInput, LimitsOfTheTests) {
  EXPECT_TRUE(Contains(ErrorOf({"h", "-m", "0", "tcp_bw"}), "-m 0: the message size"));
  EXPECT_TRUE(Contains(ErrorOf({"h", "-m", "64K", "udp_bw"}), "-m 65536: udp_bw sends one UDP"));
  EXPECT_EQ(Parse({"h", "-m", "65507", "udp_lat"}).runs.size(), 1u);
  EXPECT_TRUE(Contains(ErrorOf({"h", "-m", "2G", "tcp_bw"}), "at most 1073741824 bytes"));
  EXPECT_TRUE(Contains(ErrorOf({"h", "-t", "0", "tcp_bw"}), "-t 0: the test time"));
  EXPECT_TRUE(Contains(ErrorOf({"h", "-n", "0", "tcp_bw"}), "-n 0: the number of messages"));
  EXPECT_TRUE(Contains(ErrorOf({"h", "-sb", "3G", "tcp_bw"}), "-sb 3221225472: socket buffers"));
  // Limits of tests flowperf does not run are not its business.
  EXPECT_EQ(Parse({"h", "-m", "0", "conf"}).runs.size(), 1u);
}

// ---- warnings and the parameters -vu shows -----------------------------------------

TEST(QperfUnused, RdmaOptionsAndFlipOfSymmetricTests) {
  Args a = Parse({"h", "-f", "1", "-mt", "2K", "-cm1", "tcp_bw", "udp_bw", "conf"});
  EXPECT_EQ(unused_warnings(a.runs[0]),
            (std::vector<std::string>{"warning: -mt set but not used in test tcp_bw",
                                      "warning: -cm1 set but not used in test tcp_bw"}));
  EXPECT_EQ(unused_warnings(a.runs[1]),
            (std::vector<std::string>{"warning: -f set but not used in test udp_bw",
                                      "warning: -mt set but not used in test udp_bw",
                                      "warning: -cm1 set but not used in test udp_bw"}));
  EXPECT_TRUE(unused_warnings(a.runs[2]).empty());
  EXPECT_EQ(unused_warnings(Parse({"h", "-lsl", "3", "tcp_lat"}).runs[0]),
            (std::vector<std::string>{"warning: -lsl set but not used in test tcp_lat"}));
  EXPECT_TRUE(unused_warnings(Parse({"h", "-ar1", "-m", "1", "tcp_bw"}).runs[0]).empty());
}

std::vector<std::string> UsedNames(const Run& r) {
  std::vector<std::string> out;
  for (const auto& p : used_params(r)) out.push_back(p.name);
  return out;
}

TEST(QperfUsed, InQperfsOrder) {
  Args a = Parse({"h", "tcp_bw", "tcp_lat", "udp_bw"});
  EXPECT_EQ(UsedNames(a.runs[0]),
            (std::vector<std::string>{"access_recv", "affinity", "flip", "msg_size", "no_msgs",
                                      "port", "sock_buf_size", "time", "timeout"}));
  EXPECT_EQ(UsedNames(a.runs[1]),
            (std::vector<std::string>{"affinity", "msg_size", "no_msgs", "port", "sock_buf_size",
                                      "time", "timeout"}));
  EXPECT_EQ(UsedNames(a.runs[2]),
            (std::vector<std::string>{"access_recv", "affinity", "msg_size", "no_msgs", "port",
                                      "sock_buf_size", "time", "timeout"}));
}

TEST(QperfUsed, ValuesKindsAndSetMarks) {
  Args a = Parse({"h", "-m", "4K", "-rsb", "8K", "-lca", "0", "tcp_lat"});
  auto used = used_params(a.runs[0]);
  auto find = [&](const std::string& n) {
    for (const auto& p : used)
      if (p.name == n) return p;
    ADD_FAILURE() << n;
    return report::QperfParam{};
  };
  auto m = find("msg_size");
  EXPECT_EQ(m.kind, report::QperfParam::Kind::kSize);
  EXPECT_EQ(m.loc, 4096);
  EXPECT_EQ(m.rem, 4096);
  EXPECT_TRUE(m.set);
  auto sb = find("sock_buf_size");
  EXPECT_EQ(sb.loc, 0);
  EXPECT_EQ(sb.rem, 8192);
  EXPECT_TRUE(sb.set);
  auto aff = find("affinity");
  EXPECT_EQ(aff.kind, report::QperfParam::Kind::kText);
  EXPECT_EQ(aff.loc_text, "0");
  EXPECT_EQ(aff.rem_text, "");
  auto t = find("time");
  EXPECT_EQ(t.kind, report::QperfParam::Kind::kTime);
  EXPECT_EQ(t.loc, 2);
  EXPECT_FALSE(t.set);
  EXPECT_EQ(find("timeout").loc, 5);
}

TEST(QperfTests, EveryQperfTestNameIsKnown) {
  for (const char* name : {"conf",
                           "quit",
                           "rds_bw",
                           "rds_lat",
                           "sctp_bw",
                           "sctp_lat",
                           "sdp_bw",
                           "sdp_lat",
                           "tcp_bw",
                           "tcp_lat",
                           "udp_bw",
                           "udp_lat",
                           "rc_bi_bw",
                           "rc_bw",
                           "rc_lat",
                           "uc_bi_bw",
                           "uc_bw",
                           "uc_lat",
                           "ud_bi_bw",
                           "ud_bw",
                           "ud_lat",
                           "xrc_bi_bw",
                           "xrc_bw",
                           "xrc_lat",
                           "rc_rdma_read_bw",
                           "rc_rdma_read_lat",
                           "rc_rdma_write_bw",
                           "rc_rdma_write_lat",
                           "rc_rdma_write_poll_lat",
                           "uc_rdma_write_bw",
                           "uc_rdma_write_lat",
                           "uc_rdma_write_poll_lat",
                           "rc_compare_swap_mr",
                           "rc_fetch_add_mr",
                           "ver_rc_compare_swap",
                           "ver_rc_fetch_add"})
    EXPECT_NE(find_test(name), nullptr) << name;
  EXPECT_EQ(find_test("TCP_BW"), nullptr);  // qperf's names are lower case
  EXPECT_EQ(find_test("ud_lat")->kind, TestKind::kRdma);
  EXPECT_EQ(find_test("sctp_lat")->kind, TestKind::kSctpLat);
}

}  // namespace
}  // namespace flowperf::cli::qperf
