#include "session/flowperf_control.h"

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <variant>

#include "core/deadline.h"
#include "core/version.h"
#include "session/auth_exchange.h"

namespace flowperf::session {
namespace {

using Clock = std::chrono::steady_clock;

using core::after;

}  // namespace

FlowperfControl::FlowperfControl(const ControlTarget& target, const ControlSecurity& security,
                                 double send_timeout_s)
    : send_timeout_s_(send_timeout_s) {
  fd_ = connect_control(target, &server_);
  where_ = server_.to_string();
  const double answer_s = target.timeout_s > 10 ? target.timeout_s : 10;
  if (security.tls) {
    try {
      ch_ = net::TlsChannel::connect(fd_.get(), *security.tls, target.host, after(answer_s));
    } catch (const Error& e) {
      throw runtime_error("the server at " + where_ + ": " + e.what());
    }
  } else {
    ch_ = std::make_unique<net::PlainChannel>(fd_.get());
  }
  const std::optional<auth::Key>& key = security.key;
  proto::Hello hello{proto::kProtocolVersion, std::string("flowperf ") + kVersion,
                     proto::kOldestProtocolVersion};
  std::optional<ClientAuth> auth;
  if (key) {
    auth.emplace(*key);
    auth->fill(&hello);
  }
  send(hello);
  if (!auth) {
    welcome_ = expect<proto::Welcome>(answer_s);
    welcomed_ = true;
    max_frame_ = proto::kMaxFrame;
    return;
  }
  proto::Message m = receive(answer_s);
  welcomed_ = true;  // a flowperf server answered
  if (std::holds_alternative<proto::Welcome>(m))
    throw runtime_error(fmt::format(
        "authentication failed: the server at {} checks no keys (it was started without --keys), "
        "so it cannot prove it is the server key '{}' is for — run without --key to test "
        "against it anyway",
        where_, key->name));
  auto* challenge = std::get_if<proto::Challenge>(&m);
  if (!challenge) throw out_of_turn(m);
  send(auth->answer(*challenge, where_));
  welcome_ = expect<proto::Welcome>(answer_s);
  data_token_ = auth->verify(welcome_, where_);
  max_frame_ = proto::kMaxFrame;  // the server has proven it holds the key
  send_seal_.emplace(auth->send_seal());
  receive_seal_.emplace(auth->receive_seal());
}

void FlowperfControl::send(const proto::Message& m) {
  if (!proto::send_message(*ch_, m, after(send_timeout_s_), send_seal_ ? &*send_seal_ : nullptr))
    throw runtime_error("the server at " + where_ + " went away (cannot send " +
                        proto::message_name(m) + ")");
}

proto::Message FlowperfControl::receive(double timeout_s) {
  proto::Message m;
  proto::ReadStatus st;
  errno = 0;  // a clean close leaves it alone; a reset sets ECONNRESET
  try {
    st = proto::read_message(*ch_, &m, after(timeout_s), max_frame_,
                             receive_seal_ ? &*receive_seal_ : nullptr);
  } catch (const proto::FrameCheckError& e) {
    throw runtime_error("authentication failed mid-test: the server at " + where_ + ": " +
                        e.what());
  } catch (const proto::ProtocolError& e) {
    throw runtime_error("the server at " + where_ + " sent a malformed control message (" +
                        e.what() + ") — is it a flowperf server of the same version?");
  }
  // Before the welcome, silence or a hang-up most often means another
  // service listens there (iperf3's server waits for its cookie, netserver
  // for 656 bytes, sshd closes on a bad banner).
  const char* which = welcomed_ ? "" : " — is a flowperf server listening on that port?";
  if (st == proto::ReadStatus::kTimeout)
    throw runtime_error(
        fmt::format("the server at {} did not answer within {:g} s{}", where_, timeout_s, which));
  if (st == proto::ReadStatus::kClosed)
    throw runtime_error("the server at " + where_ + (errno == ECONNRESET ? " reset" : " closed") +
                        " the control connection" + which);
  if (auto* e = std::get_if<proto::ErrorMsg>(&m)) {
    // The server answered and would not run it: the spec (a usage error),
    // or its policy, limits or keys (refused).
    if (e->code == "invalid_spec")
      throw Error(ExitCode::kUsage, "server " + where_ + ": " + e->message);
    throw RefusedError("server " + where_ + ": " + e->message);
  }
  return m;
}

std::string FlowperfControl::tls() const {
  auto* t = dynamic_cast<const net::TlsChannel*>(ch_.get());
  return t ? t->description() : std::string();
}

Error FlowperfControl::out_of_turn(const proto::Message& m) const {
  return runtime_error(
      fmt::format("the server at {} sent '{}' out of turn", where_, proto::message_name(m)));
}

}  // namespace flowperf::session
