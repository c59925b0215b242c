#include "session/auth_exchange.h"

#include <fmt/format.h>

#include "core/error.h"

namespace flowperf::session {

using proto::kOldestProtocolVersion;
using proto::kProtocolVersion;

std::variant<uint32_t, Refusal> negotiate_version(const proto::Hello& hello) {
  const uint32_t newest = hello.version;
  const uint32_t oldest = hello.min_version == 0 ? hello.version : hello.min_version;
  if (oldest <= kProtocolVersion && newest >= kOldestProtocolVersion && oldest <= newest)
    return std::min(newest, kProtocolVersion);
  const std::string theirs =
      oldest == newest ? fmt::format("{}", newest) : fmt::format("{}-{}", oldest, newest);
  return Refusal{"version",
                 fmt::format("this server speaks flowperf protocol {}-{}, the client {} — run "
                             "the same flowperf version on both ends (or one of {})",
                             kOldestProtocolVersion, kProtocolVersion, theirs,
                             oldest > kProtocolVersion ? "the client's age" : "the server's age"),
                 fmt::format("refused: protocol version {}", theirs)};
}

ServerAuth::ServerAuth(const Keys& keys, uint32_t version, const proto::Hello& hello)
    : keys_(keys) {
  transcript_.version = version;
  if (keys_.empty()) return;
  if (version < proto::kSealedProtocolVersion) {
    early_ = Refusal{
        "auth",
        version < 2 ? "this server accepts only authenticated clients, and this client's "
                      "flowperf predates authentication — upgrade it and run it with --key FILE"
                    : "this server accepts only authenticated clients whose every control "
                      "message is sealed (flowperf protocol 3), and this client's flowperf "
                      "predates that — upgrade it",
        fmt::format("refused: authentication required, the client speaks protocol {}", version)};
    return;
  }
  if (hello.key_name.empty()) {
    early_ = Refusal{"auth",
                     "this server accepts only authenticated clients: run the client with --key "
                     "FILE (a `NAME SECRET` line the server's operator gave you)",
                     "refused: no key given (authentication required)"};
    return;
  }
  auto nonce = auth::from_hex(hello.nonce, auth::kNonceBytes);
  if (!nonce || !auth::valid_key_name(hello.key_name)) {
    early_ = Refusal{"bad_message", "malformed key name or nonce in hello",
                     "refused: malformed authentication in hello"};
    return;
  }
  transcript_.name = hello.key_name;
  transcript_.client_nonce = std::move(*nonce);
  transcript_.server_nonce = auth::random_nonce();
}

proto::Challenge ServerAuth::challenge() const {
  return proto::Challenge{transcript_.version, auth::to_hex(transcript_.server_nonce)};
}

std::optional<Refusal> ServerAuth::check(const proto::Auth& a) {
  // An unknown name costs the same work as a known one, and earns the same
  // answer: the reply tells nobody which names exist.
  static const std::string kNobody(32, 'x');
  auto it = keys_.find(transcript_.name);
  const std::string& secret = it == keys_.end() ? kNobody : it->second;
  const auth::Bytes want = auth::client_proof(secret, transcript_);
  const auto got = auth::from_hex(a.proof, auth::kProofBytes);
  const bool good = got && auth::same(*got, want) && it != keys_.end();
  if (!good)
    return Refusal{
        "auth",
        fmt::format("authentication failed for key '{}': this server does not know that name, or "
                    "its secret differs from yours — check the --key file",
                    transcript_.name),
        fmt::format("authentication failed for key '{}' ({})", transcript_.name,
                    it == keys_.end() ? "unknown name" : "wrong proof")};
  proof_hex_ = auth::to_hex(auth::server_proof(secret, transcript_));
  key_ = auth::session_key(secret, transcript_);
  token_ = auth::data_token(key_);
  return std::nullopt;
}

ClientAuth::ClientAuth(auth::Key key) : key_(std::move(key)) {
  transcript_.name = key_.name;
  transcript_.client_nonce = auth::random_nonce();
}

void ClientAuth::fill(proto::Hello* hello) const {
  hello->min_version = proto::kSealedProtocolVersion;  // older ones do not seal frames
  hello->key_name = key_.name;
  hello->nonce = auth::to_hex(transcript_.client_nonce);
}

proto::Auth ClientAuth::answer(const proto::Challenge& c, const std::string& where) {
  auto nonce = auth::from_hex(c.nonce, auth::kNonceBytes);
  if (!nonce || c.version < 2 || c.version > kProtocolVersion)
    throw runtime_error("the server at " + where + " sent a malformed authentication challenge");
  if (c.version < proto::kSealedProtocolVersion)
    throw runtime_error(fmt::format(
        "the server at {} speaks flowperf protocol {}, which does not seal the control messages "
        "after authenticating: upgrade the server",
        where, c.version));
  transcript_.version = c.version;
  transcript_.server_nonce = std::move(*nonce);
  return proto::Auth{auth::to_hex(auth::client_proof(key_.secret, transcript_))};
}

uint64_t ClientAuth::verify(const proto::Welcome& w, const std::string& where) const {
  auto proof = auth::from_hex(w.proof, auth::kProofBytes);
  if (!proof || !auth::same(*proof, auth::server_proof(key_.secret, transcript_)))
    throw runtime_error(
        fmt::format("authentication failed: the server at {} did not prove it holds key '{}' — "
                    "it is not the server that key is for; no test was run",
                    where, key_.name));
  return auth::data_token(auth::session_key(key_.secret, transcript_));
}

proto::FrameSeal ClientAuth::send_seal() const {
  return proto::FrameSeal(auth::client_frame_key(auth::session_key(key_.secret, transcript_)));
}

proto::FrameSeal ClientAuth::receive_seal() const {
  return proto::FrameSeal(auth::server_frame_key(auth::session_key(key_.secret, transcript_)));
}

}  // namespace flowperf::session
