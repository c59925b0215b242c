// Authentication and a public server's limits, with real processes:
// `flowperf server --keys` and `flowperf --key`, key files others can read,
// bad options, and 1,000 unauthenticated connections hammering the server
// (silent, garbage, no key, wrong key, reset) while an authenticated test
// runs: the test finishes unharmed, a second authenticated client gets in
// during the storm, and the server's thread count stays flat (idle
// connections hold no thread).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "e2e/iperf3_peers.h"
#include "net/fd.h"
#include "proto/framing.h"
#include "session/auth_exchange.h"
#include "support/paths.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace flowperf::testing {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using nlohmann::json;

const std::string kBin = ::flowperf::testing::flowperf_bin();

int threads_of(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("Threads:", 0) == 0) return std::stoi(line.substr(8));
  return -1;
}

class Auth : public ::testing::Test {
 protected:
  void SetUp() override {
    write("server.keys",
          "# who may test here\nalice alice-secret-0123456789\nbob bob-secret-0123456789\n");
    write("alice.key", "alice alice-secret-0123456789\n");
    write("wrong.key", "alice not-alices-secret-000\n");
    write("readable.key", "alice alice-secret-0123456789\n", 0644);
  }
  void write(const std::string& name, const std::string& text, mode_t mode = 0600) {
    std::ofstream(dir_ / name) << text;
    ::chmod((dir_ / name).c_str(), mode);
  }
  void start_server(std::vector<std::string> extra = {}) {
    std::vector<std::string> argv = {kBin,
                                     "server",
                                     "-p",
                                     "0",
                                     "-B",
                                     "127.0.0.1",
                                     "--keys",
                                     dir_ / "server.keys",
                                     "--control-timeout",
                                     "2"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    server_ = std::make_unique<Process>(argv);
    port_ = announced_port(*server_);
    ASSERT_FALSE(port_.empty()) << "the server did not start";
  }
  Outcome client(std::vector<std::string> args, std::chrono::milliseconds limit = 30s) {
    std::vector<std::string> argv = {kBin, "-H", "127.0.0.1", "-p", port_};
    argv.insert(argv.end(), args.begin(), args.end());
    Process p(argv);
    return p.wait(limit);
  }
  std::string server_log() {
    server_->signal(SIGTERM);
    Outcome o = server_->wait(10s);
    return o.out + o.err;
  }
  uint16_t port() const { return static_cast<uint16_t>(std::stoi(port_)); }

  TempDir dir_{"flowperf-auth"};
  std::unique_ptr<Process> server_;
  std::string port_;
};

TEST_F(Auth, TheRightKeyRunsAndEveryOtherWayIsRefused) {
  start_server();
  Outcome ok = client({"--key", dir_ / "alice.key", "-t", "TCP_RR", "-l", "0.5", "--json"});
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  json j = json::parse(ok.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << ok.out;
  EXPECT_GT(j["total"]["transactions"].get<uint64_t>(), 0u) << ok.out;

  Outcome none = client({"-t", "TCP_RR", "-l", "0.5"});
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.err.find("accepts only authenticated clients: run the client with --key FILE"),
            std::string::npos)
      << none.err;

  Outcome wrong = client({"--key", dir_ / "wrong.key", "-t", "TCP_RR", "-l", "0.5"});
  EXPECT_EQ(wrong.exit_code, 1);
  EXPECT_NE(wrong.err.find("authentication failed for key 'alice'"), std::string::npos)
      << wrong.err;

  Outcome readable = client({"--key", dir_ / "readable.key", "-t", "TCP_RR", "-l", "0.5"});
  EXPECT_EQ(readable.exit_code, 2);
  EXPECT_NE(readable.err.find("mode 0644"), std::string::npos) << readable.err;
  EXPECT_NE(readable.err.find("chmod 600"), std::string::npos) << readable.err;

  // netperf's client cannot authenticate: the server closes it.
  Process np(
      {::flowperf::testing::personality("netperf"), "-H", "127.0.0.1", "-p", port_, "-l", "1"});
  Outcome n = np.wait(30s);
  EXPECT_NE(n.exit_code, 0) << n.out;

  const std::string log = server_log();
  EXPECT_NE(log.find("(key alice) TCP_RR x1: done"), std::string::npos) << log;
  EXPECT_NE(log.find("refused: no key given (authentication required)"), std::string::npos) << log;
  EXPECT_NE(log.find("authentication failed for key 'alice' (wrong proof)"), std::string::npos)
      << log;
  EXPECT_NE(log.find("(netperf client): this server requires authentication"), std::string::npos)
      << log;
}

TEST_F(Auth, BadServerOptionsAreRefusedBeforeListening) {
  struct Case {
    std::vector<std::string> args;
    const char* says;
  } cases[] = {
      {{"--keys", dir_ / "readable.key"}, "run `chmod 600 "},
      {{"--keys", dir_ / "absent.keys"}, "cannot open it"},
      {{"--allow", "10.0.0.0/33"}, "--allow 10.0.0.0/33: the prefix length must be 0-32"},
      {{"--deny", "10.1.2.3/8"}, "did you mean 10.0.0.0/8?"},
      {{"--allow", "example.com"}, "not an IP address or CIDR network"},
      {{"--max-rate", "fast"}, "--max-rate fast"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> argv = {kBin, "server", "-p", "0", "-B", "127.0.0.1"};
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    Process p(argv);
    Outcome o = p.wait(10s);
    EXPECT_EQ(o.exit_code, 2) << c.args[0] << ": " << o.err;
    EXPECT_NE(o.err.find(c.says), std::string::npos) << o.err;
    EXPECT_EQ(o.out.find("listening"), std::string::npos) << o.out;
  }
  Outcome embedded = [&] {
    Process p({kBin, "--key", dir_ / "alice.key", "-l", "0.2"});
    return p.wait(10s);
  }();
  EXPECT_EQ(embedded.exit_code, 2);
  EXPECT_NE(embedded.err.find("--key authenticates to a server given with -H"), std::string::npos)
      << embedded.err;
}

// The real iperf3's client against a server's limits: its streams, and
// its tests a minute, each refused (iperf3 says the server refused it) while
// a test within them runs.
TEST(PublicServer, RealIperf3ClientsMeetTheLimits) {
  REQUIRE_IPERF3();
  Process server({kBin, "server", "-p", "0", "-B", "127.0.0.1", "--max-streams", "2",
                  "--max-tests-per-minute", "2"});
  const std::string port = announced_port(server);
  ASSERT_FALSE(port.empty());
  auto iperf3 = [&](const std::string& streams) {
    Process p({real_iperf3(), "-c", "127.0.0.1", "-p", port, "-t", "1", "-P", streams});
    return p.wait(30s);
  };
  Outcome three = iperf3("3");
  EXPECT_NE(three.exit_code, 0) << three.out;
  Outcome two = iperf3("2");
  EXPECT_EQ(two.exit_code, 0) << two.out << two.err;
  EXPECT_NE(two.out.find("receiver"), std::string::npos) << two.out;
  // The third test this minute (the refused one counted too: it took a slot).
  Outcome again = iperf3("1");
  EXPECT_NE(again.exit_code, 0) << again.out;
  server.signal(SIGTERM);
  Outcome log = server.wait(10s);
  EXPECT_NE(log.out.find("-P 3: this server runs at most 2 streams a test"), std::string::npos)
      << log.out;
  EXPECT_NE(log.out.find("started 2 tests in the last minute"), std::string::npos) << log.out;
}

// One unauthenticated connection of the storm, by kind. It comes from
// 127.0.0.2, another host as far as the server can tell: once that host
// has failed to authenticate ten times in a minute the server turns it away
// at the door (AuthFailures), which the client on 127.0.0.1 must not feel.
void misbehave(uint16_t port, int kind, std::vector<net::Fd>* keep, std::mt19937* rng) {
  net::Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in from{};
  from.sin_family = AF_INET;
  ::inet_pton(AF_INET, "127.0.0.2", &from.sin_addr);
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&from), sizeof from) != 0) return;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  ::inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) return;
  switch (kind) {
    case 0:  // silent, held open
      keep->push_back(std::move(fd));
      return;
    case 1: {  // a little garbage, held open
      std::string junk(1 + (*rng)() % 300, '\0');
      for (auto& c : junk) c = static_cast<char>((*rng)());
      [[maybe_unused]] auto r = ::send(fd.get(), junk.data(), junk.size(), MSG_NOSIGNAL);
      keep->push_back(std::move(fd));
      return;
    }
    case 2: {  // a hello without a key
      proto::send_message(fd.get(), proto::Hello{}, Clock::now() + 1s);
      proto::Message m;
      proto::read_message(fd.get(), &m, Clock::now() + 2s);
      return;
    }
    case 3: {  // a wrong key
      session::ClientAuth mallory(auth::Key{"mallory", "mallory-secret-000000"});
      proto::Hello h;
      mallory.fill(&h);
      proto::send_message(fd.get(), h, Clock::now() + 1s);
      proto::Message m;
      if (proto::read_message(fd.get(), &m, Clock::now() + 2s) == proto::ReadStatus::kOk)
        if (auto* c = std::get_if<proto::Challenge>(&m)) {
          proto::send_message(fd.get(), mallory.answer(*c, "x"), Clock::now() + 1s);
          proto::read_message(fd.get(), &m, Clock::now() + 2s);
        }
      return;
    }
    default: {  // reset at once
      linger l{1, 0};
      ::setsockopt(fd.get(), SOL_SOCKET, SO_LINGER, &l, sizeof l);
      return;
    }
  }
}

TEST_F(Auth, ThousandUnauthenticatedConnectionsDoNotHarmAnAuthenticatedTest) {
  rlimit nofile{4096, 4096};
  ::setrlimit(RLIMIT_NOFILE, &nofile);
  start_server();
  const int idle_threads = threads_of(server_->pid());
  ASSERT_GT(idle_threads, 0);

  Process stream({kBin, "-H", "127.0.0.1", "-p", port_, "--key", dir_ / "alice.key", "-t",
                  "TCP_STREAM", "-l", "4", "-i", "1", "--json"});
  std::this_thread::sleep_for(700ms);  // running by now
  const int running_threads = threads_of(server_->pid());

  std::atomic<bool> storm{true};
  std::atomic<int> most_threads{0}, made{0};
  std::thread watch([&] {
    while (storm.load()) {
      most_threads = std::max(most_threads.load(), threads_of(server_->pid()));
      std::this_thread::sleep_for(10ms);
    }
  });
  std::vector<std::thread> hammers;
  std::vector<std::vector<net::Fd>> kept(8);
  for (int t = 0; t < 8; ++t)
    hammers.emplace_back([&, t] {
      std::mt19937 rng(t);
      for (int i = 0; i < 125; ++i) {
        misbehave(port(), (t + i) % 5, &kept[t], &rng);
        ++made;
        std::this_thread::sleep_for(2ms);
      }
    });
  // In the middle of the storm, another authenticated client.
  std::this_thread::sleep_for(300ms);
  Outcome rr = client({"--key", dir_ / "alice.key", "-t", "TCP_RR", "-l", "1", "--json"});
  for (auto& h : hammers) h.join();
  storm = false;
  watch.join();
  Outcome s = stream.wait(30s);

  EXPECT_EQ(made.load(), 1000);
  ASSERT_EQ(rr.exit_code, 0) << rr.err;
  json r = json::parse(rr.out, nullptr, false);
  // The README's bench has one loopback TCP_RR flow at about 12,000 transactions a second on
  // this 2-core VM; 100 in the client's 1 s is under 1% of that, room for the storm's 8 threads
  // taking most of both CPUs. A client the storm locked out would have none.
  EXPECT_GT(r["total"]["transactions"].get<uint64_t>(), 100u) << rr.out;

  ASSERT_EQ(s.exit_code, 0) << s.err;
  json j = json::parse(s.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << s.out;
  EXPECT_TRUE(j["error"].is_null() || j["error"] == "") << s.out;
  const double bps = j["total"]["bits_per_second"].get<double>();
  // The README's bench has loopback TCP_STREAM at 12-17 Gbit/s here: 1 Gbit/s over the 4 s is a
  // twelfth of that, and the storm (125 connections a thread, 2 ms apart) takes only part of it.
  EXPECT_GT(bps, 1e9) << "the authenticated stream was starved";
  // Every interval moved data: the storm never stalled it. 1e8 is under 1% of the loopback
  // rate, so an interval falls below it only if the stream stood still for most of its 1 s.
  for (const auto& iv : j["intervals"])
    EXPECT_GT(iv["sum"]["bits_per_second"].get<double>(), 1e8) << iv.dump();
  std::printf(
      "authenticated stream %.2f Gbit/s; server threads idle %d, with the test %d, "
      "most during the storm %d\n",
      bps / 1e9, idle_threads, running_threads, most_threads.load());
  // No thread per idle connection: 400 silent or garbage connections were held (up to
  // --max-pending, 256), the rest came and went. Only hellos (kinds 2, 3) get a session thread,
  // each hammer waiting for its answer: 8 at most at once, besides the TCP_RR client's. 60 is
  // room for those; a thread per held connection would add up to 256.
  EXPECT_LT(most_threads.load(), running_threads + 60);

  for (auto& k : kept) k.clear();
  const std::string log = server_log();
  EXPECT_NE(log.find("authentication failed for key 'mallory' (unknown name)"), std::string::npos);
}

}  // namespace
}  // namespace flowperf::testing
