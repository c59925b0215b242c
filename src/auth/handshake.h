// The cryptography of flowperf's authenticated control connection: nonces,
// the proofs each side gives that it knows the shared secret, and the keys
// derived from it. Pure functions over bytes (OpenSSL's libcrypto does the
// HMAC-SHA256 and the randomness); the exchange itself is in session/.
//
//   client                                          server
//     │── Hello{name, client nonce} ─────────────────►│
//     │◄──────────────────────── Challenge{server nonce}│
//     │── Auth{client proof} ────────────────────────►│  checked in constant time
//     │◄────────────────────────── Welcome{server proof}│  checked by the client
//
// Every MAC is keyed with the secret and covers a label of its own, the
// protocol version, the key's name and both nonces, so a proof from one
// connection (or one direction) is worth nothing in another: a replayed
// Auth meets a fresh server nonce, and a server's proof cannot be made
// from the client's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace flowperf::auth {

using Bytes = std::vector<uint8_t>;

inline constexpr size_t kNonceBytes = 32;
inline constexpr size_t kProofBytes = 32;  // HMAC-SHA256

// What both proofs are computed over.
struct Transcript {
  uint32_t version = 0;  // the negotiated protocol version
  std::string name;      // the key's name, as the client gave it
  Bytes client_nonce, server_nonce;
};

// kNonceBytes from the system's random source. Throws a runtime Error when
// there is none.
Bytes random_nonce();

Bytes client_proof(std::string_view secret, const Transcript& t);
Bytes server_proof(std::string_view secret, const Transcript& t);
// The connection's own key; the data connections' token comes from it, so
// neither is ever sent.
Bytes session_key(std::string_view secret, const Transcript& t);
// The 8 bytes that open each TCP data connection of an authenticated test.
uint64_t data_token(const Bytes& session_key);
// The keys that seal the control frames after the handshake (protocol 3),
// one for each direction, so a frame cannot be reflected back to its sender.
Bytes client_frame_key(const Bytes& session_key);
Bytes server_frame_key(const Bytes& session_key);

// Equal in size and content, in time that does not depend on where they differ.
bool same(const Bytes& a, const Bytes& b);

std::string to_hex(const Bytes& b);
// Lowercase or uppercase hex of exactly `bytes` bytes; nullopt otherwise.
std::optional<Bytes> from_hex(std::string_view text, size_t bytes);

}  // namespace flowperf::auth
