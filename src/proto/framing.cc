#include "proto/framing.h"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <algorithm>
#include <memory>
#include <string>

#include "net/sys.h"

namespace flowperf::proto {

std::array<uint8_t, kTagBytes> FrameSeal::next(const uint8_t* header, const char* body,
                                               size_t len) {
  struct MacFree {
    void operator()(EVP_MAC_CTX* c) const { EVP_MAC_CTX_free(c); }
  };
  // Fetched once, kept for the process's life.
  static EVP_MAC* const hmac = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
  std::unique_ptr<EVP_MAC_CTX, MacFree> ctx(hmac ? EVP_MAC_CTX_new(hmac) : nullptr);
  char digest[] = "SHA256";
  const OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
                               OSSL_PARAM_construct_end()};
  uint8_t number[8];
  for (int i = 0; i < 8; ++i) number[i] = static_cast<uint8_t>(number_ >> (56 - 8 * i));
  std::array<uint8_t, kTagBytes> tag{};
  size_t n = 0;
  if (!ctx || EVP_MAC_init(ctx.get(), key_.data(), key_.size(), params) != 1 ||
      EVP_MAC_update(ctx.get(), number, sizeof number) != 1 ||
      EVP_MAC_update(ctx.get(), header, kHeaderBytes) != 1 ||
      EVP_MAC_update(ctx.get(), reinterpret_cast<const uint8_t*>(body), len) != 1 ||
      EVP_MAC_final(ctx.get(), tag.data(), &n, tag.size()) != 1 || n != tag.size())
    throw ProtocolError("cannot compute a control message's HMAC-SHA256 (OpenSSL failed)");
  ++number_;
  return tag;
}

std::array<uint8_t, kHeaderBytes> make_header(uint32_t len, uint8_t flags) {
  return {'F',
          'P',
          kFramingVersion,
          flags,
          static_cast<uint8_t>(len >> 24),
          static_cast<uint8_t>(len >> 16),
          static_cast<uint8_t>(len >> 8),
          static_cast<uint8_t>(len)};
}

bool looks_like_flowperf(const uint8_t* first, size_t n) {
  return n >= 2 && first[0] == 'F' && first[1] == 'P';
}

uint32_t parse_header(const uint8_t* h, uint32_t max_len) {
  if (!looks_like_flowperf(h, kHeaderBytes))
    throw ProtocolError("not a flowperf control connection (bad magic bytes)");
  if (h[2] != kFramingVersion)
    throw ProtocolError("unsupported framing version " + std::to_string(h[2]) +
                        " (this flowperf speaks " + std::to_string(kFramingVersion) + ")");
  uint32_t len = (uint32_t{h[4]} << 24) | (uint32_t{h[5]} << 16) | (uint32_t{h[6]} << 8) | h[7];
  if (len == 0) throw ProtocolError("empty control message");
  if (len > max_len)
    throw ProtocolError("control message of " + std::to_string(len) + " bytes is over the " +
                        std::to_string(max_len) + "-byte limit");
  return len;
}

bool send_message(int fd, const Message& m, Deadline deadline) {
  net::PlainChannel ch(fd);
  return send_message(ch, m, deadline);
}

ReadStatus read_message(int fd, Message* out, Deadline deadline, uint32_t max_len) {
  net::PlainChannel ch(fd);
  return read_message(ch, out, deadline, max_len);
}

bool send_message(net::Channel& ch, const Message& m, Deadline deadline, FrameSeal* seal) {
  // The body is written after room for the header, which is filled in once its length is known:
  // a results body may be many MB, and is not copied.
  std::string frame(kHeaderBytes, '\0');
  encode_into(frame, m);
  const size_t body = frame.size() - kHeaderBytes;
  auto header =
      make_header(static_cast<uint32_t>(body + (seal ? kTagBytes : 0)), seal ? kFlagSealed : 0);
  std::copy(header.begin(), header.end(), frame.begin());
  if (seal) {
    const auto tag = seal->next(header.data(), frame.data() + kHeaderBytes, body);
    frame.append(reinterpret_cast<const char*>(tag.data()), tag.size());
  }
  return ch.write_all(frame.data(), frame.size(), deadline) == net::sys::IoStatus::kOk;
}

ReadStatus read_message(net::Channel& ch, Message* out, Deadline deadline, uint32_t max_len,
                        FrameSeal* check) {
  uint8_t header[kHeaderBytes];
  size_t got = 0;
  // A TLS record rewritten on the way (found here, or by the peer, whose
  // alert says so) fails like a sealed frame that fails its check.
  auto tampered = [&ch](net::sys::IoStatus st) {
    if (st == net::sys::IoStatus::kError && ch.failed_integrity())
      throw FrameCheckError("a TLS record of the control connection failed its check (" +
                            ch.failure() + "): it was rewritten on the way");
  };
  auto st = ch.read_exact(header, sizeof header, deadline, &got);
  if (st == net::sys::IoStatus::kTimeout) return ReadStatus::kTimeout;
  tampered(st);
  if (st != net::sys::IoStatus::kOk) {
    if (got != 0 && st == net::sys::IoStatus::kClosed)
      throw ProtocolError("control connection closed in the middle of a message header");
    return ReadStatus::kClosed;
  }
  const bool sealed = (header[3] & kFlagSealed) != 0;
  if (check && !sealed)
    throw FrameCheckError(
        "a control message came without its seal after the authenticated handshake: it was "
        "rewritten on the way");
  if (!check && sealed) throw ProtocolError("a sealed control message where none was expected");
  uint32_t len = parse_header(header, sealed ? max_len + uint32_t{kTagBytes} : max_len);
  if (sealed && len <= kTagBytes) throw FrameCheckError("a sealed control message without a body");
  std::string body(len, '\0');
  st = ch.read_exact(body.data(), len, deadline);
  if (st == net::sys::IoStatus::kTimeout) return ReadStatus::kTimeout;
  tampered(st);
  if (st != net::sys::IoStatus::kOk)
    throw ProtocolError("control connection closed in the middle of a message");
  if (sealed) {
    const size_t text = len - kTagBytes;
    const auto want = check->next(header, body.data(), text);
    if (CRYPTO_memcmp(want.data(), body.data() + text, kTagBytes) != 0)
      throw FrameCheckError(
          "a control message failed its check: it was rewritten, replayed, reordered or "
          "dropped on the way");
    body.resize(text);
  }
  *out = decode(body);
  return ReadStatus::kOk;
}

}  // namespace flowperf::proto
