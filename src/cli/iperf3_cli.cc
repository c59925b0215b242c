// The iperf3 personality: iperf3 3.12's command line (cli/iperf3_args.h),
// its output (report/iperf3_report.h) and its wire (session/iperf3_client.h
// and the server's iperf3 row). As a server it serves tests side by side,
// up to --max-tests (--one-at-a-time: iperf3's own one test at a time).
//
// Output goes through one sink that writes stdout or --logfile, with -T's
// title and --timestamps' time in front of every line, as iperf3 does.
#include <fmt/format.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cli/daemon.h"
#include "cli/iperf3_args.h"
#include "cli/iperf3_credentials.h"
#include "cli/json_tap.h"
#include "cli/personalities.h"
#include "cli/signals.h"
#include "core/error.h"
#include "core/version.h"
#include "report/iperf3_report.h"
#include "session/iperf3_client.h"
#include "session/iperf3_test.h"
#include "session/server.h"

namespace flowperf::cli {
namespace {

namespace rp = report::iperf3;

constexpr const char* kRule = "-----------------------------------------------------------\n";

// Where output goes, line by line.
class Sink {
 public:
  explicit Sink(const Iperf3Args& a) : a_(a) {
    if (!a.logfile.empty()) {
      file_ = std::fopen(a.logfile.c_str(), "a");
      if (!file_)
        throw runtime_error("unable to open log file '" + a.logfile + "': " + std::strerror(errno));
    }
  }
  ~Sink() {
    if (file_) std::fclose(file_);
  }
  Sink(const Sink&) = delete;
  Sink& operator=(const Sink&) = delete;

  std::FILE* out() const { return file_ ? file_ : stdout; }
  std::FILE* err() const { return file_ ? file_ : stderr; }

  // Text whose lines get the title and timestamp prefixes (not -J).
  void text(const std::string& t) {
    std::lock_guard<std::mutex> lock(mu_);
    std::string out;
    size_t from = 0;
    while (from < t.size()) {
      size_t nl = t.find('\n', from);
      const size_t end = nl == std::string::npos ? t.size() : nl + 1;
      out += prefix() + t.substr(from, end - from);
      from = end;
    }
    std::fputs(out.c_str(), this->out());
    if (a_.forceflush || file_) std::fflush(this->out());
  }
  // Text as it is (JSON).
  void raw(const std::string& t) {
    std::lock_guard<std::mutex> lock(mu_);
    std::fputs(t.c_str(), out());
    std::fflush(out());
  }
  void error(const std::string& t) {
    std::lock_guard<std::mutex> lock(mu_);
    std::fputs((prefix() + t + "\n").c_str(), err());
    std::fflush(err());
  }

 private:
  std::string prefix() const {
    std::string p;
    if (a_.timestamps) {
      const std::string fmt = a_.timestamps->empty() ? "%c " : *a_.timestamps;
      char buf[128] = {};
      const time_t now = ::time(nullptr);
      tm local{};
      localtime_r(&now, &local);
      std::strftime(buf, sizeof buf, fmt.c_str(), &local);
      p += buf;
    }
    if (!a_.title.empty()) p += a_.title + ":  ";
    return p;
  }

  const Iperf3Args& a_;
  std::FILE* file_ = nullptr;
  std::mutex mu_;
};

proto::iperf3::Params params_of(const Iperf3Args& a) {
  proto::iperf3::Params p;
  p.udp = a.udp;
  p.omit = a.omit_s;
  if (a.affinity_remote >= 0) p.server_affinity = a.affinity_remote;
  p.time = a.duration_s;
  p.num = a.bytes;
  p.blockcount = a.blocks;
  p.mss = a.mss;
  p.nodelay = a.nodelay;
  p.parallel = a.parallel;
  p.reverse = a.reverse;
  p.bidirectional = a.bidir;
  p.window = a.window;
  p.len = a.length;
  // UDP's default rate is 1 Mbit/s; TCP's is none. -b 0 sends no key.
  p.bandwidth = a.bitrate_given ? a.bitrate : (a.udp ? 1048576 : 0);
  p.fqrate = a.fq_rate;
  p.pacing_timer = a.pacing_timer_us;
  p.burst = a.burst;
  if (a.tos >= 0) p.tos = a.tos;
  p.flowlabel = a.flowlabel;
  p.title = a.title;
  p.extra_data = a.extra_data;
  p.congestion = a.congestion;
  p.get_server_output = a.get_server_output;
  p.udp_counters_64bit = a.udp_counters_64bit;
  p.repeating_payload = a.repeating_payload;
  p.zerocopy = a.zerocopy;
  p.dont_fragment = a.dont_fragment;
  return p;
}

// The -J document as a value, for --json-stream's pieces.
nlohmann::ordered_json document(const rp::Report& r) {
  return nlohmann::ordered_json::parse(rp::json(r));
}

std::string stream_event(const char* event, const nlohmann::ordered_json& data) {
  nlohmann::ordered_json line;
  line["event"] = event;
  line["data"] = data;
  return line.dump() + "\n";
}

// -V's lines, as 3.12 prints them around the usual ones.
std::string verbose_preamble(const Iperf3Args& a, const rp::StartInfo& s) {
  std::string t = s.version + "\n" + s.system_info + "\n";
  t += "Control connection MSS " + std::to_string(s.tcp_mss_default) + "\n";
  if (s.udp && a.length == 0) t += "Setting UDP block size to " + std::to_string(s.blksize) + "\n";
  t += "Time: " + s.time + "\n";
  return t;
}

std::string verbose_after_connecting(const Iperf3Args& a, const rp::StartInfo& s) {
  std::string t = "      Cookie: " + s.cookie + "\n";
  if (s.udp)
    t += "      Target Bitrate: " + std::to_string(s.target_bitrate) + "\n";
  else
    t += "      TCP MSS: " +
         (a.mss ? std::to_string(a.mss) : std::to_string(s.tcp_mss_default) + " (default)") + "\n";
  return t;
}

std::string verbose_starting(const rp::StartInfo& s) {
  std::string end;
  if (s.bytes)
    end = std::to_string(s.bytes) + " bytes to send";
  else if (s.blocks)
    end = std::to_string(s.blocks) + " blocks to send";
  else
    end = std::to_string(s.duration) + " second test";
  return "Starting Test: protocol: " + std::string(s.udp ? "UDP" : "TCP") + ", " +
         std::to_string(s.num_streams) + " streams, " + std::to_string(s.blksize) +
         " byte blocks, omitting " + std::to_string(s.omit) + " seconds, " + end + ", tos " +
         std::to_string(s.tos) + "\n";
}

// Inserts `what` before the first line that starts with `line_start`.
std::string insert_before(const std::string& text, const std::string& line_start,
                          const std::string& what) {
  size_t at = text.rfind(line_start, 0) == 0 ? 0 : text.find("\n" + line_start);
  if (at == std::string::npos) return text + what;
  if (at != 0) ++at;
  return text.substr(0, at) + what + text.substr(at);
}

std::string verbose_cpu(const rp::Report& r) {
  const bool receiving = r.start.reverse;
  auto one = [](const rp::Cpu& c) {
    return fmt::format("{:.1f}% ({:.1f}%u/{:.1f}%s)", c.total, c.user, c.system);
  };
  std::string t = std::string("CPU Utilization: local/") + (receiving ? "receiver " : "sender ") +
                  one(r.end.host) + ", remote/" + (receiving ? "sender " : "receiver ") +
                  one(r.end.remote) + "\n";
  if (!r.start.udp) {
    if (!r.end.sender_tcp_congestion.empty())
      t += "snd_tcp_congestion " + r.end.sender_tcp_congestion + "\n";
    if (!r.end.receiver_tcp_congestion.empty())
      t += "rcv_tcp_congestion " + r.end.receiver_tcp_congestion + "\n";
  }
  return t;
}

void pin_process(int cpu) {
  if (cpu < 0) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (::sched_setaffinity(0, sizeof set, &set) != 0)
    throw runtime_error("unable to set CPU affinity: " + std::string(std::strerror(errno)));
}

int run_client(const Iperf3Args& a, Sink& sink, std::function<std::string()> authtoken) {
  if (a.flowlabel) {
    // Refused rather than sent unset: the label would be missing from the wire.
    sink.error(
        "iperf3: parameter error - IPv6 flow labels (-L) are not supported by flowperf yet; run "
        "without -L");
    return 1;
  }
  pin_process(a.affinity_local);
  session::Iperf3ClientOptions o;
  o.host = a.host;
  o.port = a.port;
  o.family = a.family;
  o.bind_host = a.bind_host;
  o.cport = a.cport;
  o.connect_timeout_s = a.connect_timeout_ms > 0 ? a.connect_timeout_ms / 1000.0 : 0;
  o.params = params_of(a);
  o.interval_s = a.interval_s;
  o.fq_rate = a.fq_rate;
  o.rcv_timeout_s = a.rcv_timeout_ms / 1000.0;
  o.control_keepalive = a.control_keepalive;
  if (a.verbose && !a.json && !a.json_stream)
    o.verbose = [&sink](const std::string& line) { sink.text(line); };
  o.authtoken = std::move(authtoken);
  if (a.debug > 0) o.debug = [&sink](const std::string& m) { sink.error("iperf3 debug: " + m); };
  o.interrupt = install_interrupt_handler();
  const rp::Format f{a.format};
  bool connecting_shown = false;
  rp::StartInfo started;
  if (a.json_stream) {
    // 3.17's --json-stream: one compact JSON object a line, as each part of
    // the test is known: {"event":"start"|"interval"|"end"|"error","data":...}.
    o.on_connecting = [&](const rp::StartInfo& s) { started = s; };
    o.on_start = [&](const rp::StartInfo& s) {
      started = s;
      rp::Report r;
      r.start = s;
      r.start.version = session::iperf3::version_text();
      sink.raw(stream_event("start", document(r)["start"]));
    };
    o.on_interval = [&](const rp::Interval& iv) {
      rp::Report r;
      r.start = started;
      r.intervals.push_back(iv);
      sink.raw(stream_event("interval", document(r)["intervals"][0]));
    };
  } else if (!a.json) {
    o.on_connecting = [&](const rp::StartInfo& s) {
      started = s;
      if (a.verbose) sink.text(verbose_preamble(a, s));
      sink.text("Connecting to host " + s.peer_host + ", port " + std::to_string(s.peer_port) +
                "\n");
      if (a.verbose) sink.text(verbose_after_connecting(a, s));
      connecting_shown = true;
    };
    o.on_start = [&](const rp::StartInfo& s) {
      started = s;
      // The start block without its first line, which is already out.
      std::string t = rp::text_start(s);
      if (connecting_shown && t.rfind("Connecting to host", 0) == 0) t = t.substr(t.find('\n') + 1);
      if (a.verbose) t = insert_before(t, "[ ID]", verbose_starting(s));
      sink.text(t);
    };
    o.on_interval = [&](const rp::Interval& iv) { sink.text(rp::text_interval(started, iv, f)); };
  } else {
    o.on_connecting = [&](const rp::StartInfo& s) { started = s; };
  }
  // The whole -J document at the end: -J's, or with --json-stream the
  // events' and then (--json-stream-full-output, 3.20) that document too.
  const bool whole_json = a.json_stream ? a.json_stream_full_output : a.json;
  session::Iperf3ClientRun run;
  try {
    run = session::run_iperf3_client(o);
  } catch (const session::Iperf3Error& e) {
    if (a.json_stream) sink.raw(stream_event("error", e.what()));
    if (whole_json) {
      rp::StartInfo s = started;
      s.peer_host = a.host;
      s.peer_port = a.port;
      s.version = session::iperf3::version_text();
      sink.raw(rp::json_error(s, e.what()));
    } else if (!a.json_stream) {
      sink.error(std::string("iperf3: error - ") + e.what());
    }
    return 1;
  }
  run.report.start.version = session::iperf3::version_text();
  // FLOWPERF_JSON: the native document too, whatever iperf3 prints.
  JsonTap tap;
  tap.add(run.result);
  const int tapped = tap.write() ? 0 : 1;
  if (a.json_stream) {
    if (!run.error.empty()) sink.raw(stream_event("error", run.error));
    if (run.interrupted) sink.raw(stream_event("error", "interrupt - the client has terminated"));
    sink.raw(stream_event("end", document(run.report)["end"]));
  }
  if (whole_json) {
    if (!run.error.empty()) run.report.error = run.error;
    if (run.interrupted) run.report.error = "interrupt - the client has terminated";
    sink.raw(rp::json(run.report));
  } else if (!a.json_stream) {
    std::string summary = rp::text_summary(run.report, f);  // with the server's output, if asked
    if (a.verbose) {
      summary = insert_before(summary, "[ ID]", "Test Complete. Summary Results:\n");
      // The CPU line follows the summary table, before any server output.
      const size_t server = summary.find("\nServer ");
      summary.insert(server == std::string::npos ? summary.size() : server,
                     verbose_cpu(run.report));
    }
    sink.text(summary);
    if (run.error.empty() && !run.interrupted) sink.text("\niperf Done.\n");
  }
  if (run.interrupted) {
    sink.error("iperf3: interrupt - the client has terminated");
    return 1;
  }
  if (!run.error.empty()) {
    sink.error("iperf3: error - " + run.error);
    return 1;
  }
  return tapped;
}

int run_server(const Iperf3Args& a, Sink& sink, std::optional<session::Iperf3Auth> auth) {
  if (a.json_stream) {
    sink.error(
        "iperf3: parameter error - --json-stream is implemented for the client only; use -J on "
        "the server");
    return 1;
  }
  pin_process(a.affinity_local);
  session::ServerConfig config;
  config.bind_host = a.bind_host;
  config.family = a.family;
  config.port = a.port;
  config.max_tests = a.one_at_a_time ? 1 : a.max_tests;
  config.log = a.debug > 0 ? sink.err() : nullptr;
  config.iperf3.json = a.json;
  config.iperf3.format = a.format;
  config.iperf3.interval_s = a.interval_s;
  config.iperf3.forceflush = a.forceflush;
  config.iperf3.auth = std::move(auth);
  config.iperf3.verbose = a.verbose;
  config.iperf3.control_keepalive = a.control_keepalive;
  if (a.server_max_duration_s > 0) {
    config.iperf3.max_duration_s = a.server_max_duration_s;
    // The server's own limit, which every protocol it serves obeys, no longer.
    config.max_duration_s = std::min<double>(config.max_duration_s, a.server_max_duration_s);
  }
  if (a.json)
    config.iperf3.print = [&sink](const std::string& t) { sink.raw(t); };
  else
    config.iperf3.print = [&sink](const std::string& t) { sink.text(t); };

  // One test, and then out (-1); or the next test's banner.
  session::Server* serving = nullptr;
  uint64_t tests = 0;
  std::mutex banner_mu;
  const std::string port_text = std::to_string(a.port);
  auto banner = [&] {
    std::lock_guard<std::mutex> lock(banner_mu);
    if (!a.json)
      sink.text(std::string(kRule) + "Server listening on " + port_text + " (test #" +
                std::to_string(++tests) + ")\n" + kRule);
  };
  config.iperf3.on_test_end = [&](session::Iperf3TestEnd end) {
    // 3.12: a test refused for its token does not count for -1.
    if (a.one_off && end != session::Iperf3TestEnd::kUnauthorized)
      serving->request_stop();
    else
      banner();
  };

  block_termination_signals();
  session::Server server(config);
  serving = &server;
  try {
    server.bind();
  } catch (const Error& e) {
    sink.error(std::string("iperf3: error - unable to start listener for connections: ") +
               e.what());
    return 1;
  }
  if (a.daemon) detach("-D");
  if (!a.pidfile.empty()) {
    std::FILE* pf = std::fopen(a.pidfile.c_str(), "w");
    if (!pf) {
      sink.error("iperf3: error - unable to write PID file: " + std::string(std::strerror(errno)));
      return 1;
    }
    std::fprintf(pf, "%d", static_cast<int>(::getpid()));
    std::fclose(pf);
  }
  if (a.verbose && !a.json)
    sink.text(session::iperf3::version_text() + "\n" + session::iperf3::system_info() + "\n");
  banner();
  std::thread signals([&server, &sink] {
    wait_for_termination();
    sink.error("iperf3: interrupt - the server has terminated");
    server.request_stop();
  });
  signals.detach();
  // --idle-timeout: a server that no client has used for that long stops
  // (iperf3 restarts its listener; ours has nothing to clear, so with -1
  // the wait ends the server and without it the server goes on).
  std::mutex idle_mu;
  std::condition_variable idle_cv;
  bool done = false;
  std::thread idle;
  if (a.idle_timeout_s > 0 && a.one_off)
    idle = std::thread([&] {
      std::unique_lock<std::mutex> lock(idle_mu);
      if (!idle_cv.wait_for(lock, std::chrono::seconds(a.idle_timeout_s), [&] { return done; }) &&
          server.sessions_served() == 0 && server.active_tests() == 0)
        server.request_stop();
    });
  server.serve();
  {
    std::lock_guard<std::mutex> lock(idle_mu);
    done = true;
  }
  idle_cv.notify_all();
  if (idle.joinable()) idle.join();
  server.stop();
  if (!a.pidfile.empty()) ::unlink(a.pidfile.c_str());
  return 0;
}

}  // namespace

int iperf3_main(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  Iperf3Parse parsed = parse_iperf3_args(args);
  // Usage and errors, or the warnings 3.12 prints as it starts.
  std::fputs(parsed.out.c_str(), stdout);
  std::fputs(parsed.err.c_str(), stderr);
  std::fflush(nullptr);
  if (!parsed.args) return parsed.exit_code;
  const Iperf3Args& a = *parsed.args;
  // Authentication's password and files, read before anything else runs.
  std::function<std::string()> authtoken;
  std::optional<session::Iperf3Auth> auth;
  try {
    if (a.client_auth) authtoken = iperf3_client_token(a);
    if (a.server_auth) auth = iperf3_server_auth(a);
  } catch (const Iperf3SetupFailure& f) {
    std::fputs(f.err.c_str(), stderr);
    std::fputs(f.out.c_str(), stdout);
    return 1;
  }
  try {
    Sink sink(a);
    return a.mode == Iperf3Args::Mode::kServer ? run_server(a, sink, std::move(auth))
                                               : run_client(a, sink, std::move(authtoken));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "iperf3: error - %s\n", e.what());
    return 1;
  }
}

}  // namespace flowperf::cli
