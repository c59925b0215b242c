// Abuse of a real `flowperf server` process on 127.0.0.1: clients killed
// mid-test, connections cut inside a frame, random bytes, slowloris clients,
// clients that stop after Setup, and a crowd of idle connections. After each,
// an ordinary test must still pass with both sides' transaction counts equal,
// and the server must be back to the descriptors and threads it had before
// (read from /proc), so no session, thread or socket is left behind.
//
// The server's control timeout is set with --control-timeout (kControlTimeout
// below): the slowloris test takes about that long.
#include <arpa/inet.h>
#include <dirent.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "e2e/raw_client.h"
#include "net/fd.h"
#include "proto/framing.h"
#include "proto/messages.h"
#include "proto/netperf_wire.h"
#include "support/paths.h"
#include "support/ports.h"
#include "support/process.h"

namespace flowperf::testing {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using nlohmann::json;

const std::string kBin = ::flowperf::testing::flowperf_bin();

// The control timeout the tests give the server (--control-timeout; the
// default is 10 s): shorter, so the slowloris test ends sooner.
constexpr auto kControlTimeout = 5s;
// How long the server may take to give back what a finished session held:
// its accept loop reaps finished session threads once a second.
constexpr auto kSettle = 5s;

struct Usage {
  int fds = -1;
  int threads = -1;
  bool operator==(const Usage&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Usage& u) {
  return os << u.fds << " descriptors, " << u.threads << " threads";
}

Usage usage_of(pid_t pid) {
  Usage u;
  std::string dir = "/proc/" + std::to_string(pid) + "/fd";
  if (DIR* d = ::opendir(dir.c_str())) {
    u.fds = 0;
    while (dirent* e = ::readdir(d))
      if (e->d_name[0] != '.') ++u.fds;
    ::closedir(d);
  }
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("Threads:", 0) == 0) u.threads = std::stoi(line.substr(8));
  return u;
}

// ---- raw control connections ----

// The code of the error frame at the start of bytes ("" when there is none).
std::string error_code_in(const std::string& bytes) {
  if (bytes.size() < proto::kHeaderBytes) return "";
  try {
    uint32_t len = proto::parse_header(reinterpret_cast<const uint8_t*>(bytes.data()));
    if (bytes.size() < proto::kHeaderBytes + len) return "";
    proto::Message m = proto::decode(std::string_view(bytes).substr(proto::kHeaderBytes, len));
    if (auto* e = std::get_if<proto::ErrorMsg>(&m)) return e->code;
  } catch (const proto::ProtocolError&) {
  }
  return "";
}

std::string frame_of(const proto::Message& m) {
  std::string body = proto::encode(m);
  auto h = proto::make_header(static_cast<uint32_t>(body.size()));
  return std::string(reinterpret_cast<const char*>(h.data()), h.size()) + body;
}

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// ---- the server under abuse ----

class Abuse : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = std::make_unique<Process>(
        std::vector<std::string>{kBin, "server", "-p", "0", "-B", "127.0.0.1", "--control-timeout",
                                 std::to_string(kControlTimeout.count())});
    auto line = server_->read_line(10s);
    std::smatch m;
    static const std::regex re(R"(listening on 127\.0\.0\.1:(\d+) )");
    ASSERT_TRUE(line && std::regex_search(*line, m, re)) << "the server did not start";
    port_ = static_cast<uint16_t>(std::stoi(m[1]));
    port_text_ = m[1];
    // The baseline: what the idle server holds once it has settled.
    Usage prev = usage_of(server_->pid());
    for (auto end = Clock::now() + 3s; Clock::now() < end;) {
      std::this_thread::sleep_for(300ms);
      Usage now = usage_of(server_->pid());
      if (now == prev) break;
      prev = now;
    }
    baseline_ = prev;
    ASSERT_GT(baseline_.fds, 0);
    ASSERT_GT(baseline_.threads, 0);
  }

  void TearDown() override {
    drain_log();
    if (HasFailure()) {
      std::string tail;
      for (size_t i = log_.size() > 40 ? log_.size() - 40 : 0; i < log_.size(); ++i)
        tail += log_[i] + "\n";
      std::cerr << "last lines of the server's log:\n" << tail;
    }
  }

  // Keeps the server's stdout pipe from filling up (it logs a line a test).
  void drain_log() {
    while (auto line = server_->read_line(1ms)) log_.push_back(*line);
  }

  bool server_alive() { return ::kill(server_->pid(), 0) == 0 && usage_of(server_->pid()).fds > 0; }

  // An ordinary test, which must pass with both sides' counts equal.
  void expect_normal_test_passes() {
    Process p({kBin, "-H", "127.0.0.1", "-p", port_text_, "-t", "TCP_RR", "-l", "0.5", "--json"});
    Outcome o = p.wait(30s);
    drain_log();
    ASSERT_FALSE(o.timed_out);
    ASSERT_EQ(o.signal, 0);
    ASSERT_EQ(o.exit_code, 0) << o.err;
    json j = json::parse(o.out, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << o.out;
    uint64_t local = j["total"]["transactions"], remote = j["total"]["remote_transactions"];
    EXPECT_GT(local, 0u);
    EXPECT_EQ(local, remote);
  }

  // Polls until the server holds what it held before; the last reading.
  Usage settle(Clock::duration limit = kSettle) {
    Usage now;
    for (auto end = Clock::now() + limit;;) {
      drain_log();
      now = usage_of(server_->pid());
      if (now == baseline_ || Clock::now() >= end) return now;
      std::this_thread::sleep_for(50ms);
    }
  }

  // What every test ends with.
  void expect_healthy() {
    ASSERT_TRUE(server_alive()) << "the server died";
    expect_normal_test_passes();
    EXPECT_EQ(settle(), baseline_) << "the server kept descriptors or threads";
  }

  // Waits until the server holds at least this many more threads.
  bool wait_for_threads(int more, Clock::duration limit) {
    for (auto end = Clock::now() + limit; Clock::now() < end;) {
      if (usage_of(server_->pid()).threads >= baseline_.threads + more) return true;
      std::this_thread::sleep_for(20ms);
    }
    return false;
  }

  // Hello, then Setup of spec; the SetupOk, or nullopt.
  std::optional<proto::SetupOk> hello_and_setup(int fd, const spec::TestSpec& s) {
    const auto deadline = Clock::now() + 10s;
    proto::Message m;
    if (!proto::send_message(fd, proto::Hello{proto::kProtocolVersion, "abuse_test"}, deadline))
      return std::nullopt;
    if (proto::read_message(fd, &m, deadline, proto::kMaxFrame) != proto::ReadStatus::kOk ||
        !std::holds_alternative<proto::Welcome>(m))
      return std::nullopt;
    if (!proto::send_message(fd, proto::Setup{s}, deadline)) return std::nullopt;
    if (proto::read_message(fd, &m, deadline, proto::kMaxFrame) != proto::ReadStatus::kOk)
      return std::nullopt;
    if (auto* ok = std::get_if<proto::SetupOk>(&m)) return *ok;
    return std::nullopt;
  }

  // One greeted data connection for stream index.
  net::Fd data_connection(const proto::SetupOk& ok, uint32_t index) {
    net::Fd fd = dial(ok.tcp_port);
    uint8_t greeting[12];
    std::memcpy(greeting, &ok.cookie, 8);
    std::memcpy(greeting + 8, &index, 4);
    if (fd && !send_bytes(fd.get(), greeting, sizeof greeting)) fd.reset();
    return fd;
  }

  std::unique_ptr<Process> server_;
  uint16_t port_ = 0;
  std::string port_text_;
  Usage baseline_;
  std::vector<std::string> log_;
};

// a. 200 clients in 4 batches of 50, each killed with SIGKILL once its
// TCP_STREAM test is running (its header is printed when the test starts).
// The tests are far longer than the kill comes: under a sanitizer on two
// CPUs the 50 starts of a batch may spread over several seconds, and a
// client whose test had already ended would not be killed mid-test.
TEST_F(Abuse, TwoHundredClientsKilledMidTest) {
  for (int batch = 0; batch < 4; ++batch) {
    std::vector<std::unique_ptr<Process>> clients;
    const auto t0 = Clock::now();
    for (int i = 0; i < 50; ++i)
      clients.push_back(std::make_unique<Process>(std::vector<std::string>{
          kBin, "-H", "127.0.0.1", "-p", port_text_, "-t", "TCP_STREAM", "-l", "60"}));
    int started = 0;
    for (auto& c : clients) {
      // The header's first line comes once both sides run; killing a client
      // during its handshake is another test (SetupThenClose...).
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(t0 + 15s - Clock::now());
      if (c->read_line(std::max(left, std::chrono::milliseconds(1)))) ++started;
    }
    std::this_thread::sleep_until(std::max(Clock::now(), t0 + 500ms));
    drain_log();
    // A client prints its header once its test runs, and the server runs each session on a
    // thread of its own (Server::admit), so the 50 threads are there once all 50 started: 5 s is
    // polling slack. 15 s for the headers: 50 start-ups of ~5 ms each (README) take 250 ms in
    // all, and the 60 s tests are still running when the kill comes.
    EXPECT_TRUE(wait_for_threads(50, 5s)) << "batch " << batch << ": the server runs no tests";
    EXPECT_EQ(started, 50) << "batch " << batch << ": clients that never started";
    for (auto& c : clients) c->signal(SIGKILL);
    for (auto& c : clients) EXPECT_EQ(c->wait(10s).signal, SIGKILL);
    ASSERT_TRUE(server_alive()) << "batch " << batch;
  }
  expect_healthy();
}

// b. Connections that end inside a frame: in the first frame's header, in
// its body, and inside the second frame (Setup), with a FIN, with a reset,
// and half-closed (then the server must answer bad_message and close).
TEST_F(Abuse, ConnectionsClosedInsideAFrame) {
  const std::string hello = frame_of(proto::Hello{proto::kProtocolVersion, "abuse_test"});
  spec::TestSpec s;
  s.test = spec::TestKind::kTcpRr;
  s.duration_s = 1;
  const std::string setup = frame_of(proto::Setup{s});
  struct Cut {
    std::string name;
    std::string bytes;  // what is sent before the cut
    bool after_hello;   // a whole Hello goes first
    bool expect_bad_message;
  };
  std::vector<Cut> cuts;
  for (size_t n : {2, 3, 5, 7})
    cuts.push_back({"hello header " + std::to_string(n), hello.substr(0, n), false, true});
  for (size_t n : {size_t{8}, size_t{9}, hello.size() / 2, hello.size() - 1})
    cuts.push_back({"hello body " + std::to_string(n), hello.substr(0, n), false, true});
  for (size_t n : {size_t{1}, size_t{4}, size_t{7}})
    cuts.push_back({"setup header " + std::to_string(n), setup.substr(0, n), true, true});
  for (size_t n : {size_t{8}, setup.size() / 2, setup.size() - 1})
    cuts.push_back({"setup body " + std::to_string(n), setup.substr(0, n), true, true});
  // One byte of a first frame cannot be told from netperf's first byte: once
  // the client has closed (or half-closed) after it, no second byte will
  // come, and the server gives it to its netperf handler, which closes
  // without a word.
  cuts.push_back({"first byte only", hello.substr(0, 1), false, false});

  for (const auto& cut : cuts) {
    for (int style = 0; style < 3; ++style) {  // 0 close, 1 reset, 2 half-close
      SCOPED_TRACE(cut.name + (style == 0 ? ", closed" : style == 1 ? ", reset" : ", half-closed"));
      net::Fd fd = dial(port_);
      ASSERT_TRUE(fd);
      if (cut.after_hello) {
        ASSERT_TRUE(send_bytes(fd.get(), hello));
        proto::Message m;
        ASSERT_EQ(proto::read_message(fd.get(), &m, Clock::now() + 10s, proto::kMaxFrame),
                  proto::ReadStatus::kOk);
        ASSERT_TRUE(std::holds_alternative<proto::Welcome>(m));
      }
      ASSERT_TRUE(send_bytes(fd.get(), cut.bytes));
      if (style == 0) {
        fd.reset();
      } else if (style == 1) {
        reset_close(fd);
      } else {
        ::shutdown(fd.get(), SHUT_WR);
        std::string reply;
        auto took = wait_closed(fd.get(), 5s, &reply);
        ASSERT_TRUE(took) << "the server kept a half-closed connection open";
        if (cut.expect_bad_message) {
          EXPECT_EQ(error_code_in(reply), "bad_message");
        }
      }
    }
  }
  expect_healthy();
}

// c. Random bytes of several sizes (a seeded PRNG, so a failure repeats):
// as they come, after flowperf's magic, as the body of a valid header, and
// after a netperf request number; then oversized and empty frame headers,
// and netperf omni requests with random sizes that are then abandoned.
TEST_F(Abuse, RandomBytesAndOversizedFrames) {
  std::mt19937 rng(20240611);
  auto random_bytes = [&](size_t n) {
    std::string s(n, '\0');
    for (auto& c : s) c = static_cast<char>(rng());
    return s;
  };
  auto be32 = [](uint32_t v) {
    uint8_t b[4] = {uint8_t(v >> 24), uint8_t(v >> 16), uint8_t(v >> 8), uint8_t(v)};
    return std::string(reinterpret_cast<char*>(b), 4);
  };
  auto send_then_half_close = [&](const std::string& bytes, const std::string& what) {
    SCOPED_TRACE(what);
    net::Fd fd = dial(port_);
    ASSERT_TRUE(fd);
    ASSERT_TRUE(send_bytes(fd.get(), bytes));
    ::shutdown(fd.get(), SHUT_WR);
    EXPECT_TRUE(wait_closed(fd.get(), 10s)) << "the server kept the connection open";
  };

  for (size_t n : {1, 2, 3, 8, 9, 100, 655, 656, 657, 1000, 4096, 65536}) {
    const std::string size = std::to_string(n) + " bytes";
    send_then_half_close(random_bytes(n), "random, " + size);
    send_then_half_close("FP" + random_bytes(n), "FP then random, " + size);
    const std::string valid_header(
        reinterpret_cast<const char*>(proto::make_header(static_cast<uint32_t>(n)).data()), 8);
    send_then_half_close(valid_header + random_bytes(n), "frame of random, " + size);
  }
  for (uint32_t type : {0u, 1u, 2u, 5u, 6u, 10u, 13u, 97u, 600u, 998u, 0x7fffffffu}) {
    for (size_t n : {4, 100, 656, 3 * 656 + 100}) {
      send_then_half_close(
          be32(type) + random_bytes(n - 4),
          "netperf request " + std::to_string(type) + ", " + std::to_string(n) + " bytes");
    }
  }

  // Frames over the limit are refused from the header alone: the server
  // answers bad_message at once, without waiting for the body.
  for (uint32_t len : {proto::kMaxClientFrame + 1, 0xffffffffu, 0u}) {
    for (bool after_hello : {false, true}) {
      SCOPED_TRACE("frame length " + std::to_string(len) + (after_hello ? " after hello" : ""));
      net::Fd fd = dial(port_);
      ASSERT_TRUE(fd);
      if (after_hello) {
        ASSERT_TRUE(send_bytes(fd.get(), frame_of(proto::Hello{proto::kProtocolVersion, "x"})));
        proto::Message m;
        ASSERT_EQ(proto::read_message(fd.get(), &m, Clock::now() + 10s, proto::kMaxFrame),
                  proto::ReadStatus::kOk);
      }
      auto h = proto::make_header(len);
      ASSERT_TRUE(send_bytes(fd.get(), h.data(), h.size()));
      std::string reply;
      auto took = wait_closed(fd.get(), 5s, &reply);
      ASSERT_TRUE(took) << "the server waited for a body it must refuse";
      EXPECT_EQ(error_code_in(reply), "bad_message");
    }
  }

  // netperf omni requests the server accepts, with random sizes and
  // lengths, abandoned once the server has opened its data socket.
  namespace np = proto::netperf;
  std::uniform_int_distribution<int32_t> size(-5, 70000), length(-100000, 30);
  for (int i = 0; i < 12; ++i) {
    np::OmniRequest r;
    r.ipfamily = np::kNfInet;
    r.socket_type = i % 3 == 2 ? np::kNstDgram : np::kNstStream;
    r.protocol = r.socket_type == np::kNstDgram ? IPPROTO_UDP : IPPROTO_TCP;
    r.direction = i % 3 == 0   ? np::kDirRecv
                  : i % 3 == 1 ? (np::kDirXmit | np::kDirRecv)
                               : np::kDirRecv;
    r.send_size = size(rng);
    r.receive_size = size(rng);
    r.request_size = size(rng);
    r.response_size = size(rng);
    r.send_buf_size = size(rng);
    r.recv_buf_size = size(rng);
    r.test_length = length(rng);
    const np::Frame f = np::encode_omni_request(r);
    SCOPED_TRACE("omni request " + std::to_string(i));
    net::Fd fd = dial(port_);
    ASSERT_TRUE(fd);
    ASSERT_TRUE(send_bytes(fd.get(), f.data(), f.size()));
    np::Frame reply{};
    size_t got = 0;
    while (got < reply.size()) {
      pollfd p{fd.get(), POLLIN, 0};
      if (::poll(&p, 1, 5000) <= 0) break;
      ssize_t n = ::recv(fd.get(), reply.data() + got, reply.size() - got, 0);
      if (n <= 0) break;
      got += static_cast<size_t>(n);
    }
    EXPECT_EQ(got, reply.size()) << "no setup response";
    if (i % 2) reset_close(fd);  // and the other half with a FIN
  }
  expect_healthy();
}

// d. Slowloris clients, one byte a second, must be cut off by the control
// timeout: while the server looks for the first bytes (a silent client, or
// one byte, too few to tell the protocol), inside the first frame, inside a
// first message the server takes for netperf's or qperf's, and inside Setup
// after a good Hello.
TEST_F(Abuse, SlowlorisIsCutOffByTheControlTimeout) {
  const std::string hello = frame_of(proto::Hello{proto::kProtocolVersion, "abuse_test"});
  spec::TestSpec s;
  s.test = spec::TestKind::kTcpRr;
  const std::string setup = frame_of(proto::Setup{s});
  struct Drip {
    std::string name;
    std::string at_once;  // sent on connecting (after Hello when after_hello)
    std::string dripped;  // then one byte a second
    bool after_hello = false;
    std::string error_code;               // what the server says before it closes, if anything
    std::optional<Clock::duration> took;  // from the last byte at once to the close
    std::string reply;
  };
  std::vector<Drip> drips = {
      {"silent", "", "", false, "", {}, {}},
      {"inside the first frame", "FP", hello.substr(2), false, "timeout", {}, {}},
      // One byte cannot tell flowperf from netperf: the dispatch waits for
      // the second, which says flowperf, and the frame then times out.
      {"first byte alone (the second decides)", "", hello, false, "timeout", {}, {}},
      {"netperf-looking request",
       std::string("\0\0\0", 3),
       std::string(653, 'x'),
       false,
       "",
       {},
       {}},
      // qperf's head takes four bytes to tell from netperf's; dripping them
      // buys no time: the timeout counts from accept, not from the dispatch.
      {"qperf-looking request, its head dripped",
       std::string("\0\0", 2),
       std::string("\x04\0\x0b\0", 4) + std::string(200, 'x'),
       false,
       "",
       {},
       {}},
      {"inside Setup", "", setup, true, "timeout", {}, {}},
  };
  std::vector<std::thread> threads;
  for (auto& d : drips) {
    threads.emplace_back([&d, this] {
      net::Fd fd = dial(port_);
      if (!fd) return;
      if (d.after_hello) {
        proto::Message m;
        if (!send_bytes(fd.get(), frame_of(proto::Hello{proto::kProtocolVersion, "x"})) ||
            proto::read_message(fd.get(), &m, Clock::now() + 10s, proto::kMaxFrame) !=
                proto::ReadStatus::kOk)
          return;
      }
      if (!d.at_once.empty() && !send_bytes(fd.get(), d.at_once)) return;
      const auto t0 = Clock::now();
      size_t next = 0;
      auto next_drip = t0 + 1s;
      if (d.at_once.empty() && !d.dripped.empty()) {
        send_bytes(fd.get(), d.dripped.data(), 1);
        next = 1;
      }
      for (;;) {
        if (Clock::now() - t0 > kControlTimeout + 10s) return;  // never cut off
        auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(next_drip - Clock::now());
        pollfd p{fd.get(), POLLIN, 0};
        if (::poll(&p, 1, static_cast<int>(std::max<int64_t>(wait.count(), 0))) > 0) {
          char buf[4096];
          ssize_t n = ::recv(fd.get(), buf, sizeof buf, 0);
          if (n > 0) {
            d.reply.append(buf, static_cast<size_t>(n));
            continue;
          }
          d.took = Clock::now() - t0;
          return;
        }
        if (Clock::now() >= next_drip) {
          if (next < d.dripped.size() && !send_bytes(fd.get(), d.dripped.data() + next++, 1)) {
            d.took = Clock::now() - t0;
            return;
          }
          next_drip += 1s;
        }
      }
    });
  }
  // While they drip, the server serves others.
  expect_normal_test_passes();
  for (auto& t : threads) t.join();
  for (const auto& d : drips) {
    SCOPED_TRACE(d.name);
    ASSERT_TRUE(d.took) << "the server never cut the client off";
    // Expected about 5 s (kControlTimeout): the server counts from accept (from its Welcome for
    // "inside Setup"), t0 from just after the connect and first bytes (or the Hello). A late
    // wake-up of the server or of this thread on a loaded 2-core VM only adds: 3 s of slack for
    // that, and 1.5 s below for the moments between accept and t0.
    EXPECT_GE(seconds(*d.took), seconds(kControlTimeout) - 1.5) << "cut off before the timeout";
    EXPECT_LE(seconds(*d.took), seconds(kControlTimeout) + 3) << "cut off late";
    EXPECT_EQ(error_code_in(d.reply), d.error_code);
  }
  expect_healthy();
}

// e. A client that completes Hello and Setup of a TCP test and then never
// opens its data connections (or opens only some), and closes. The server
// watches the control connection while it waits (up to 60 s) for data
// connections, so it frees the session as soon as the client closes.
TEST_F(Abuse, SetupThenCloseBeforeDataConnections) {
  std::vector<net::Fd> controls;
  std::vector<net::Fd> data;
  spec::TestSpec stream;
  stream.test = spec::TestKind::kTcpStream;
  stream.streams = 4;
  stream.duration_s = 1;
  spec::TestSpec rr = stream;
  rr.test = spec::TestKind::kTcpRr;
  rr.streams = 1;
  // Silent after Setup, then closed; closed at once; one of four data
  // connections, then closed.
  for (const auto& s : {stream, rr, stream}) {
    net::Fd fd = dial(port_);
    ASSERT_TRUE(fd);
    auto ok = hello_and_setup(fd.get(), s);
    ASSERT_TRUE(ok) << "no setup_ok";
    if (controls.size() == 2) data.push_back(data_connection(*ok, 2));
    controls.push_back(std::move(fd));
  }
  // While the first goes silent, the server serves others.
  expect_normal_test_passes();
  std::this_thread::sleep_for(1s);
  for (auto& fd : controls) fd.reset();
  for (auto& fd : data) fd.reset();
  ASSERT_TRUE(server_alive());
  expect_normal_test_passes();
  EXPECT_EQ(settle(), baseline_)
      << "3 clients closed after Setup (no or too few data connections), but " << kSettle.count()
      << " s later the server still holds more than when idle: it waits for data connections "
         "(60 s) without watching the control connection";
}

// e, continued: the same for tests with nothing to accept before Start (UDP,
// TCP_CRR), for a TCP test whose data connections all arrived, and for one
// that started; silent for a while, then closed.
TEST_F(Abuse, SetupThenSilenceThenClose) {
  struct Case {
    spec::TestKind kind;
    bool connect_data, start;
  };
  const std::vector<Case> cases = {
      {spec::TestKind::kUdpStream, false, false}, {spec::TestKind::kUdpRr, false, false},
      {spec::TestKind::kTcpCrr, false, false},    {spec::TestKind::kTcpStream, true, false},
      {spec::TestKind::kTcpRr, true, true},       {spec::TestKind::kTcpStream, true, true}};
  std::vector<net::Fd> controls, data;
  for (const auto& c : cases) {
    spec::TestSpec s;
    s.test = c.kind;
    s.streams = 2;
    s.duration_s = 30;
    net::Fd fd = dial(port_);
    ASSERT_TRUE(fd);
    auto ok = hello_and_setup(fd.get(), s);
    ASSERT_TRUE(ok) << spec::info(c.kind).name;
    if (c.connect_data)
      for (uint32_t i = 0; i < s.streams; ++i) data.push_back(data_connection(*ok, i));
    if (c.start) {
      proto::Message m;
      ASSERT_TRUE(proto::send_message(fd.get(), proto::Start{}, Clock::now() + 5s));
      ASSERT_EQ(proto::read_message(fd.get(), &m, Clock::now() + 10s, proto::kMaxFrame),
                proto::ReadStatus::kOk);
      EXPECT_TRUE(std::holds_alternative<proto::Started>(m)) << proto::message_name(m);
    }
    controls.push_back(std::move(fd));
  }
  expect_normal_test_passes();
  std::this_thread::sleep_for(1s);
  for (auto& fd : controls) fd.reset();
  for (auto& fd : data) fd.reset();
  expect_healthy();
}

// c, continued: a netperf client that sends its next request's first bytes
// before its test's data connection, then vanishes. The server keeps
// watching the control connection for the client's close after those early
// bytes, so it frees the session at once rather than waiting for the data
// connection until the test's own end (up to an hour).
TEST_F(Abuse, NetperfRequestThenMoreBytesThenClosed) {
  namespace np = proto::netperf;
  for (int32_t length : {-1000, 20}) {
    np::OmniRequest r;
    r.ipfamily = np::kNfInet;
    r.direction = np::kDirRecv;  // TCP_STREAM
    r.test_length = length;
    const np::Frame f = np::encode_omni_request(r);
    net::Fd fd = dial(port_);
    ASSERT_TRUE(fd);
    ASSERT_TRUE(send_bytes(fd.get(), f.data(), f.size()));
    np::Frame reply{};
    size_t got = 0;
    while (got < reply.size()) {
      pollfd p{fd.get(), POLLIN, 0};
      if (::poll(&p, 1, 5000) <= 0) break;
      ssize_t n = ::recv(fd.get(), reply.data() + got, reply.size() - got, 0);
      if (n <= 0) break;
      got += static_cast<size_t>(n);
    }
    ASSERT_EQ(got, reply.size()) << "no setup response";
    ASSERT_TRUE(send_bytes(fd.get(), std::string(4, '\0')));
    std::this_thread::sleep_for(200ms);
  }
  ASSERT_TRUE(server_alive());
  expect_normal_test_passes();
  EXPECT_EQ(settle(), baseline_)
      << "2 netperf clients sent DO_OMNI, 4 more bytes, and closed, but " << kSettle.count()
      << " s later the server still holds more than when idle: the early bytes made it stop "
         "watching the control connection, so it waits for the data connection until "
         "test_length + 4 s, or max_duration + 30 s for a count (-l negative) test";
}

// f. 100 connections opened and held idle at once, then closed.
// They cost the server descriptors, not threads: it holds connections that
// have not said which protocol they speak without a thread of their own.
TEST_F(Abuse, HundredIdleConnectionsHeldThenClosed) {
  std::vector<net::Fd> idle;
  for (int i = 0; i < 100; ++i) {
    idle.push_back(dial(port_));
    ASSERT_TRUE(idle.back()) << "connection " << i;
  }
  // All 100 accepted (their descriptors), and no thread more than before.
  Usage held = baseline_;
  for (int i = 0; i < 250 && held.fds < baseline_.fds + 100; ++i) {
    std::this_thread::sleep_for(20ms);
    held = usage_of(server_->pid());
  }
  EXPECT_GE(held.fds, baseline_.fds + 100) << "the server has not taken all 100 connections";
  EXPECT_EQ(held.threads, baseline_.threads) << "idle connections hold threads";
  expect_normal_test_passes();
  for (auto& fd : idle) fd.reset();
  expect_healthy();
}

// ---- the other listeners: `--iperf3-port` and the netserver personality ----

// Abuse of the listeners the Abuse fixture does not start: the iperf3 port
// of `flowperf server --iperf3-port`, and the netserver personality. Four
// connections at once, each doing one wrong thing: 700 random bytes; a
// handshake begun (iperf3: a cookie, then the server's state byte read;
// netperf: the first 100 bytes of a DO_OMNI request) and reset; silence;
// and one byte every 100 ms. The server must close each of them within its
// control timeout (plus slack), serve a normal test while they misbehave
// and after, and be back to its descriptors and threads.
struct OtherListener {
  std::string name;
  std::vector<std::string> server_argv;  // PORT stands for the port
  double control_timeout_s;              // when it gives up on a quiet client
  std::string handshake_start;           // what a well-behaved client sends first
  bool read_reply_before_reset;          // the server answers handshake_start
  std::vector<std::string> client_argv;  // a normal test against PORT
};

// gtest names the case by its name instead of dumping the struct's bytes.
void PrintTo(const OtherListener& l, std::ostream* os) { *os << l.name; }

// A normal test passes: exit 0, and the tool's own words for bytes moved.
void expect_client_passes(const OtherListener& l, const std::string& port) {
  Process p(with_port(l.client_argv, port));
  Outcome o = p.wait(30s);
  ASSERT_FALSE(o.timed_out);
  ASSERT_EQ(o.signal, 0);
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  if (l.name == "iperf3_port") {
    json j = json::parse(o.out, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << o.out;
    EXPECT_GT(j["end"]["sum_received"]["bytes"].get<double>(), 0) << o.out;
  } else {
    // netperf -P 0: one line, the throughput last.
    std::istringstream line(o.out);
    std::string word, last;
    while (line >> word) last = word;
    EXPECT_GT(std::stod(last), 0) << o.out;
  }
}

class AbuseOtherListener : public ::testing::TestWithParam<OtherListener> {};

TEST_P(AbuseOtherListener, EachBadClientIsClosedAndOthersAreServed) {
  const OtherListener& l = GetParam();
  const std::string port = std::to_string(free_port());
  Process server(with_port(l.server_argv, port));
  bool up = false;
  for (auto end = Clock::now() + 10s; !up && Clock::now() < end; std::this_thread::sleep_for(20ms))
    up = static_cast<bool>(dial(static_cast<uint16_t>(std::stoi(port))));
  ASSERT_TRUE(up) << "the server did not start";
  const uint16_t p = static_cast<uint16_t>(std::stoi(port));
  std::this_thread::sleep_for(300ms);  // the probe's session ends
  const Usage baseline = usage_of(server.pid());

  struct Bad {
    std::string name;
    std::optional<Clock::duration> closed_after;
  };
  std::vector<Bad> bad = {
      {"garbage", {}}, {"reset mid-handshake", {}}, {"silent", {}}, {"one byte per 100 ms", {}}};
  const auto limit = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(l.control_timeout_s) + 5s);
  std::vector<std::thread> threads;
  threads.emplace_back([&] {
    net::Fd fd = dial(p);
    std::mt19937 rng(7);
    std::string junk(700, '\0');
    for (auto& c : junk) c = static_cast<char>(rng());
    if (fd && send_bytes(fd.get(), junk)) bad[0].closed_after = wait_closed(fd.get(), limit);
  });
  threads.emplace_back([&] {
    net::Fd fd = dial(p);
    if (!fd || !send_bytes(fd.get(), l.handshake_start)) return;
    if (l.read_reply_before_reset) {
      pollfd pf{fd.get(), POLLIN, 0};
      char b;
      if (::poll(&pf, 1, 5000) != 1 || ::recv(fd.get(), &b, 1, 0) != 1) return;
    }
    reset_close(fd);
    bad[1].closed_after = Clock::duration::zero();  // the reset is ours; the server must live
  });
  threads.emplace_back([&] {
    net::Fd fd = dial(p);
    if (fd) bad[2].closed_after = wait_closed(fd.get(), limit);
  });
  threads.emplace_back([&] {
    net::Fd fd = dial(p);
    if (!fd) return;
    const auto t0 = Clock::now();
    const std::string drip = l.handshake_start + std::string(1000, 'x');
    for (char c : drip) {
      if (Clock::now() - t0 > limit) return;  // never cut off
      if (!send_bytes(fd.get(), &c, 1)) break;
      std::this_thread::sleep_for(100ms);
      // Whatever the server said meanwhile; 0 or an error: it closed.
      char buf[4096];
      ssize_t n;
      while ((n = ::recv(fd.get(), buf, sizeof buf, MSG_DONTWAIT)) > 0) {
      }
      if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) break;
    }
    bad[3].closed_after = Clock::now() - t0;
  });
  // While they misbehave, a normal client is served.
  expect_client_passes(l, port);
  for (auto& t : threads) t.join();
  for (const auto& b : bad) {
    SCOPED_TRACE(b.name);
    ASSERT_TRUE(b.closed_after) << "the server kept the connection open past its timeout";
  }
  ASSERT_EQ(::kill(server.pid(), 0), 0) << "the server died";
  expect_client_passes(l, port);
  Usage now;
  for (auto end = Clock::now() + kSettle; Clock::now() < end; std::this_thread::sleep_for(50ms))
    if ((now = usage_of(server.pid())) == baseline) break;
  EXPECT_EQ(now, baseline) << "the server kept descriptors or threads";
}

std::string netperf_request_start() {
  std::string r(100, '\0');
  r[3] = 97;  // DO_OMNI, in network order
  return r;
}

INSTANTIATE_TEST_SUITE_P(
    Listeners, AbuseOtherListener,
    ::testing::Values(OtherListener{"iperf3_port",
                                    {kBin, "server", "-p", "0", "-B", "127.0.0.1", "--iperf3-port",
                                     "PORT", "--control-timeout", "2"},
                                    2,
                                    std::string(36, 'c') +
                                        std::string(1, '\0'),  // an iperf3 cookie
                                    true,
                                    {::flowperf::testing::personality("iperf3"), "-c", "127.0.0.1",
                                     "-p", "PORT", "-t", "1", "-J"}},
                      OtherListener{"netserver",
                                    {::flowperf::testing::personality("netserver"), "-D", "-L",
                                     "127.0.0.1", "-p", "PORT"},
                                    10,
                                    netperf_request_start(),
                                    false,
                                    {::flowperf::testing::personality("netperf"), "-H", "127.0.0.1",
                                     "-p", "PORT", "-l", "1", "-P", "0"}}),
    [](const ::testing::TestParamInfo<OtherListener>& i) { return i.param.name; });

}  // namespace
}  // namespace flowperf::testing
