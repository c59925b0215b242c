// End-to-end tests of the qperf personality: a real `qperf` server process
// (the build's qperf link to flowperf) on a free loopback port, and real
// client processes running the commands of the user's seed (with short
// times). Output is checked for qperf's structure: blocks named "test:",
// rows "    name  =  value unit" with the '=' signs in one column and the
// numbers right-aligned, in the order qperf prints them; with -v the CPU use
// and costs, checked against each other and the machine's CPU count.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "core/version.h"
#include "support/net.h"
#include "support/paths.h"
#include "support/ports.h"
#include "support/process.h"

namespace flowperf {
namespace {

using namespace std::chrono_literals;
using testing::can_connect;
using testing::connect_loopback;
using testing::free_port;
using testing::Outcome;
using testing::Process;
using testing::wait_accepting;

const std::string kQperf = ::flowperf::testing::personality("qperf");

// A qperf server on its own port, stopped (SIGTERM) when it goes.
class Server {
 public:
  Server() : port_(free_port()), proc_({kQperf, "-lp", std::to_string(port_)}) {
    wait_accepting(port_);
  }
  ~Server() {
    if (exited_) return;
    proc_.signal(SIGTERM);
    proc_.wait(10s);
  }
  uint16_t port() const { return port_; }
  void signal(int sig) { proc_.signal(sig); }
  // Waits for the server to exit by itself (after quit or a signal).
  Outcome wait_exit(std::chrono::milliseconds limit) {
    exited_ = true;
    return proc_.wait(limit);
  }

 private:
  uint16_t port_;
  Process proc_;
  bool exited_ = false;
};

Outcome qperf(std::vector<std::string> args, std::chrono::milliseconds limit = 60s) {
  args.insert(args.begin(), kQperf);
  Process p(args);
  return p.wait(limit);
}

// ---- parsing qperf's output ------------------------------------------------------

struct Row {
  std::string name, data, unit, alt;
  size_t eq_col = 0, data_end = 0;
  bool has_unit = false;
};
struct Block {
  std::string test;
  std::vector<Row> rows;
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& r : rows) out.push_back(r.name);
    return out;
  }
  const Row& row(const std::string& name) const {
    for (const auto& r : rows)
      if (r.name == name) return r;
    static Row none;
    ADD_FAILURE() << "no row " << name << " in " << test;
    return none;
  }
};

// Splits stdout into blocks, failing on any line that is not qperf-shaped.
std::vector<Block> blocks(const std::string& out) {
  static const std::regex header(R"(^([a-z_]+):$)");
  // "    name  =  data[ unit][ (alt)]": numbers carry a unit, text does not.
  static const std::regex row(R"(^    ([a-z_]+) +=  (.*)$)");
  static const std::regex number(
      R"(^( *)([0-9][0-9,]*(\.[0-9]+)?) ([A-Za-z/%]*|% cpus)( \(([0-9,]+)\))?$)");
  std::vector<Block> result;
  size_t start = 0;
  while (start < out.size()) {
    size_t nl = out.find('\n', start);
    std::string line = out.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    start = nl == std::string::npos ? out.size() : nl + 1;
    std::smatch m;
    if (std::regex_match(line, m, header)) {
      result.push_back({m[1], {}});
      continue;
    }
    if (!std::regex_match(line, m, row) || result.empty()) {
      ADD_FAILURE() << "not a qperf line: [" << line << "]";
      continue;
    }
    Row r;
    r.name = m[1];
    r.eq_col = line.find('=');
    std::string rest = m[2];
    std::smatch n;
    if (std::regex_match(rest, n, number)) {
      r.has_unit = true;
      r.data = n[2];
      r.unit = n[4];
      r.alt = n[6];
      r.data_end = r.eq_col + 3 + n[1].length() + n[2].length();
    } else {
      r.data = rest;
    }
    result.back().rows.push_back(r);
  }
  return result;
}

// qperf's alignment inside each block.
void expect_aligned(const std::vector<Block>& bs) {
  for (const auto& b : bs) {
    size_t eq = 0, end = 0;
    for (const auto& r : b.rows) {
      if (!eq) eq = r.eq_col;
      EXPECT_EQ(r.eq_col, eq) << b.test << "." << r.name;
      if (!r.has_unit) continue;
      if (!end) end = r.data_end;
      EXPECT_EQ(r.data_end, end) << b.test << "." << r.name << " is not right-aligned";
    }
  }
}

bool is_positive_number(const std::string& data) {
  std::string digits;
  for (char c : data)
    if (c != ',') digits += c;
  return !digits.empty() && std::stod(digits) > 0;
}

void expect_latency(const Row& r) {
  EXPECT_TRUE(is_positive_number(r.data)) << r.data;
  EXPECT_TRUE(r.unit == "ns" || r.unit == "us" || r.unit == "ms") << r.unit;
}

void expect_bandwidth(const Row& r) {
  EXPECT_TRUE(is_positive_number(r.data)) << r.data;
  EXPECT_TRUE(r.unit == "bytes/sec" || r.unit == "KB/sec" || r.unit == "MB/sec" ||
              r.unit == "GB/sec")
      << r.unit;
}

std::string hostname() {
  char name[256] = {};
  ::gethostname(name, sizeof name - 1);
  return name;
}

class QperfE2e : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = new Server(); }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  static std::string port() { return std::to_string(server_->port()); }
  static Server* server_;
};
Server* QperfE2e::server_ = nullptr;

// ---- the seed's commands ----------------------------------------------------------

// qperf 192.168.0.8 -t 10 -vvu tcp_lat udp_lat conf
TEST_F(QperfE2e, SeedLatencyTestsWithVvuAndConf) {
  Outcome o = qperf({"127.0.0.1", "-lp", port(), "-t", "1", "-vvu", "tcp_lat", "udp_lat", "conf"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  auto bs = blocks(o.out);
  ASSERT_EQ(bs.size(), 3u) << o.out;
  expect_aligned(bs);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(bs[i].test, i == 0 ? "tcp_lat" : "udp_lat");
    EXPECT_EQ(bs[i].names(), (std::vector<std::string>{"latency", "msg_size", "time", "timeout"}));
    expect_latency(bs[i].row("latency"));
    EXPECT_EQ(bs[i].row("msg_size").data + " " + bs[i].row("msg_size").unit, "1 bytes");
    EXPECT_EQ(bs[i].row("time").data + " " + bs[i].row("time").unit, "1 sec");
    EXPECT_EQ(bs[i].row("timeout").data + " " + bs[i].row("timeout").unit, "5 sec");
  }
  EXPECT_EQ(bs[2].test, "conf");
  EXPECT_EQ(bs[2].rows.size(), 8u);
}

// qperf 192.168.0.8 -oo msg_size:1:64K:*2 -vu tcp_bw tcp_lat
TEST_F(QperfE2e, SeedLoopOverMessageSizes) {
  // qperf's protocol carries whole seconds: five sizes of one second each.
  Outcome o = qperf({"127.0.0.1", "-lp", port(), "-oo", "msg_size:1:64K:*16", "-vu", "-t", "1",
                     "tcp_bw", "tcp_lat"},
                    120s);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  auto bs = blocks(o.out);
  ASSERT_EQ(bs.size(), 10u) << o.out;
  expect_aligned(bs);
  for (size_t i = 0; i < 10; ++i) {
    const Block& b = bs[i];
    const bool bw = i < 5;
    EXPECT_EQ(b.test, bw ? "tcp_bw" : "tcp_lat");
    EXPECT_EQ(b.names(), (std::vector<std::string>{bw ? "bw" : "latency", "msg_size", "time"}));
    if (bw)
      expect_bandwidth(b.row("bw"));
    else
      expect_latency(b.row("latency"));
    // Rising sizes: 1, 16, 256 bytes, then 4 and 64 KiB with the byte count.
    const uint64_t size = uint64_t{1} << (4 * (i % 5));
    const Row& m = b.row("msg_size");
    if (size < 1024) {
      EXPECT_EQ(m.data + " " + m.unit, std::to_string(size) + " bytes");
      EXPECT_EQ(m.alt, "");
    } else {
      EXPECT_EQ(m.data + " " + m.unit, std::to_string(size / 1024) + " KiB");
      std::string bytes = std::to_string(size);
      bytes.insert(bytes.size() - 3, ",");
      EXPECT_EQ(m.alt, bytes);
    }
    EXPECT_EQ(b.row("time").data + " " + b.row("time").unit, "1 sec");
  }
}

// The comparison command: every socket test, then conf.
TEST_F(QperfE2e, AllSocketTestsAndConf) {
  Outcome o = qperf(
      {"127.0.0.1", "-lp", port(), "-t", "1", "tcp_bw", "tcp_lat", "udp_bw", "udp_lat", "conf"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(o.err, "");
  auto bs = blocks(o.out);
  ASSERT_EQ(bs.size(), 5u) << o.out;
  expect_aligned(bs);
  EXPECT_EQ(bs[0].test, "tcp_bw");
  EXPECT_EQ(bs[0].names(), std::vector<std::string>{"bw"});
  expect_bandwidth(bs[0].row("bw"));
  EXPECT_EQ(bs[1].test, "tcp_lat");
  EXPECT_EQ(bs[1].names(), std::vector<std::string>{"latency"});
  expect_latency(bs[1].row("latency"));
  EXPECT_EQ(bs[2].test, "udp_bw");
  EXPECT_EQ(bs[2].names(), (std::vector<std::string>{"send_bw", "recv_bw"}));
  expect_bandwidth(bs[2].row("send_bw"));
  expect_bandwidth(bs[2].row("recv_bw"));
  EXPECT_EQ(bs[3].test, "udp_lat");
  expect_latency(bs[3].row("latency"));
  EXPECT_EQ(bs[4].test, "conf");
}

TEST_F(QperfE2e, ConfShowsAllEightFields) {
  Outcome o = qperf({"127.0.0.1", "-lp", port(), "conf"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  auto bs = blocks(o.out);
  ASSERT_EQ(bs.size(), 1u) << o.out;
  expect_aligned(bs);
  const Block& c = bs[0];
  EXPECT_EQ(c.names(), (std::vector<std::string>{"loc_node", "loc_cpu", "loc_os", "loc_qperf",
                                                 "rem_node", "rem_cpu", "rem_os", "rem_qperf"}));
  EXPECT_EQ(c.row("loc_node").data, hostname());
  EXPECT_EQ(c.row("rem_node").data, hostname());
  EXPECT_EQ(c.row("loc_os").data.rfind("Linux ", 0), 0u) << c.row("loc_os").data;
  EXPECT_EQ(c.row("rem_os").data, c.row("loc_os").data);
  EXPECT_FALSE(c.row("loc_cpu").data.empty());
  EXPECT_EQ(c.row("rem_cpu").data, c.row("loc_cpu").data);
  const long cores = ::sysconf(_SC_NPROCESSORS_ONLN);
  if (cores > 1) {
    EXPECT_EQ(c.row("loc_cpu").data.rfind(std::to_string(cores) + " Cores: ", 0), 0u)
        << c.row("loc_cpu").data;
  }
  // Both ends say the qperf version they speak first (a script's `awk '{print $3}'`
  // reads 0.4.11, as from qperf) and who they are after it.
  EXPECT_EQ(c.row("loc_qperf").data, std::string("0.4.11 (flowperf ") + kVersion + ")");
  EXPECT_EQ(c.row("rem_qperf").data, std::string("0.4.11 (flowperf ") + kVersion + ")");
}

// ---- more of qperf's options against the server ------------------------------------

// The names of a block's rows, less the CPU split rows of -vvt (each shows
// only when that kind of CPU time was seen, so which appear varies).
std::vector<std::string> names_but_cpu_split(const Block& b) {
  static const std::regex split(R"(.*_cpus_(user|intr|kernel|iowait))");
  std::vector<std::string> out;
  for (const auto& n : b.names())
    if (!std::regex_match(n, split)) out.push_back(n);
  return out;
}

double plain(const std::string& data) {
  std::string digits;
  for (char c : data)
    if (c != ',') digits += c;
  return std::stod(digits);
}

TEST_F(QperfE2e, VerboseMoreShowsEachSidesCounts) {
  Outcome o = qperf({"127.0.0.1", "-lp", port(), "-t", "1", "-vv", "tcp_bw", "tcp_lat"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  auto bs = blocks(o.out);
  ASSERT_EQ(bs.size(), 2u) << o.out;
  expect_aligned(bs);
  EXPECT_EQ(names_but_cpu_split(bs[0]),
            (std::vector<std::string>{
                "bw", "msg_rate", "msg_size", "time", "timeout", "send_cost", "recv_cost",
                "send_cpus_used", "send_real_time", "send_cpu_time", "send_bytes", "send_msgs",
                "recv_cpus_used", "recv_real_time", "recv_cpu_time", "recv_bytes", "recv_msgs"}));
  // As with qperf: the server counts what it read before its timer ended,
  // the client what it wrote (some of it still in the buffers then).
  EXPECT_GT(plain(bs[0].row("recv_msgs").data), 0);
  EXPECT_LE(plain(bs[0].row("recv_msgs").data), plain(bs[0].row("send_msgs").data));
  EXPECT_EQ(names_but_cpu_split(bs[1]),
            (std::vector<std::string>{
                "latency", "msg_rate", "msg_size", "time", "timeout", "loc_cpus_used",
                "loc_real_time", "loc_cpu_time", "loc_send_bytes", "loc_recv_bytes",
                "loc_send_msgs", "loc_recv_msgs", "rem_cpus_used", "rem_real_time", "rem_cpu_time",
                "rem_send_bytes", "rem_recv_bytes", "rem_send_msgs", "rem_recv_msgs"}));
}

// ---- CPU use and costs ------------------------------------------------------------

// A row's value in base units: seconds per GB, bytes per second, seconds.
double scaled(const Row& r) {
  static const std::vector<std::pair<std::string, double>> kUnits = {
      {"ns/GB", 1e-9},  {"us/GB", 1e-6}, {"ms/GB", 1e-3}, {"sec/GB", 1},
      {"ns", 1e-9},     {"us", 1e-6},    {"ms", 1e-3},    {"sec", 1},
      {"bytes/sec", 1}, {"KB/sec", 1e3}, {"MB/sec", 1e6}, {"GB/sec", 1e9}};
  for (const auto& [unit, factor] : kUnits)
    if (r.unit == unit) return plain(r.data) * factor;
  ADD_FAILURE() << r.name << ": unexpected unit " << r.unit;
  return 0;
}

// CPUs used, as qperf shows them: percent of one CPU, up to all of them.
void expect_cpus(const Row& r) {
  const double cpus = static_cast<double>(::sysconf(_SC_NPROCESSORS_ONLN));
  EXPECT_EQ(r.unit, "% cpus") << r.name;
  EXPECT_GT(plain(r.data), 0) << r.name;
  EXPECT_LE(plain(r.data), 100 * cpus * 1.01) << r.name;
}

// A cost is the CPU time per GB: times the bytes per second moved it is the
// share of CPUs that end used.
void expect_cost(const Row& cost, const Row& cpus_used, double bytes_per_s) {
  EXPECT_TRUE(cost.unit == "ns/GB" || cost.unit == "us/GB" || cost.unit == "ms/GB" ||
              cost.unit == "sec/GB")
      << cost.name << " " << cost.unit;
  const double cpus = scaled(cost) * bytes_per_s / 1e9;
  EXPECT_NEAR(cpus, plain(cpus_used.data) / 100, 0.25 * plain(cpus_used.data) / 100 + 0.02)
      << cost.name << " " << cost.data << " " << cost.unit << " at " << bytes_per_s << " bytes/s, "
      << cpus_used.name << " " << cpus_used.data;
}

TEST_F(QperfE2e, VerboseShowsCpuUseAndCosts) {
  Outcome o = qperf(
      {"127.0.0.1", "-lp", port(), "-t", "1", "-v", "tcp_bw", "tcp_lat", "udp_bw", "udp_lat"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  auto bs = blocks(o.out);
  ASSERT_EQ(bs.size(), 4u) << o.out;
  expect_aligned(bs);
  EXPECT_EQ(bs[0].names(),
            (std::vector<std::string>{"bw", "msg_rate", "time", "send_cost", "recv_cost",
                                      "send_cpus_used", "recv_cpus_used"}));
  EXPECT_EQ(bs[2].names(),
            (std::vector<std::string>{"send_bw", "recv_bw", "msg_rate", "time", "send_cost",
                                      "recv_cost", "send_cpus_used", "recv_cpus_used"}));
  for (int i : {1, 3})
    EXPECT_EQ(bs[i].names(), (std::vector<std::string>{"latency", "msg_rate", "time",
                                                       "loc_cpus_used", "rem_cpus_used"}));
  for (const Block& b : bs)
    for (const auto& r : b.rows)
      if (r.name.find("cpus_used") != std::string::npos) expect_cpus(r);
  // tcp_bw: the bytes sent are the bytes received.
  expect_cost(bs[0].row("send_cost"), bs[0].row("send_cpus_used"), scaled(bs[0].row("bw")));
  expect_cost(bs[0].row("recv_cost"), bs[0].row("recv_cpus_used"), scaled(bs[0].row("bw")));
  // udp_bw: the sender's cost per byte sent, the receiver's per byte received.
  expect_cost(bs[2].row("send_cost"), bs[2].row("send_cpus_used"), scaled(bs[2].row("send_bw")));
  expect_cost(bs[2].row("recv_cost"), bs[2].row("recv_cpus_used"), scaled(bs[2].row("recv_bw")));
}

TEST_F(QperfE2e, VerboseMoreTimeSplitsTheCpus) {
  Outcome o = qperf({"127.0.0.1", "-lp", port(), "-t", "1", "-vvt", "tcp_lat"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  auto bs = blocks(o.out);
  ASSERT_EQ(bs.size(), 1u) << o.out;
  expect_aligned(bs);
  for (const std::string p : {"loc_", "rem_"}) {
    const Row& used = bs[0].row(p + "cpus_used");
    expect_cpus(used);
    double parts = 0;
    for (const auto& r : bs[0].rows)
      if (r.name.rfind(p + "cpus_", 0) == 0 && r.name != p + "cpus_used") {
        expect_cpus(r);
        parts += plain(r.data);
      }
    // Three significant digits each: the parts add up to the whole, nearly.
    EXPECT_NEAR(parts, plain(used.data), 0.02 * plain(used.data) + 0.1) << p;
    // CPU time: the share of CPUs over the real time.
    const double real = scaled(bs[0].row(p + "real_time"));
    const double cpu = scaled(bs[0].row(p + "cpu_time"));
    EXPECT_NEAR(cpu, plain(used.data) / 100 * real, 0.1 * cpu + 0.01) << p;
  }
}

TEST_F(QperfE2e, CountsFlipAndShortTimesAreRefusedBeforeAnyTest) {
  // qperf's protocol carries none of them for a socket test: refused, one
  // line naming the option, nothing run.
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"-n", "500", "tcp_bw"}, "-n 500: qperf's socket tests run for a time"},
      {{"-f1", "tcp_bw"}, "-f1: qperf's socket tests always send from client to server"},
      {{"-t", "0.5", "tcp_lat"}, "-t 0.5: qperf's protocol carries whole seconds"},
  };
  for (const auto& [args, want] : cases) {
    std::vector<std::string> a = {"127.0.0.1", "-lp", port(), "conf"};
    a.insert(a.end(), args.begin(), args.end());
    Outcome o = qperf(a);
    EXPECT_EQ(o.exit_code, 1) << o.err;
    EXPECT_NE(o.err.find(want), std::string::npos) << o.err;
    EXPECT_EQ(o.out, "") << "a test ran before the refusal";
  }
}

TEST_F(QperfE2e, UnusedAndUnappliedOptionsWarn) {
  Outcome o = qperf(
      {"127.0.0.1", "-lp", port(), "-t", "1", "-f", "1", "-mt", "1K", "-rca", "0", "udp_lat"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.err.find("warning: -f set but not used in test udp_lat"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("warning: -mt set but not used in test udp_lat"), std::string::npos)
      << o.err;
  // -rca travels on the wire now: no "not applied" warning.
  EXPECT_EQ(o.err.find("not applied"), std::string::npos) << o.err;
  EXPECT_EQ(blocks(o.out).size(), 1u);
}

TEST_F(QperfE2e, RunsUnderTheFlowperfName) {
  Outcome o = qperf({"127.0.0.1", "-lp", port(), "-t", "1", "tcp_lat"});
  ASSERT_EQ(o.exit_code, 0);
  Process p({::flowperf::testing::flowperf_bin(), "qperf", "127.0.0.1", "-lp", port(), "-t", "1",
             "tcp_lat"});
  Outcome f = p.wait(30s);
  ASSERT_EQ(f.exit_code, 0) << f.err;
  auto bs = blocks(f.out);
  ASSERT_EQ(bs.size(), 1u);
  EXPECT_EQ(bs[0].test, "tcp_lat");
}

// ---- tests this build cannot run ---------------------------------------------------

TEST_F(QperfE2e, SctpAnswersThatTheKernelLacksIt) {
  int fd = ::socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP);
  const bool kernel_has_sctp = fd >= 0;
  if (fd >= 0) ::close(fd);
  for (const char* test : {"sctp_bw", "sctp_lat"}) {
    Outcome o = qperf({"127.0.0.1", "-lp", port(), test});
    EXPECT_EQ(o.exit_code, 1) << test;
    EXPECT_EQ(o.out, "") << test;  // refused before anything runs
    if (kernel_has_sctp)
      EXPECT_NE(o.err.find("does not run SCTP tests yet"), std::string::npos) << o.err;
    else
      EXPECT_NE(o.err.find("SCTP is not available in this kernel"), std::string::npos) << o.err;
    EXPECT_NE(o.err.find(test), std::string::npos) << o.err;
  }
}

TEST_F(QperfE2e, RdmaTestsAnswerThatThisBuildHasNoRdma) {
  for (const char* test : {"rc_bw", "ud_lat", "xrc_bi_bw", "rc_rdma_write_poll_lat",
                           "rc_compare_swap_mr", "ver_rc_compare_swap"}) {
    Outcome o = qperf({"127.0.0.1", "-lp", port(), test});
    EXPECT_EQ(o.exit_code, 1) << test;
    EXPECT_NE(o.err.find(std::string(test) + ": RDMA is not supported by this build"),
              std::string::npos)
        << o.err;
  }
  // A refused test stops the command before the others run.
  Outcome o = qperf({"127.0.0.1", "-lp", port(), "tcp_lat", "rc_lat"});
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_EQ(o.out, "");
}

// ---- errors -------------------------------------------------------------------------

// Exit 1, as qperf exits for every failure (exit_codes_test compares).
TEST(QperfErrors, BadOptionValuesExitOneWithOneLine) {
  struct Case {
    std::vector<std::string> args;
    std::string names;
  };
  for (const auto& c : std::vector<Case>{{{"h", "-m", "12Q", "tcp_bw"}, "-m 12Q"},
                                         {{"h", "-t", "soon", "tcp_bw"}, "-t soon"},
                                         {{"h", "-oo", "size:1:2:+1", "tcp_bw"}, "-oo size:1:2:+1"},
                                         {{"h", "-lp", "99999", "tcp_bw"}, "-lp 99999"},
                                         {{"h", "-m", "64K", "udp_lat"}, "-m 65536"},
                                         {{"h", "--bogus", "tcp_bw"}, "--bogus"},
                                         {{"h", "tcp_bandwidth"}, "tcp_bandwidth"}}) {
    Outcome o = qperf(c.args);
    EXPECT_EQ(o.exit_code, 1) << c.names;
    EXPECT_EQ(o.out, "");
    EXPECT_NE(o.err.find(c.names), std::string::npos) << o.err;
    EXPECT_EQ(o.err.find('\n'), o.err.size() - 1) << o.err;
  }
}

TEST(QperfErrors, UnreachableServer) {
  const std::string nobody = std::to_string(free_port());
  Outcome o = qperf({"127.0.0.1", "-lp", nobody, "-ws", "0", "tcp_bw"});
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_EQ(o.out, "tcp_bw:\n");
  EXPECT_EQ(o.err.rfind("127.0.0.1: failed to connect", 0), 0u) << o.err;
  EXPECT_NE(o.err.find("no server is listening on 127.0.0.1:" + nobody), std::string::npos)
      << o.err;
  EXPECT_NE(o.err.find("`qperf`"), std::string::npos) << o.err;
}

TEST(QperfErrors, WaitServerWaitsForALateServer) {
  const uint16_t late = free_port();
  Process client({kQperf, "127.0.0.1", "-lp", std::to_string(late), "-ws", "10", "-t", "1",
                  "tcp_lat", "quit"});
  std::this_thread::sleep_for(700ms);
  Process server({kQperf, "-lp", std::to_string(late)});
  Outcome c = client.wait(30s);
  EXPECT_EQ(c.exit_code, 0) << c.err;
  EXPECT_EQ(blocks(c.out).size(), 2u) << c.out;
  Outcome s = server.wait(10s);
  EXPECT_EQ(s.exit_code, 0);
}

// ---- the server ---------------------------------------------------------------------

TEST(QperfServer, QuitStopsTheServer) {
  Server server;
  ASSERT_TRUE(can_connect(server.port()));
  Outcome o = qperf({"127.0.0.1", "-lp", std::to_string(server.port()), "quit"});
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(o.out, "quit:\n");
  Outcome s = server.wait_exit(10s);
  EXPECT_FALSE(s.timed_out);
  EXPECT_EQ(s.exit_code, 0);
  EXPECT_EQ(s.out, "");  // qperf's server says nothing
  EXPECT_FALSE(can_connect(server.port()));
}

TEST(QperfServer, StopsOnSigterm) {
  Server server;
  ASSERT_TRUE(can_connect(server.port()));
  server.signal(SIGTERM);
  Outcome s = server.wait_exit(10s);
  EXPECT_FALSE(s.timed_out);
  EXPECT_EQ(s.exit_code, 0);
}

TEST(QperfServer, BusyPortIsExplained) {
  Server first;
  Outcome o = qperf({"-lp", std::to_string(first.port())}, 10s);
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.err.find("unable to bind to listen port " + std::to_string(first.port())),
            std::string::npos)
      << o.err;
  EXPECT_NE(o.err.find("-lp"), std::string::npos) << o.err;
}

// ---- help and version -------------------------------------------------------------------

TEST(QperfHelp, TopicsAndVersion) {
  for (const char* topic : {"categories", "examples", "opts", "options", "tests", "tcp_bw",
                            "tcp_lat", "udp_bw", "udp_lat", "conf", "quit", "rc_bw"}) {
    Outcome o = qperf({"--help", topic});
    EXPECT_EQ(o.exit_code, 0) << topic;
    EXPECT_FALSE(o.out.empty()) << topic;
  }
  Outcome main_help = qperf({"--help"});
  EXPECT_EQ(main_help.exit_code, 0);
  EXPECT_NE(main_help.out.find("qperf SERVERNODE [OPTIONS] TESTS"), std::string::npos);
  Outcome tests = qperf({"-h", "tests"});
  for (const char* t : {"tcp_bw", "udp_lat", "sctp_bw", "rc_rdma_read_bw", "ver_rc_fetch_add"})
    EXPECT_NE(tests.out.find(t), std::string::npos) << t;
  Outcome bad = qperf({"--help", "nonsense"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("cannot find help category nonsense"), std::string::npos);
  Outcome v = qperf({"-V"});
  EXPECT_EQ(v.exit_code, 0);
  // qperf's line, as Debian's qperf prints it ("qperf 0.4.11"), flowperf beside.
  EXPECT_EQ(v.out, std::string("qperf 0.4.11 (flowperf ") + kVersion + ")\n");
}

}  // namespace
}  // namespace flowperf
