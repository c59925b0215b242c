#include "cli/native_cli.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "auth/iperf3_rsa.h"
#include "auth/iperf3_users.h"
#include "auth/keys.h"
#include "cli/daemon.h"
#include "cli/exit_status.h"
#include "cli/json_tap.h"
#include "cli/native_args.h"
#include "cli/server_cli.h"
#include "cli/signals.h"
#include "core/error.h"
#include "core/suggest.h"
#include "core/units.h"
#include "core/version.h"
#include "measure/confidence.h"
#include "net/tls.h"
#include "proto/messages.h"
#include "report/agreement.h"
#include "report/csv_report.h"
#include "report/json_report.h"
#include "report/summary.h"
#include "report/text_report.h"
#include "session/access_policy.h"
#include "session/controller.h"
#include "session/descriptor_budget.h"
#include "session/server.h"
#include "spec/test_spec.h"

namespace flowperf::cli {
namespace {

// An in-process server on loopback (127.0.0.1, or ::1 with -6), ephemeral
// port: the no-host default.
struct Embedded {
  session::Server server;
  const char* host;
  explicit Embedded(bool v6 = false) : server(make_config(v6)), host(v6 ? "::1" : "127.0.0.1") {
    server.bind();
    server.start_background();
  }
  static session::ServerConfig make_config(bool v6) {
    session::ServerConfig c;
    c.bind_host = v6 ? "::1" : "127.0.0.1";
    c.port = 0;
    c.log = nullptr;
    return c;
  }
};

int exit_code_for(const results::TestResult& r) {
  if (r.interrupted) return static_cast<int>(ExitCode::kInterrupted);
  if (!r.error.empty()) return static_cast<int>(ExitCode::kRuntime);
  return 0;
}

// One --json-stream line: {"event": NAME, "data": DATA}, DATA already JSON.
std::string json_event(const char* name, const std::string& data) {
  return std::string("{\"event\":\"") + name + "\",\"data\":" + data + "}\n";
}

// After the result is printed: the --html report, the error, the exit
// status. A report that cannot be written is said on stderr and makes a
// good run's status 1; the printed result stands.
int finish_run(const ClientArgs& a, const results::TestResult& r) {
  int code = exit_code_for(r);
  if (!a.html.empty()) {
    try {
      write_html_report(r, a.html);
    } catch (const Error& e) {
      std::fprintf(stderr, "flowperf: --html: %s\n", e.what());
      if (code == 0) code = static_cast<int>(ExitCode::kRuntime);
    }
  }
  JsonTap tap;  // FLOWPERF_JSON, as every front end's client takes it
  tap.add(r);
  if (!tap.write() && code == 0) code = static_cast<int>(ExitCode::kRuntime);
  if (!r.error.empty()) std::fprintf(stderr, "flowperf: %s\n", r.error.c_str());
  return code;
}

int run_client(const ClientArgs& a) {
  if (a.given.host && a.host.empty())
    throw usage_error("-H '': empty host; omit -H to use the embedded server");
  if (int(a.json) + int(a.json_stream) + int(a.csv) > 1)
    throw usage_error("--json, --json-stream and --csv each choose the output: give one of them");
  if ((a.json_stream || a.csv) && (a.repeat > 0 || !a.confidence.empty()))
    throw usage_error(std::string(a.csv ? "--csv" : "--json-stream") +
                      " reports one run; with --repeat or --confidence use --json (its "
                      "\"confidence\" object holds every run's figures) or the text report");
  spec::TestSpec s = build_spec(a);
  if (a.csv && (s.probe_rate_tps > 0 || s.bidir))
    throw usage_error(
        "--csv has columns for the streams of one direction only; for --probe, --bidir or "
        "-t RRUL use --json or --json-stream (their documents hold the probe and the reverse "
        "direction)");
  report::TextOptions text;
  const std::string preset = is_rrul(a.test) ? "RRUL" : "";
  auto unit = core::parse_rate_unit(a.unit);
  if (!unit)
    throw usage_error("-f " + a.unit + ": unknown unit; use k, m, g (bits) or K, M, G (bytes)");
  text.unit = *unit;
  text.cpu = a.cpu;
  text.nic = a.nic;

  // Both ends' sockets live in this process when the server is embedded.
  session::check_descriptors(s, a.host.empty() ? 2 : 1, spec::default_threads(s));
  std::unique_ptr<Embedded> embedded;
  session::ClientOptions o;
  if (a.host.empty()) {
    embedded = std::make_unique<Embedded>(a.v6);
    o.host = embedded->host;
    o.port = embedded->server.port();
  } else {
    o.host = a.host;
    o.port = a.port;
  }
  if (!a.key.empty()) {
    if (a.host.empty())
      throw usage_error(
          "--key authenticates to a server given with -H; the embedded server "
          "checks no keys");
    o.key = auth::load_client_key(a.key);
  }
  if (!a.tls_ca.empty()) {
    if (a.host.empty())
      throw usage_error(
          "--tls-ca secures the control connection to a server given with -H; the "
          "embedded server speaks no TLS");
    o.tls = net::TlsContext::client(a.tls_ca);
  }
  o.family = a.v4 ? IpFamily::kV4 : a.v6 ? IpFamily::kV6 : IpFamily::kAny;
  o.interrupt = install_interrupt_handler();
  bool header_printed = false;
  const bool repeated = a.repeat > 0 || !a.confidence.empty();
  std::optional<measure::ConfidenceLoop> loop;
  if (repeated) loop.emplace(repeat_goal(a), report::repeat_metrics(s.test));
  int run = 0;  // the run under way, from 1, when repeated
  if (a.json_stream || a.csv) {
    if (s.interval_s > 0) {
      o.on_interval = [&](const results::IntervalSample& iv) {
        const std::string out = a.csv ? report::csv_interval(s, iv)
                                      : json_event("interval", report::interval_json(s, iv).dump());
        std::fputs(out.c_str(), stdout);
        std::fflush(stdout);
      };
    }
    o.on_started = [&](const results::TestResult& started) {
      results::TestResult h = started;
      h.embedded_server = embedded != nullptr;
      const std::string out =
          a.csv ? report::csv_header() : json_event("start", report::head_json(h).dump());
      std::fputs(out.c_str(), stdout);
      std::fflush(stdout);
      header_printed = true;
    };
    // No result to report (no server, a refused test) throws: native_main
    // prints the stream's error event (print_failure) and the message.
    results::TestResult r = session::run_test_and_probe(s, o);
    r.embedded_server = embedded != nullptr;
    if (a.csv) {
      if (!header_printed) std::fputs(report::csv_header().c_str(), stdout);
      std::fputs(report::csv_result(r).c_str(), stdout);
    } else {
      std::ostringstream end;
      report::write_result_json_line(end, r);
      if (!r.error.empty())
        std::fputs(json_event("error", nlohmann::json(r.error).dump()).c_str(), stdout);
      std::fputs(json_event("end", end.str()).c_str(), stdout);
    }
    std::fflush(stdout);
    return finish_run(a, r);
  }
  if (!a.json && s.interval_s > 0) {
    o.on_interval = [&](const results::IntervalSample& iv) {
      std::fputs(report::text_interval(s, iv, text).c_str(), stdout);
      std::fflush(stdout);
    };
  }
  if (!a.json) {
    // The header names both endpoints, known once the test has started.
    o.on_started = [&](const results::TestResult& started) {
      results::TestResult h = started;
      h.embedded_server = embedded != nullptr;
      if (!header_printed) std::fputs(report::text_header(h, preset).c_str(), stdout);
      if (loop)
        std::fputs(report::text_run_heading(run, loop->goal().max_iterations).c_str(), stdout);
      std::fflush(stdout);
      header_printed = true;
    };
  }
  if (!loop) {
    results::TestResult r = session::run_test_and_probe(s, o);
    r.embedded_server = embedded != nullptr;
    if (a.json) {
      report::write_result_json(std::cout, r);
      std::cout << "\n";
    } else {
      if (!header_printed) std::fputs(report::text_header(r, preset).c_str(), stdout);
      std::fputs(report::text_result(r, text).c_str(), stdout);
    }
    std::fflush(stdout);
    return finish_run(a, r);
  }

  // Repeated: run until the loop is satisfied, a run fails or the user
  // stops; print each run as it ends, then the intervals over all of them.
  results::TestResult r;
  for (;;) {
    ++run;
    r = session::run_test_and_probe(s, o);
    r.embedded_server = embedded != nullptr;
    if (!a.json) std::fputs(report::text_result(r, text).c_str(), stdout);
    std::fflush(stdout);
    const bool more = loop->add(report::repeat_sample(r));
    if (!more || !r.error.empty() || r.interrupted) break;
  }
  if (a.json) {
    report::write_result_json(std::cout, r, &*loop);
    std::cout << "\n";
  } else {
    std::fputs(report::text_confidence(*loop, text).c_str(), stdout);
  }
  std::fflush(stdout);
  return finish_run(a, r);
}

// CLI11 names the words it could not place ("The following arguments were
// not expected: 2000 --raet"); an unknown option with the known one nearest
// to it says more. "" when no word of argv is an unknown option.
std::string unknown_options(CLI::App& app, int argc, char** argv) {
  std::vector<std::string> known;
  auto add = [&known](CLI::App& a) {
    for (const CLI::Option* o : a.get_options()) {
      for (const auto& l : o->get_lnames()) known.push_back("--" + l);
      for (const auto& s : o->get_snames()) known.push_back("-" + s);
    }
  };
  add(app);
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) add(*sub);
  auto is_known = [&known](const std::string& w) {
    return std::find(known.begin(), known.end(), w) != known.end();
  };
  std::string out;
  for (int i = 1; i < argc; ++i) {
    std::string w = argv[i];
    if (w == "--") break;
    // Not an option: a value, or a negative number given as one.
    if (w.size() < 2 || w[0] != '-' || std::isdigit(static_cast<unsigned char>(w[1])) ||
        w[1] == '.')
      continue;
    if (auto eq = w.find('='); eq != std::string::npos) w.resize(eq);
    if (is_known(w)) continue;
    // -l10 (a value attached) and -46 (flags bundled) are CLI11's to judge.
    if (w[1] != '-' && is_known(w.substr(0, 2))) continue;
    const std::string near = core::nearest(w, known);
    out += (out.empty() ? "" : "; ") + w + ": unknown option" +
           (near.empty() ? "" : "; did you mean " + near + "?");
  }
  return out;
}

// --json, --json-stream or --csv and a failure before any result (no
// server, a refused test, a bad option): standard output still says what
// failed, for a script that reads only it. --json: one document whose
// "error" has a stable code (docs/json.md); --json-stream: the error event;
// --csv: a comment line. The message also goes to stderr.
void print_failure(bool json, bool json_stream, bool csv, Failure failure,
                   const std::string& message) {
  if (json) {
    const nlohmann::json doc = {{"schema_version", 1},
                                {"tool", {{"name", "flowperf"}, {"version", kVersion}}},
                                {"error", {{"code", failure_code(failure)}, {"message", message}}}};
    std::fputs((doc.dump(2) + "\n").c_str(), stdout);
  } else if (json_stream) {
    std::fputs(json_event("error", nlohmann::json(message).dump()).c_str(), stdout);
  } else if (csv) {
    std::printf("# error: %s: %s\n", failure_code(failure), message.c_str());
  }
  std::fflush(stdout);
}

bool has_word(int argc, char** argv, const char* word) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], word) == 0) return true;
  return false;
}

// No arguments: a short loopback suite against an embedded server.
int run_suite() {
  Embedded embedded;
  session::ClientOptions o;
  o.host = "127.0.0.1";
  o.port = embedded.server.port();
  o.interrupt = install_interrupt_handler();
  const double seconds = 3;
  std::printf(
      "flowperf %s: loopback suite against an embedded server on 127.0.0.1:%u "
      "(%g s per test)\n",
      kVersion, embedded.server.port(), seconds);
  std::printf(
      "Run `flowperf -H HOST -t TEST` against `flowperf server` on another host to test "
      "a real network.\n\n");
  std::printf("%-11s %-24s %-26s %s\n", "Test", "Result", "Latency p50 / p99 (us)",
              "Both sides agree");
  int rc = 0;
  for (auto kind : {spec::TestKind::kTcpStream, spec::TestKind::kTcpRr, spec::TestKind::kTcpCrr,
                    spec::TestKind::kUdpRr}) {
    spec::TestSpec s;
    s.test = kind;
    s.duration_s = seconds;
    results::TestResult r = session::run_test(s, o);
    report::Summary sum = report::summarize(r);
    std::string result, latency = "-";
    if (sum.stream_family) {
      auto sc = core::scale_rate(sum.total.throughput_bps, core::RateUnit::Auto);
      result = fmt::format("{:.2f} {}", sc.value, sc.unit);
    } else {
      result = fmt::format("{:.1f} trans/s", sum.total.transactions_per_s);
      if (sum.total.latency)
        latency = fmt::format("{:.1f} / {:.1f}", sum.total.latency->percentile(50) / 1000.0,
                              sum.total.latency->percentile(99) / 1000.0);
    }
    // A verdict with its reason for every test: counts may differ where the
    // test's rules say they must (report/agreement.cc).
    const report::Agreement agree = report::agreement(r);
    std::printf("%-11s %-24s %-26s %s\n", spec::info(kind).name, result.c_str(), latency.c_str(),
                agree.text.c_str());
    std::fflush(stdout);
    if (!r.error.empty()) {
      std::fprintf(stderr, "flowperf: %s: %s\n", spec::info(kind).name, r.error.c_str());
      rc = 1;
    }
    if (r.interrupted) return static_cast<int>(ExitCode::kInterrupted);
  }
  return rc;
}

}  // namespace

int native_main(int argc, char** argv) {
  if (argc <= 1) {
    try {
      return run_suite();
    } catch (const Error& e) {
      std::fprintf(stderr, "flowperf: %s\n", e.what());
      return static_cast<int>(e.code());
    }
  }

  CLI::App app{
      "flowperf: network throughput, transaction rate and latency, between a client "
      "and a server (or on loopback with no -H)"};
  app.set_version_flag("-V,--version", std::string("flowperf ") + kVersion);
  ClientArgs c;
  ClientOptionHandles handles = add_client_options(app, c);
  ServerArgs sa;
  CLI::App* server = add_server_command(app, sa);

  std::string monitor_config, monitor_listen;
  CLI::App* mon = app.add_subcommand(
      "monitor",
      "run scheduled tests against targets and serve their metrics for Prometheus "
      "(docs/monitor.md)");
  mon->add_option("config", monitor_config, "the YAML configuration file")->required();
  mon->add_option("--listen", monitor_listen,
                  "HOST:PORT for /metrics and /healthz (default: the file's listen:, else "
                  "127.0.0.1:9464)");

  PlotArgs plot_args;
  CLI::App* plot = app.add_subcommand(
      "plot", "draw results (flowperf --json, iperf3 -J) as an HTML report or an SVG chart");
  plot->add_option("results", plot_args.inputs, "result files; several are compared")->required();
  plot->add_option("-o,--output", plot_args.output,
                   "FILE.html: the report with every chart; FILE.svg: one chart")
      ->required();
  plot->add_option(
      "--chart", plot_args.chart,
      "with an .svg output: which chart (throughput, transactions, latency-time, latency-cdf, "
      "loss, jitter, cwnd, rtt, retransmits, cpu); default the first there is");
  plot->add_option("--title", plot_args.title, "the report's title");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string why = e.what();
    if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
      const std::string unknown = unknown_options(app, argc, argv);
      if (!unknown.empty()) why = unknown;
    }
    std::fprintf(stderr, "flowperf: %s\nRun `flowperf --help` for the options.\n", why.c_str());
    print_failure(has_word(argc, argv, "--json"), has_word(argc, argv, "--json-stream"),
                  has_word(argc, argv, "--csv"), Failure::kUsage, why);
    return static_cast<int>(ExitCode::kUsage);
  }
  note_given(c, handles);
  try {
    if (server->parsed()) return run_server(sa);
    if (mon->parsed()) return run_monitor(monitor_config, monitor_listen);
    if (plot->parsed()) return run_plot(plot_args);
    return run_client(c);
  } catch (const Error& e) {
    std::fprintf(stderr, "flowperf: %s\n", e.what());
    if (!server->parsed() && !mon->parsed() && !plot->parsed())
      print_failure(c.json, c.json_stream, c.csv, classify(e), e.what());
    return exit_status(Tool::kFlowperf, e);
  }
}

}  // namespace flowperf::cli
