// libFuzzer target: the authentication handshake's decisions on both ends
// (session/auth_exchange.h), fed what a peer could send. The input is two
// message bodies split at the first NUL byte: on the server's side a Hello
// and then an Auth, on the client's a Challenge and then a Welcome. Each
// must be decoded, refused or answered; only ProtocolError (a malformed
// body) and flowperf::Error (a refusal the user sees) may leave, and a
// server must never accept a proof it did not compute.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/error.h"
#include "proto/messages.h"
#include "session/auth_exchange.h"

namespace fp = flowperf;

namespace {

bool decode(std::string_view body, fp::proto::Message* m) {
  try {
    *m = fp::proto::decode(body);
    return true;
  } catch (const fp::proto::ProtocolError&) {
    return false;
  }
}

void server_side(std::string_view first, std::string_view second) {
  static const fp::session::ServerAuth::Keys keys = {{"alice", "alice-secret-0123456789"}};
  fp::proto::Message m;
  if (!decode(first, &m)) return;
  auto* hello = std::get_if<fp::proto::Hello>(&m);
  if (!hello) return;
  auto agreed = fp::session::negotiate_version(*hello);
  if (!std::holds_alternative<uint32_t>(agreed)) return;
  fp::session::ServerAuth auth(keys, std::get<uint32_t>(agreed), *hello);
  if (auth.early_refusal()) return;
  (void)auth.challenge();
  fp::proto::Message answer;
  if (!decode(second, &answer)) return;
  if (auto* a = std::get_if<fp::proto::Auth>(&answer)) {
    // The server's nonce is fresh and random: no input can know its proof.
    if (!auth.check(*a)) std::abort();
    if (auth.data_token()) std::abort();
  }
}

void client_side(std::string_view first, std::string_view second) {
  fp::session::ClientAuth client(fp::auth::Key{"alice", "alice-secret-0123456789"});
  fp::proto::Message m, w;
  if (!decode(first, &m)) return;
  auto* challenge = std::get_if<fp::proto::Challenge>(&m);
  if (!challenge) return;
  try {
    (void)client.answer(*challenge, "fuzz");
    if (!decode(second, &w)) return;
    if (auto* welcome = std::get_if<fp::proto::Welcome>(&w)) {
      // The client's nonce is fresh: no input can hold the server's proof.
      (void)client.verify(*welcome, "fuzz");
      std::abort();
    }
  } catch (const fp::Error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view all(reinterpret_cast<const char*>(data), size);
  const size_t nul = all.find('\0');
  const std::string_view first = all.substr(0, nul);
  const std::string_view second = nul == std::string_view::npos ? "" : all.substr(nul + 1);
  server_side(first, second);
  client_side(first, second);
  return 0;
}
