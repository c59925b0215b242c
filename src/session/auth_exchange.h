// The handshake of flowperf's protocol on both ends: which version two
// peers speak, and, when the server holds keys (flowperf server --keys),
// the mutual challenge-response of auth/handshake.h. Decisions only: the
// messages are sent and received by the server's Session and the client's
// FlowperfControl, so the whole decision path can be fed anything (a
// fuzz target does) without a socket.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>

#include "auth/handshake.h"
#include "auth/keys.h"
#include "proto/framing.h"
#include "proto/messages.h"

namespace flowperf::session {

// Why the server will not go on; code and message go to the client, log to the server's log.
struct Refusal {
  std::string code, message, log;
};

// The version to speak with this client (the newest both speak), or why none.
std::variant<uint32_t, Refusal> negotiate_version(const proto::Hello& hello);

// The server's half. Built from the client's Hello once the version is
// agreed; keys empty: the server authenticates nobody and asks nothing.
class ServerAuth {
 public:
  using Keys = std::map<std::string, std::string>;
  ServerAuth(const Keys& keys, uint32_t version, const proto::Hello& hello);

  // A refusal before any challenge (no key given, an old client, a
  // malformed nonce), or nothing.
  const std::optional<Refusal>& early_refusal() const { return early_; }
  bool required() const { return !keys_.empty(); }
  proto::Challenge challenge() const;
  // Checks the client's proof; on success proof() and data_token() are set.
  std::optional<Refusal> check(const proto::Auth& auth);
  const std::string& server_proof_hex() const { return proof_hex_; }
  std::optional<uint64_t> data_token() const { return token_; }
  // After a good check: the seals of this connection's later frames.
  proto::FrameSeal send_seal() const { return proto::FrameSeal(auth::server_frame_key(key_)); }
  proto::FrameSeal receive_seal() const { return proto::FrameSeal(auth::client_frame_key(key_)); }
  const std::string& name() const { return transcript_.name; }

 private:
  const Keys& keys_;
  auth::Transcript transcript_;
  std::optional<Refusal> early_;
  std::string proof_hex_;
  std::optional<uint64_t> token_;
  auth::Bytes key_;  // the session key, after a good check
};

// The client's half, for a client with a key (--key).
class ClientAuth {
 public:
  explicit ClientAuth(auth::Key key);
  // Fills Hello's key name and nonce (and asks for version 2 or newer).
  void fill(proto::Hello* hello) const;
  // The answer to the server's challenge. Throws a runtime Error for a
  // malformed one (its nonce, or a version that cannot authenticate).
  proto::Auth answer(const proto::Challenge& c, const std::string& where);
  // Checks the server's proof in its Welcome; the data connections' token.
  // Throws a runtime Error when the server did not prove it holds the key.
  uint64_t verify(const proto::Welcome& w, const std::string& where) const;
  // After verify(): the seals of this connection's later frames.
  proto::FrameSeal send_seal() const;
  proto::FrameSeal receive_seal() const;

 private:
  auth::Key key_;
  auth::Transcript transcript_;
};

}  // namespace flowperf::session
