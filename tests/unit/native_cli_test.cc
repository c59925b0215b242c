// Unit tests for the native client's command line (cli/native_cli): what
// each data-path option puts in the TestSpec, the per-end pair forms, and
// the usage errors, each naming its option. No sockets: native_client_spec()
// only reads argv.
#include "cli/native_cli.h"

#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <initializer_list>
#include <string>
#include <vector>

#include "cli/native_args.h"
#include "core/error.h"

namespace flowperf::cli {
namespace {

spec::TestSpec parse(std::initializer_list<const char*> words) {
  std::vector<const char*> argv{"flowperf"};
  argv.insert(argv.end(), words.begin(), words.end());
  return native_client_spec(static_cast<int>(argv.size()), argv.data());
}

// The usage error's message, or "" when the command line is accepted.
std::string error_of(std::initializer_list<const char*> words) {
  try {
    parse(words);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kUsage) << e.what();
    return e.what();
  }
  return "";
}

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.rfind(prefix, 0) == 0;
}

TEST(NativeCli, DefaultsLeaveTheDataPathAlone) {
  spec::TestSpec s = parse({});
  EXPECT_TRUE(s.local == spec::SideOptions{});
  EXPECT_TRUE(s.remote == spec::SideOptions{});
  EXPECT_FALSE(s.keepalive);
  EXPECT_FALSE(s.cork);
  EXPECT_EQ(s.burst, 0u);
}

TEST(NativeCli, CongestionControlOnBothEndsOrEach) {
  spec::TestSpec s = parse({"-K", "reno"});
  EXPECT_EQ(s.local.cc, "reno");
  EXPECT_EQ(s.remote.cc, "reno");
  s = parse({"--cc", "reno,cubic"});
  EXPECT_EQ(s.local.cc, "reno");
  EXPECT_EQ(s.remote.cc, "cubic");
  s = parse({"-K", "reno,"});
  EXPECT_EQ(s.local.cc, "reno");
  EXPECT_EQ(s.remote.cc, "");
  s = parse({"-K", ",cubic"});
  EXPECT_EQ(s.local.cc, "");
  EXPECT_EQ(s.remote.cc, "cubic");
  EXPECT_TRUE(starts_with(error_of({"-K", ""}), "-K '': no congestion control named"));
  EXPECT_TRUE(starts_with(error_of({"-K", ","}), "-K ,: the form is CC or LOCAL,REMOTE"));
  EXPECT_TRUE(starts_with(error_of({"-K", "a,b,c"}), "-K a,b,c: the form is"));
  EXPECT_TRUE(starts_with(error_of({"-t", "UDP_RR", "-K", ",reno"}),
                          "-K ,reno: congestion control applies to TCP tests, not UDP_RR"));
}

// -r's halves: an empty one takes the other's size (netperf's -r 32, keeps a
// 1-byte response instead; --help says which). Errors give the form and an example.
TEST(NativeCli, RequestResponseHalves) {
  spec::TestSpec s = parse({"-t", "TCP_RR", "-r", "32,"});
  EXPECT_EQ(s.request_size, 32u);
  EXPECT_EQ(s.response_size, 32u);
  s = parse({"-t", "TCP_RR", "-r", ",64"});
  EXPECT_EQ(s.request_size, 64u);
  EXPECT_EQ(s.response_size, 64u);
  s = parse({"-t", "TCP_RR", "-r", "32,1K"});
  EXPECT_EQ(s.request_size, 32u);
  EXPECT_EQ(s.response_size, 1024u);
  const std::string e = error_of({"-t", "TCP_RR", "-r", "32y"});
  EXPECT_TRUE(starts_with(e, "-r 32y: ")) << e;
  EXPECT_NE(e.find("the form is SIZE or REQ,RESP, e.g. -r 32,1024"), std::string::npos) << e;
  CLI::App app;
  ClientArgs c;
  add_client_options(app, c);
  const std::string help = app.help();
  EXPECT_NE(help.find("32, is 32,32"), std::string::npos) << help;
}

TEST(NativeCli, TosInHexOrDecimal) {
  spec::TestSpec s = parse({"--tos", "0x20"});
  EXPECT_EQ(s.local.tos, 0x20);
  EXPECT_EQ(s.remote.tos, 0x20);
  s = parse({"--tos", "16,0xB8"});
  EXPECT_EQ(s.local.tos, 16);
  EXPECT_EQ(s.remote.tos, 0xb8);
  s = parse({"-t", "UDP_STREAM", "--tos", ",0"});
  EXPECT_EQ(s.local.tos, -1);
  EXPECT_EQ(s.remote.tos, 0);
  EXPECT_EQ(error_of({"--tos", "lowdelay"}),
            "--tos lowdelay: not a TOS byte (0 to 255, or 0x00 to 0xff)");
  EXPECT_EQ(error_of({"--tos", "0x"}), "--tos 0x: not a TOS byte (0 to 255, or 0x00 to 0xff)");
  EXPECT_EQ(error_of({"--tos", "0x-1"}), "--tos 0x-1: not a TOS byte (0 to 255, or 0x00 to 0xff)");
  EXPECT_TRUE(starts_with(error_of({"--tos", "0x100"}),
                          "--tos 256 (netperf -Y): a TOS byte is from 0 to 255"));
  EXPECT_TRUE(starts_with(error_of({"--tos", ",300"}), "--tos ,300 (netperf -Y)"));
}

TEST(NativeCli, Priority) {
  spec::TestSpec s = parse({"--priority", "3"});
  EXPECT_EQ(s.local.priority, 3);
  EXPECT_EQ(s.remote.priority, 3);
  s = parse({"--priority", "1,2"});
  EXPECT_EQ(s.local.priority, 1);
  EXPECT_EQ(s.remote.priority, 2);
  EXPECT_EQ(error_of({"--priority", "high"}), "--priority high: not a socket priority (0 or more)");
  EXPECT_TRUE(starts_with(error_of({"--priority", "-3"}),
                          "--priority -3 (netperf -y): a socket priority is 0 or more"));
}

TEST(NativeCli, CpuBind) {
  spec::TestSpec s = parse({"--cpu-bind", ",5"});  // the server's: not checked here
  EXPECT_EQ(s.local.cpu, -1);
  EXPECT_EQ(s.remote.cpu, 5);
  s = parse({"--cpu-bind", "0"});
  EXPECT_EQ(s.local.cpu, 0);
  EXPECT_EQ(s.remote.cpu, 0);
  EXPECT_EQ(error_of({"--cpu-bind", "first"}), "--cpu-bind first: not a CPU number");
  EXPECT_TRUE(starts_with(error_of({"--cpu-bind", "1023,"}),
                          "--cpu-bind 1023, (netperf -T): CPU "
                          "1023 is not one this client may run"));
  EXPECT_TRUE(starts_with(error_of({"--cpu-bind", ",4096"}),
                          "--cpu-bind ,4096 (netperf -T): a CPU number is from 0"));
}

TEST(NativeCli, KeepaliveCorkAndBurst) {
  spec::TestSpec s = parse({"-t", "TCP_RR", "--keepalive", "--cork", "--burst", "8"});
  EXPECT_TRUE(s.keepalive);
  EXPECT_TRUE(s.cork);
  EXPECT_EQ(s.burst, 8u);
  EXPECT_EQ(parse({"-t", "UDP_RR", "--burst", "2"}).burst, 2u);
  EXPECT_TRUE(starts_with(error_of({"-t", "UDP_RR", "--keepalive"}),
                          "--keepalive (netperf -S): SO_KEEPALIVE applies to TCP tests"));
  EXPECT_TRUE(starts_with(error_of({"-t", "UDP_STREAM", "--cork"}),
                          "--cork (netperf test -C): TCP_CORK applies to TCP tests"));
  EXPECT_TRUE(starts_with(error_of({"-t", "TCP_CRR", "--burst", "2"}),
                          "--burst 2 (netperf test -b): requests in flight apply to TCP_RR and "
                          "UDP_RR only, not TCP_CRR"));
  EXPECT_NE(error_of({"--burst", "-1"}), "");
}

// Every problem is reported at once, one line each.
TEST(NativeCli, EveryProblemAtOnce) {
  const std::string e =
      error_of({"-t", "UDP_RR", "--tos", "999", "--priority", ",-2", "--keepalive", "--cork"});
  for (const char* opt : {"--tos 999", "--priority ,-2", "--keepalive", "--cork"})
    EXPECT_NE(e.find(opt), std::string::npos) << opt << "\n" << e;
}

}  // namespace
}  // namespace flowperf::cli
