// iperf3's authentication token: RSA keys from PEM files, OAEP or PKCS#1
// v1.5 encryption, base64, and the token's text (see iperf3_rsa.h). Everything
// goes through OpenSSL's EVP interfaces.
#include "auth/iperf3_rsa.h"

#include <fmt/format.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#include <cerrno>
#include <cstring>

#include "core/error.h"
#include "core/private_file.h"

namespace flowperf::auth {
namespace {

// OpenSSL's last error, in its words, and the queue emptied.
std::string openssl_error() {
  const unsigned long e = ERR_peek_last_error();
  ERR_clear_error();
  if (e == 0) return "no PEM key in it";
  char buf[256];
  ERR_error_string_n(e, buf, sizeof buf);
  return buf;
}

// A passphrase callback that gives none: an encrypted key fails to load
// instead of OpenSSL asking on the terminal.
int no_passphrase(char*, int, int, void* asked) {
  *static_cast<bool*>(asked) = true;
  return -1;
}

struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
struct CtxFree {
  void operator()(EVP_PKEY_CTX* c) const { EVP_PKEY_CTX_free(c); }
};
using Ctx = std::unique_ptr<EVP_PKEY_CTX, CtxFree>;

int openssl_padding(RsaPadding p) {
  return p == RsaPadding::kOaep ? RSA_PKCS1_OAEP_PADDING : RSA_PKCS1_PADDING;
}

enum class Half { kPublic, kPrivate };

RsaKey load(const std::string& path, const std::string& option, Half half) {
  const std::string where = fmt::format("{} {}", option, path);
  ERR_clear_error();
  if (half == Half::kPrivate) require_private_file(-1, path, where);
  std::unique_ptr<BIO, BioFree> file(BIO_new_file(path.c_str(), "r"));
  if (!file) {
    const int err = errno;
    ERR_clear_error();
    throw usage_error(fmt::format("{}: cannot open it: {}", where, std::strerror(err)));
  }
  bool asked = false;
  EVP_PKEY* k = half == Half::kPublic
                    ? PEM_read_bio_PUBKEY(file.get(), nullptr, no_passphrase, &asked)
                    : PEM_read_bio_PrivateKey(file.get(), nullptr, no_passphrase, &asked);
  RsaKey key(k);
  if (!key) {
    if (asked)
      throw usage_error(fmt::format(
          "{}: the key is encrypted with a passphrase, which iperf3 cannot give; write it out "
          "without one (`openssl rsa -in KEY -out plain.pem`)",
          where));
    const std::string why = openssl_error();
    throw usage_error(
        half == Half::kPublic
            ? fmt::format("{}: not a PEM public key (-----BEGIN PUBLIC KEY-----; `openssl rsa -in "
                          "private.pem -pubout -out public.pem` makes one): {}",
                          where, why)
            : fmt::format("{}: not a PEM private key (`openssl genrsa -out private.pem 2048` "
                          "makes one): {}",
                          where, why));
  }
  if (!EVP_PKEY_is_a(key.get(), "RSA"))
    throw usage_error(
        fmt::format("{}: the key is {}, not RSA; iperf3's authentication takes RSA keys", where,
                    EVP_PKEY_get0_type_name(key.get())));
  if (key.bits() < 1024)
    throw usage_error(fmt::format("{}: a {}-bit RSA key is too short for a token; use 2048 bits",
                                  where, key.bits()));
  return key;
}

// Reads "literal" at `at`; false (and `at` unmoved) when it is not there.
bool literal(std::string_view text, size_t& at, std::string_view lit) {
  if (text.substr(at, lit.size()) != lit) return false;
  at += lit.size();
  return true;
}

bool space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

void skip_space(std::string_view text, size_t& at) {
  while (at < text.size() && space(text[at])) ++at;
}

// sscanf's %s: spaces skipped, then one word (at least a character).
std::optional<std::string> word(std::string_view text, size_t& at) {
  skip_space(text, at);
  const size_t from = at;
  while (at < text.size() && !space(text[at])) ++at;
  if (at == from) return std::nullopt;
  return std::string(text.substr(from, at - from));
}

// sscanf's %lld: spaces skipped, an optional sign, decimal digits.
std::optional<int64_t> integer(std::string_view text, size_t& at) {
  skip_space(text, at);
  bool negative = false;
  if (at < text.size() && (text[at] == '-' || text[at] == '+')) negative = text[at++] == '-';
  const size_t from = at;
  uint64_t v = 0;
  while (at < text.size() && text[at] >= '0' && text[at] <= '9') {
    v = v * 10 + static_cast<uint64_t>(text[at++] - '0');
    if (v > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
  }
  if (at == from) return std::nullopt;
  return negative ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
}

}  // namespace

void RsaKey::Free::operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }

int RsaKey::bits() const { return key_ ? EVP_PKEY_get_bits(key_.get()) : 0; }

RsaKey load_rsa_public_key(const std::string& path, const std::string& option) {
  return load(path, option, Half::kPublic);
}

RsaKey load_rsa_private_key(const std::string& path, const std::string& option) {
  return load(path, option, Half::kPrivate);
}

std::string base64_encode(const Bytes& data) {
  std::string out(4 * ((data.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), data.data(),
                                static_cast<int>(data.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

std::optional<Bytes> base64_decode(std::string_view text) {
  // EVP_DecodeBlock forgives whitespace and counts padding as data: the
  // form is checked here, and the padding taken off its count.
  if (text.empty() || text.size() % 4 != 0 || text.size() > (1u << 20)) return std::nullopt;
  size_t pad = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const bool alphabet = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                          (c >= '0' && c <= '9') || c == '+' || c == '/';
    if (c == '=' && i + 2 >= text.size()) {
      ++pad;
    } else if (!alphabet || pad > 0) {
      return std::nullopt;
    }
  }
  Bytes out(text.size() / 4 * 3);
  const int n = EVP_DecodeBlock(out.data(), reinterpret_cast<const unsigned char*>(text.data()),
                                static_cast<int>(text.size()));
  if (n < 0 || static_cast<size_t>(n) != out.size()) return std::nullopt;
  out.resize(out.size() - pad);
  return out;
}

size_t rsa_max_plaintext(const RsaKey& key, RsaPadding padding) {
  const auto bytes = static_cast<size_t>(key.bits() / 8);
  // v1.5: 11 bytes of padding; OAEP with SHA-1: two 20-byte hashes and 2.
  const size_t overhead = padding == RsaPadding::kOaep ? 2 * 20 + 2 : 11;
  return bytes > overhead ? bytes - overhead : 0;
}

Bytes rsa_encrypt(const RsaKey& public_key, std::string_view plaintext, RsaPadding padding) {
  const size_t most = rsa_max_plaintext(public_key, padding);
  if (plaintext.size() > most)
    throw runtime_error(fmt::format(
        "the credentials make {} bytes of token text; a {}-bit RSA key holds at most {} — use "
        "a shorter username or password, or a larger key",
        plaintext.size(), public_key.bits(), most));
  Ctx ctx(EVP_PKEY_CTX_new_from_pkey(nullptr, public_key.get(), nullptr));
  size_t len = 0;
  const auto* in = reinterpret_cast<const unsigned char*>(plaintext.data());
  if (!ctx || EVP_PKEY_encrypt_init(ctx.get()) <= 0 ||
      EVP_PKEY_CTX_set_rsa_padding(ctx.get(), openssl_padding(padding)) <= 0 ||
      EVP_PKEY_encrypt(ctx.get(), nullptr, &len, in, plaintext.size()) <= 0)
    throw runtime_error("cannot encrypt the token: " + openssl_error());
  Bytes out(len);
  if (EVP_PKEY_encrypt(ctx.get(), out.data(), &len, in, plaintext.size()) <= 0)
    throw runtime_error("cannot encrypt the token: " + openssl_error());
  out.resize(len);
  return out;
}

std::optional<std::string> rsa_decrypt(const RsaKey& private_key, const Bytes& ciphertext,
                                       RsaPadding padding) {
  Ctx ctx(EVP_PKEY_CTX_new_from_pkey(nullptr, private_key.get(), nullptr));
  size_t len = 0;
  if (!ctx || EVP_PKEY_decrypt_init(ctx.get()) <= 0 ||
      EVP_PKEY_CTX_set_rsa_padding(ctx.get(), openssl_padding(padding)) <= 0 ||
      EVP_PKEY_decrypt(ctx.get(), nullptr, &len, ciphertext.data(), ciphertext.size()) <= 0) {
    ERR_clear_error();
    return std::nullopt;
  }
  std::string out(len, '\0');
  if (EVP_PKEY_decrypt(ctx.get(), reinterpret_cast<unsigned char*>(out.data()), &len,
                       ciphertext.data(), ciphertext.size()) <= 0) {
    ERR_clear_error();
    return std::nullopt;
  }
  out.resize(len);
  return out;
}

std::string iperf3_token_text(const Iperf3Credentials& c) {
  return fmt::format("user: {}\npwd:  {}\nts:   {}", c.username, c.password, c.timestamp);
}

std::optional<Iperf3Credentials> parse_iperf3_token_text(std::string_view text) {
  // The format's literals must match; its whitespace matches any run of
  // whitespace, none included (sscanf's rules). sscanf reads a C string:
  // nothing after a NUL counts.
  text = text.substr(0, text.find('\0'));
  Iperf3Credentials c;
  size_t at = 0;
  if (!literal(text, at, "user:")) return std::nullopt;
  auto user = word(text, at);
  skip_space(text, at);
  if (!user || !literal(text, at, "pwd:")) return std::nullopt;
  auto pwd = word(text, at);
  skip_space(text, at);
  if (!pwd || !literal(text, at, "ts:")) return std::nullopt;
  auto ts = integer(text, at);
  if (!ts) return std::nullopt;
  c.username = std::move(*user);
  c.password = std::move(*pwd);
  c.timestamp = *ts;
  return c;
}

bool iperf3_token_word(std::string_view w) {
  if (w.empty()) return false;
  for (char c : w)
    if (space(c) || c == '\0') return false;
  return true;
}

std::string make_iperf3_token(const Iperf3Credentials& c, const RsaKey& public_key,
                              RsaPadding padding) {
  return base64_encode(rsa_encrypt(public_key, iperf3_token_text(c), padding));
}

std::optional<Iperf3Credentials> open_iperf3_token(std::string_view token,
                                                   const RsaKey& private_key, RsaPadding padding) {
  auto cipher = base64_decode(token);
  if (!cipher) return std::nullopt;
  auto text = rsa_decrypt(private_key, *cipher, padding);
  if (!text) return std::nullopt;
  return parse_iperf3_token_text(*text);
}

}  // namespace flowperf::auth
