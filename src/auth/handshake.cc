#include "auth/handshake.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <cstring>

#include "core/error.h"

namespace flowperf::auth {
namespace {

// label NUL version(4, big-endian) name NUL client-nonce server-nonce
Bytes message(std::string_view label, const Transcript& t) {
  Bytes m(label.begin(), label.end());
  m.push_back(0);
  for (int shift = 24; shift >= 0; shift -= 8)
    m.push_back(static_cast<uint8_t>(t.version >> shift));
  m.insert(m.end(), t.name.begin(), t.name.end());
  m.push_back(0);
  m.insert(m.end(), t.client_nonce.begin(), t.client_nonce.end());
  m.insert(m.end(), t.server_nonce.begin(), t.server_nonce.end());
  return m;
}

Bytes hmac(std::string_view key, const uint8_t* data, size_t len) {
  Bytes out(EVP_MAX_MD_SIZE);
  unsigned int n = 0;
  if (!HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), data, len, out.data(), &n))
    throw runtime_error("cannot compute HMAC-SHA256 (OpenSSL failed)");
  out.resize(n);
  return out;
}

Bytes mac(std::string_view secret, std::string_view label, const Transcript& t) {
  const Bytes m = message(label, t);
  return hmac(secret, m.data(), m.size());
}

// A key of its own for one use, from the session key.
Bytes derive(const Bytes& session_key, std::string_view label) {
  const std::string_view key(reinterpret_cast<const char*>(session_key.data()), session_key.size());
  return hmac(key, reinterpret_cast<const uint8_t*>(label.data()), label.size());
}

}  // namespace

Bytes random_nonce() {
  Bytes n(kNonceBytes);
  if (RAND_bytes(n.data(), static_cast<int>(n.size())) != 1)
    throw runtime_error("the system's random source failed; cannot authenticate");
  return n;
}

Bytes client_proof(std::string_view secret, const Transcript& t) {
  return mac(secret, "flowperf client proof", t);
}

Bytes server_proof(std::string_view secret, const Transcript& t) {
  return mac(secret, "flowperf server proof", t);
}

Bytes session_key(std::string_view secret, const Transcript& t) {
  return mac(secret, "flowperf session key", t);
}

Bytes client_frame_key(const Bytes& session_key) {
  return derive(session_key, "flowperf frames client to server");
}

Bytes server_frame_key(const Bytes& session_key) {
  return derive(session_key, "flowperf frames server to client");
}

uint64_t data_token(const Bytes& session_key) {
  const Bytes t = derive(session_key, "flowperf data token");
  uint64_t token;
  std::memcpy(&token, t.data(), sizeof token);
  return token;
}

bool same(const Bytes& a, const Bytes& b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

std::string to_hex(const Bytes& b) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  s.reserve(b.size() * 2);
  for (uint8_t c : b) {
    s.push_back(kDigits[c >> 4]);
    s.push_back(kDigits[c & 15]);
  }
  return s;
}

std::optional<Bytes> from_hex(std::string_view text, size_t bytes) {
  if (text.size() != bytes * 2) return std::nullopt;
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  Bytes out(bytes);
  for (size_t i = 0; i < bytes; ++i) {
    int hi = digit(text[2 * i]), lo = digit(text[2 * i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out[i] = static_cast<uint8_t>(hi << 4 | lo);
  }
  return out;
}

}  // namespace flowperf::auth
