// iperf3's authentication token (3.12, --username / --rsa-public-key-path on
// the client, --rsa-private-key-path on the server): the client writes its
// credentials and the time as three lines of text,
//
//   "user: NAME\npwd:  PASSWORD\nts:   SECONDS"      (SECONDS: Unix time)
//
// encrypts them with the server's RSA public key, and sends the ciphertext as
// one line of base64 (no newlines, '=' padded) in the parameter JSON's
// "authtoken". The server decrypts it with its private key. Whether the
// credentials are good is iperf3_users.h's business.
//
// The padding: iperf3 up to 3.16 encrypts with PKCS#1 v1.5; 3.17 and later
// (the CVE-2024-26306 fix) with OAEP (SHA-1, MGF1 with SHA-1, no label:
// OpenSSL's defaults), and a server of 3.17 or later opens v1.5 tokens only
// when started with --use-pkcs1-padding. A 3.21 client always uses OAEP, a
// 3.12 client always v1.5. Nothing in a token says which it is, and trying
// one after the other would tell a prober which failed: a server opens
// tokens with the one padding it was started with.
//
// Facts from iperf3's iperf_auth.c (3.12 and 3.21), checked against
// Debian's 3.12 and a 3.21 built from source (docs/security.md).
#pragma once

#include <openssl/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "auth/handshake.h"  // Bytes

namespace flowperf::auth {

// An RSA key read from a PEM file: public only, or a private one (which
// holds its public half too). Move-only; safe to share between threads
// once loaded (OpenSSL keys are read-only after loading).
class RsaKey {
 public:
  RsaKey() = default;
  explicit RsaKey(EVP_PKEY* key) : key_(key) {}
  EVP_PKEY* get() const { return key_.get(); }
  explicit operator bool() const { return key_ != nullptr; }
  int bits() const;

 private:
  struct Free {
    void operator()(EVP_PKEY* k) const;
  };
  std::unique_ptr<EVP_PKEY, Free> key_;
};

// A PEM public key ("-----BEGIN PUBLIC KEY-----", as `openssl rsa -pubout`
// writes it) or a PEM private key (PKCS#8 "PRIVATE KEY" or "RSA PRIVATE
// KEY", unencrypted). Throws a usage Error naming `option` and the file:
// missing, unreadable, not such a PEM key, not RSA, or encrypted.
RsaKey load_rsa_public_key(const std::string& path, const std::string& option);
RsaKey load_rsa_private_key(const std::string& path, const std::string& option);

// Base64 as 3.12 writes it: one line, '=' padding. Decoding takes exactly
// that form (no whitespace); nullopt for anything else.
std::string base64_encode(const Bytes& data);
std::optional<Bytes> base64_decode(std::string_view text);

enum class RsaPadding {
  kOaep,   // iperf3 3.17 and later: OAEP, SHA-1 and MGF1-SHA-1
  kPkcs1,  // iperf3 up to 3.16 (and --use-pkcs1-padding): PKCS#1 v1.5
};

// The longest plaintext one block of this key holds with this padding.
size_t rsa_max_plaintext(const RsaKey& key, RsaPadding padding);

// RSA with the padding given. encrypt throws a runtime Error when the
// plaintext is longer than the key holds; decrypt gives nullopt when the
// ciphertext is not one this key made with this padding.
Bytes rsa_encrypt(const RsaKey& public_key, std::string_view plaintext, RsaPadding padding);
std::optional<std::string> rsa_decrypt(const RsaKey& private_key, const Bytes& ciphertext,
                                       RsaPadding padding);

// What a token carries.
struct Iperf3Credentials {
  std::string username, password;
  int64_t timestamp = 0;  // seconds since the Unix epoch, the client's clock

  bool operator==(const Iperf3Credentials&) const = default;
};

// The plaintext, exactly as 3.12 formats it.
std::string iperf3_token_text(const Iperf3Credentials& c);
// The plaintext read as 3.12's server reads it (sscanf with the same
// format: a name and a password are each one word, spaces around them are
// skipped, text after the time is ignored). nullopt when it is not one.
std::optional<Iperf3Credentials> parse_iperf3_token_text(std::string_view text);

// Whether a name or password can travel in a token at all: 3.12's server
// reads each as one word, so one with a space, tab or newline (or empty)
// never authenticates.
bool iperf3_token_word(std::string_view word);

// The base64 "authtoken" for these credentials. Throws a runtime Error when
// they are too long for the key.
std::string make_iperf3_token(const Iperf3Credentials& c, const RsaKey& public_key,
                              RsaPadding padding);
// The credentials in a token, or nullopt when it is not base64, not for
// this key and padding, or not iperf3's text.
std::optional<Iperf3Credentials> open_iperf3_token(std::string_view token,
                                                   const RsaKey& private_key, RsaPadding padding);

}  // namespace flowperf::auth
