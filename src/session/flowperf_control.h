// flowperf's own control connection as a client holds it: connect, Hello
// for Welcome, then messages sent and awaited one at a time. Every client
// conversation in flowperf's protocol goes through it (a test, a server's
// description, a quit request), so each failure reads the same whatever
// asked: a server that is not there, a silent or closed one, a refusal
// (with the exit code its error code calls for), or one that speaks
// something else.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "auth/keys.h"
#include "net/channel.h"
#include "net/fd.h"
#include "net/socket.h"
#include "net/tls.h"
#include "proto/framing.h"
#include "proto/messages.h"
#include "session/control_connect.h"

namespace flowperf::session {

// How a client secures its control connection.
struct ControlSecurity {
  std::optional<auth::Key> key;          // --key: authenticate both ends
  std::shared_ptr<net::TlsContext> tls;  // --tls-ca: speak over TLS, to a server it trusts
};

class FlowperfControl {
 public:
  // Connects (throws ConnectError), starts TLS when asked, and exchanges
  // Hello for Welcome; with a key, authenticates both ends on the way
  // (session/auth_exchange.h).
  explicit FlowperfControl(const ControlTarget& target, const ControlSecurity& security = {},
                           double send_timeout_s = 10);

  int fd() const { return fd_.get(); }
  // "TLSv1.3 TLS_AES_256_GCM_SHA384", or empty in the clear.
  std::string tls() const;
  const std::string& where() const { return where_; }
  const net::Address& server() const { return server_; }
  const proto::Welcome& welcome() const { return welcome_; }
  // After authentication: the token that opens each TCP data connection.
  std::optional<uint64_t> data_token() const { return data_token_; }

  // Throws Error when the server is gone.
  void send(const proto::Message& m);
  // Receives the next message, which must be a T. A server's error message
  // becomes an Error (exit 2 for "invalid_spec", else 1); silence, a close,
  // a malformed message or another message become runtime Errors.
  template <typename T>
  T expect(double timeout_s) {
    proto::Message m = receive(timeout_s);
    if (auto* t = std::get_if<T>(&m)) return std::move(*t);
    throw out_of_turn(m);
  }

 private:
  proto::Message receive(double timeout_s);
  Error out_of_turn(const proto::Message& m) const;

  net::Fd fd_;
  std::unique_ptr<net::Channel> ch_;
  net::Address server_;
  std::string where_;
  double send_timeout_s_;
  proto::Welcome welcome_;
  bool welcomed_ = false;  // a flowperf server answered: no need to ask if it is one
  // Until the handshake is done (and, with a key, the server has proven
  // it holds it), only the handshake's small frames are read.
  uint32_t max_frame_ = proto::kMaxHandshakeFrame;
  // With a key, after the welcome: each direction's seal.
  std::optional<proto::FrameSeal> send_seal_, receive_seal_;
  std::optional<uint64_t> data_token_;
};

}  // namespace flowperf::session
