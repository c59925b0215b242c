// libFuzzer target: the iperf3 authentication token as the server reads it
// before it knows who sent it (auth/iperf3_rsa.h): the base64 of the
// parameters' "authtoken", and the token's text once decrypted (a client
// that holds the server's public key chooses that text freely). Whatever
// the bytes, each returns a value or nullopt; a text that parses is one a
// client could have made, and formats back to what it parsed.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "auth/iperf3_rsa.h"

namespace au = flowperf::auth;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // Non-canonical base64 (unused low bits set) decodes too, harmlessly:
  // only what comes back is checked.
  if (auto bytes = au::base64_decode(text)) {
    if (bytes->size() > text.size()) std::abort();
  }
  if (auto c = au::parse_iperf3_token_text(text)) {
    if (!au::iperf3_token_word(c->username) || !au::iperf3_token_word(c->password)) std::abort();
    auto again = au::parse_iperf3_token_text(au::iperf3_token_text(*c));
    if (!again || !(*again == *c)) std::abort();
  }
  return 0;
}
