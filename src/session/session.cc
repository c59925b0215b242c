#include "session/session.h"

#include <fmt/format.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <random>
#include <string>

#include "core/deadline.h"
#include "core/error.h"
#include "core/host_info.h"
#include "core/version.h"
#include "engine/collect.h"
#include "engine/test_plan.h"
#include "engine/worker.h"
#include "net/socket.h"
#include "net/sys.h"
#include "net/tls.h"
#include "proto/framing.h"
#include "session/auth_exchange.h"
#include "session/data_plane.h"
#include "session/descriptor_budget.h"
#include "session/server.h"
#include "session/server_policy.h"
#include "session/side_runner.h"
#include "session/test_slot.h"

namespace flowperf::session {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

using core::after;

// A test as the server's policy sees it (session/server_policy.h).
TestAsk ask_of(const spec::TestSpec& s) {
  const spec::TestInfo& info = spec::info(s.test);
  TestAsk ask;
  ask.duration_s = s.count == 0 ? s.duration_s : 0;
  ask.streams = s.streams;
  ask.udp_stream =
      info.protocol == spec::Protocol::kUdp && info.workload == spec::Workload::kStream;
  ask.rate_bps = s.rate_bps;
  // The server's side of a stream: the messages it sends or receives (a
  // bulk test: one way, a UDP stream's batch of datagrams at a time; a
  // request/response test: both), and its socket buffers.
  uint64_t message = 0, messages = 0;
  if (info.workload == spec::Workload::kStream) {
    const uint64_t batch = info.protocol == spec::Protocol::kUdp ? std::max(1u, s.batch) : 1;
    message = info.client_sends ? s.effective_recv_size() : s.effective_send_size();
    messages = batch * message;
  } else {
    message = std::max(s.request_size, s.response_size);
    messages = uint64_t{s.request_size} + s.response_size;
  }
  ask.largest_buffer = std::max({message, uint64_t{s.remote_sndbuf}, uint64_t{s.remote_rcvbuf}});
  ask.stream_buffers = messages + s.remote_sndbuf + s.remote_rcvbuf;
  return ask;
}

// What this server's limits (ServerConfig) say about a test, in words for
// the client; empty when it may run.
std::string beyond_limits(const spec::TestSpec& s, const ServerConfig& c) {
  return ServerPolicy(c).refuse(ask_of(s));
}

class Session {
 public:
  Session(net::Channel& ch, const SessionContext& ctx)
      : ch_(ch), control_(ch.fd()), ctx_(ctx), cfg_(*ctx.config), slot_(ctx.active_tests) {
    peer_ = net::peer_address(control_);
    local_ = net::local_address(control_);
  }

  void run() {
    try {
      exchange();
    } catch (const proto::FrameCheckError& e) {
      reply_error("auth", std::string("authentication failed mid-test: ") + e.what());
      log(std::string("authentication failed mid-test: ") + e.what());
    } catch (const proto::ProtocolError& e) {
      reply_error("bad_message", e.what());
      log("bad control message: " + std::string(e.what()));
    } catch (const Error& e) {
      reply_error("setup_failed", e.what());
      log(std::string("failed: ") + e.what());
    } catch (const std::exception& e) {
      reply_error("internal", e.what());
      log(std::string("internal error: ") + e.what());
    }
  }

 private:
  void exchange() {
    const int fd = control_;
    if (!cfg_.netperf_passphrase.empty()) {
      reply_error("refused",
                  "this server was started with netserver -Z: it serves netperf clients that send "
                  "the passphrase, which flowperf's own protocol does not carry — start a "
                  "`flowperf server` for flowperf clients (with --keys to authenticate them)");
      log("refused: a flowperf client, and -Z asks for netperf's passphrase");
      return;
    }

    proto::Message m;
    if (!receive(&m, first_message_deadline(ctx_))) return;
    auto* hello = std::get_if<proto::Hello>(&m);
    if (!hello)
      throw proto::ProtocolError("expected hello, got " + std::string(proto::message_name(m)));
    auto agreed = negotiate_version(*hello);
    if (auto* r = std::get_if<Refusal>(&agreed)) return refuse(*r);
    const uint32_t version = std::get<uint32_t>(agreed);

    // Authentication, when this server holds keys: before a test slot is
    // taken or a data port opened.
    ServerAuth auth(cfg_.keys, version, *hello);
    if (auth.early_refusal()) return refuse(*auth.early_refusal());
    if (auth.required()) {
      send(auth.challenge());
      if (!receive(&m, after(cfg_.control_timeout_s))) return;
      auto* answer = std::get_if<proto::Auth>(&m);
      if (!answer)
        throw proto::ProtocolError("expected auth, got " + std::string(proto::message_name(m)));
      if (auto r = auth.check(*answer)) {
        count_auth_failure(ctx_);
        return refuse(*r);
      }
      key_name_ = auth.name();
    }

    uint32_t running = 0;
    if (!slot_.take(cfg_.max_tests, &running)) {
      reply_error("busy", fmt::format("server busy ({} tests running, limit {}) — try again "
                                      "later, or raise the limit with --max-tests",
                                      running, cfg_.max_tests));
      log(fmt::format("refused: busy ({} tests running)", running));
      return;
    }
    if (std::string why = slot_.take_source(ctx_.sources, ctx_.peer); !why.empty())
      return refuse(Refusal{"busy", why, "refused: " + why});
    const core::HostInfo host = core::local_host_info();
    max_frame_ = proto::kMaxSetupFrame;
    send(proto::Welcome{version, std::string("flowperf ") + kVersion, host.hostname, host.os,
                        host.cpu_model, host.cores, host.cpu_mhz, auth.server_proof_hex()});
    // Every later frame of an authenticated client is sealed, both ways.
    if (auth.required()) {
      send_seal_.emplace(auth.send_seal());
      receive_seal_.emplace(auth.receive_seal());
    }

    if (!receive(&m, after(cfg_.control_timeout_s))) return;
    if (std::holds_alternative<proto::Quit>(m)) {
      if (!cfg_.allow_remote_quit) {
        reply_error("refused", "this server does not take quit requests from clients");
        return;
      }
      log("quit requested by the client; the server exits");
      send(proto::Stop{});  // acknowledges the quit
      if (ctx_.request_quit) ctx_.request_quit();
      return;
    }
    auto* setup = std::get_if<proto::Setup>(&m);
    if (!setup)
      throw proto::ProtocolError("expected setup, got " + std::string(proto::message_name(m)));
    spec_ = setup->spec;
    have_spec_ = true;
    auto problems = spec::validate(spec_, spec::End::kRemote);
    if (!problems.empty()) {
      std::string all;
      for (auto& p : problems) all += (all.empty() ? "" : "; ") + p;
      reply_error("invalid_spec", all);
      log("refused: " + all);
      return;
    }
    if (std::string why = beyond_limits(spec_, cfg_); !why.empty())
      return refuse(Refusal{"invalid_spec", why, "refused: " + why});
    if (std::string why = ServerPolicy(cfg_).take_memory(slot_, ctx_.memory, ask_of(spec_));
        !why.empty())
      return refuse(Refusal{"busy", why, "refused: " + why});
    // A stop lists each flow's count (~10 bytes a flow).
    max_frame_ = static_cast<uint32_t>(
        std::min<uint64_t>(proto::kMaxClientFrame, proto::kMaxSetupFrame + 32ull * spec_.streams));
    const unsigned threads = spec::default_threads(spec_);
    if (DescriptorBudget b = descriptor_budget(spec_, 1, threads); !b.fits()) {
      std::string why = descriptor_problem(spec_, b, 1, " on the server");
      reply_error("invalid_spec", why);
      log("refused: " + why);
      return;
    }
    ServerDataPlane plane =
        open_server_plane(spec_, local_, threads, peer_, auth.data_token().has_value());
    // The data connections' first 8 bytes: sent here in the clear, or, for
    // an authenticated client, derived from the session key on both ends.
    std::random_device rd;
    const uint64_t cookie = auth.data_token().value_or((uint64_t{rd()} << 32) | rd());
    send(proto::SetupOk{plane.tcp_port, plane.udp_ports, auth.data_token() ? 0 : cookie, threads,
                        plane.sndbuf, plane.rcvbuf});

    std::vector<net::Fd> sockets;
    std::vector<int> crr_listeners;
    const bool crr = spec::info(spec_.test).connect_per_transaction;
    if (spec::info(spec_.test).protocol == spec::Protocol::kUdp) {
      sockets = std::move(plane.udp);
    } else if (crr) {
      for (auto& l : plane.listeners) crr_listeners.push_back(l.get());
    } else {
      sockets = accept_streams(plane.listeners[0].get(), cookie, spec_.streams, after(60), fd);
      const net::SocketOptions again =
          net::not_inherited_on_accept(engine::socket_options(spec_, spec::End::kRemote));
      if (again.any())
        for (auto& s : sockets) net::apply_socket_options_or_throw(s.get(), again, "a data socket");
      plane.listeners.clear();  // no more connections for this test
      // --max-rate: the server's own sending, shared by the streams.
      net::SocketOptions paced;
      ServerPolicy(cfg_).pace(paced, sockets.size());
      if (paced.any())
        for (auto& s : sockets) net::apply_socket_options_or_throw(s.get(), paced, "a data socket");
    }

    if (!receive(&m, after(60))) return;
    if (!std::holds_alternative<proto::Start>(m))
      throw proto::ProtocolError("expected start, got " + std::string(proto::message_name(m)));

    SideRunner::Options ro;
    ro.threads = threads;
    ro.busy_poll = spec_.busy_poll;
    ro.interval_s = spec_.interval_s;
    ro.meter_at = local_;
    ro.cpu = spec_.remote.cpu;
    SideRunner runner(engine::server_flows(spec_, std::move(sockets), crr_listeners), ro);
    runner.launch();
    runner.go();
    send(proto::Started{});

    // Run until the client says stop, the client vanishes, the server's own
    // limit passes, or the server shuts down.
    const auto limit = after(cfg_.max_duration_s + 30);
    const char* outcome = nullptr;
    std::optional<proto::Stop> stop;
    runner.run(
        limit,
        [&](Clock::time_point until) {
          if (ctx_.stopping->load()) {
            outcome = "server shutting down";
            return SideRunner::Turn::kStop;
          }
          if (!ch_.wait_readable(std::min(until, Clock::now() + 200ms)))
            return SideRunner::Turn::kGoOn;
          if (!receive(&m, after(cfg_.control_timeout_s))) {
            outcome = "the client went away";
            return SideRunner::Turn::kStop;
          }
          auto* s = std::get_if<proto::Stop>(&m);
          if (!s)
            throw proto::ProtocolError("expected stop, got " + std::string(proto::message_name(m)));
          stop = std::move(*s);
          return SideRunner::Turn::kStop;
        },
        /*until_finished=*/false, 200ms);
    if (!outcome && !stop) outcome = "the server's test length limit passed";
    if (outcome) {
      runner.abort();
      results::SideResult r = runner.finish(std::nullopt);
      log(fmt::format("aborted ({}) after {:.2f} s", outcome, r.elapsed_s));
      return;
    }
    Clock::time_point cap = Clock::time_point::max();
    if (stop->abort) {
      if (std::isfinite(stop->at_s) && stop->at_s > 0)
        cap = runner.start_time() + std::chrono::duration_cast<Clock::duration>(
                                        std::chrono::duration<double>(stop->at_s));
      runner.abort();
    } else {
      const auto& flows = runner.side().flows();
      if (stop->sent.size() == flows.size())  // else: not known, or not for this test
        for (const auto& f : flows)
          if (f->index < stop->sent.size()) f->expect_datagrams(stop->sent[f->index]);
      runner.drain_for(after(10));
    }
    runner.end_measuring();
    results::SideResult r = runner.finish(std::min(Clock::now(), cap), cap);
    r.sndbuf = plane.sndbuf;
    r.rcvbuf = plane.rcvbuf;
    auto t = r.total();
    const std::string done = fmt::format(
        "done: {:.2f} s, {} bytes in, {} bytes out, {} transactions{}", r.elapsed_s, t.bytes_recv,
        t.bytes_sent, t.transactions, r.first_error().empty() ? "" : "; " + r.first_error());
    send(proto::Results{std::move(r)});  // not a copy: one FlowResult a flow
    log(done);
  }

  bool receive(proto::Message* m, Clock::time_point deadline) {
    auto st = proto::read_message(ch_, m, deadline, max_frame_,
                                  receive_seal_ ? &*receive_seal_ : nullptr);
    if (st == proto::ReadStatus::kTimeout) {
      reply_error("timeout", "no control message arrived in time");
      log("control connection timed out");
      return false;
    }
    if (st == proto::ReadStatus::kClosed) return false;
    if (auto* e = std::get_if<proto::ErrorMsg>(m)) {
      log("client reported: " + e->message);
      return false;
    }
    return true;
  }

  void send(const proto::Message& m) {
    if (!proto::send_message(ch_, m, after(cfg_.control_timeout_s),
                             send_seal_ ? &*send_seal_ : nullptr))
      throw runtime_error("cannot send to the client (it went away)");
  }

  // Logged first, so the log has the line by the time the client reads why.
  void refuse(const Refusal& r) {
    log(r.log);
    reply_error(r.code, r.message);
  }

  void reply_error(const std::string& code, const std::string& message) {
    proto::send_message(ch_, proto::ErrorMsg{code, message}, after(2),
                        send_seal_ ? &*send_seal_ : nullptr);
  }

  void log(const std::string& what) {
    if (!cfg_.log) return;
    std::string test = spec_set() ? std::string(spec::info(spec_.test).name) : "-";
    std::string who = peer_.to_string();
    if (!key_name_.empty()) who += " (key " + key_name_ + ")";
    std::string line = fmt::format("flowperf server: {} {} x{}: {}\n", who, test,
                                   spec_set() ? spec_.streams : 0, what);
    std::fputs(line.c_str(), cfg_.log);
    std::fflush(cfg_.log);
  }
  bool spec_set() const { return have_spec_; }

  net::Channel& ch_;
  int control_;
  SessionContext ctx_;
  const ServerConfig& cfg_;
  TestSlot slot_;
  net::Address peer_, local_;
  spec::TestSpec spec_;
  bool have_spec_ = false;
  std::string key_name_;  // authenticated as
  // The largest frame taken from the client now: it grows as the client
  // gets further (proto/framing.h).
  uint32_t max_frame_ = proto::kMaxHandshakeFrame;
  // After an authenticated handshake: each direction's seal.
  std::optional<proto::FrameSeal> send_seal_, receive_seal_;
};

}  // namespace

void serve_control_connection(int control, const SessionContext& ctx) {
  net::PlainChannel ch(control);
  if (ctx.config->tls) {
    // Its messages in the clear would defeat the point of TLS.
    proto::send_message(ch,
                        proto::ErrorMsg{"refused",
                                        "this server takes flowperf clients over TLS only: run the "
                                        "client with --tls-ca FILE (the CA of the server's "
                                        "certificate)"},
                        after(2));
    if (ctx.config->log)
      std::fprintf(ctx.config->log,
                   "flowperf server: %s: refused a flowperf client without TLS (--tls-cert)\n",
                   net::peer_address(control).to_string().c_str());
    if (ctx.config->log) std::fflush(ctx.config->log);
    return;
  }
  Session(ch, ctx).run();
}

void serve_tls_control_connection(int control, const SessionContext& ctx) {
  const std::string peer = net::peer_address(control).to_string();
  auto say = [&](const std::string& what) {
    if (!ctx.config->log) return;
    std::fprintf(ctx.config->log, "flowperf server: %s: %s\n", peer.c_str(), what.c_str());
    std::fflush(ctx.config->log);
  };
  if (!ctx.config->tls) return say("a TLS client, and this server has no --tls-cert: closed");
  std::unique_ptr<net::TlsChannel> ch;
  try {
    ch = net::TlsChannel::accept(control, *ctx.config->tls, first_message_deadline(ctx));
  } catch (const Error& e) {
    return say(e.what());
  }
  Session(*ch, ctx).run();
}

}  // namespace flowperf::session
