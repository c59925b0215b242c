// The iperf3 personality's authentication set-up (see iperf3_credentials.h).
#include "cli/iperf3_credentials.h"

#include <termios.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>

#include "auth/iperf3_rsa.h"
#include "auth/iperf3_users.h"
#include "core/error.h"

namespace flowperf::cli {
namespace {

constexpr const char* kClientAuth =
    "you must specify a username, password, and path to a valid RSA public key";
constexpr const char* kServerAuth =
    "you must specify a path to a valid RSA private key and a user credential file";

// flowperf's reason, then 3.12's parameter error and its usage.
Iperf3SetupFailure parameter_failure(const std::string& why, const char* iperf3_words) {
  return {iperf3_usage(),
          "iperf3: error - " + why + "\niperf3: parameter error - " + iperf3_words + "\n\n"};
}

Iperf3SetupFailure failure(const std::string& why) { return {"", "iperf3: error - " + why + "\n"}; }

// Read from the terminal with echo off, as 3.12 asks ("Password: " on
// stdout); nullopt when stdin is not a terminal.
std::optional<std::string> ask_password() {
  termios old{};
  if (::tcgetattr(STDIN_FILENO, &old) != 0) return std::nullopt;
  termios quiet = old;
  quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
  if (::tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet) != 0) return std::nullopt;
  std::fputs("Password: ", stdout);
  std::fflush(stdout);
  char* line = nullptr;
  size_t size = 0;
  const ssize_t n = ::getline(&line, &size, stdin);
  ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &old);
  std::fputs("\n", stdout);
  std::string password = n > 0 ? std::string(line, static_cast<size_t>(n)) : std::string();
  std::free(line);
  if (n < 0) return std::nullopt;
  // The line ends at its first CR or LF.
  password = password.substr(0, password.find_first_of("\r\n"));
  return password;
}

int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

std::function<std::string()> iperf3_client_token(const Iperf3Args& a) {
  std::optional<std::string> password;
  if (const char* env = std::getenv("IPERF3_PASSWORD")) password = env;
  const bool terminal = ::isatty(STDIN_FILENO) == 1;
  if (!password && terminal) password = ask_password();
  if (!password)
    throw parameter_failure(
        "no password for --username " + a.username +
            (terminal ? ": none was typed"
                      : ": set IPERF3_PASSWORD, or run iperf3 on a terminal to be asked for it"),
        kClientAuth);
  std::shared_ptr<const auth::RsaKey> key;
  try {
    key = std::make_shared<const auth::RsaKey>(
        auth::load_rsa_public_key(a.rsa_public_key_path, "--rsa-public-key-path"));
  } catch (const Error& e) {
    throw parameter_failure(e.what(), kClientAuth);
  }
  // 3.12's server reads the name and the password as one word each: others
  // would be sent, and refused.
  if (!auth::iperf3_token_word(a.username))
    throw failure("--username '" + a.username +
                  "': iperf3's server reads a username of one word (no spaces), so this one "
                  "could never authenticate");
  if (!auth::iperf3_token_word(*password))
    throw failure(
        "the password is empty or has a space in it; iperf3's server reads a password of one "
        "word, so it could never authenticate");
  const auto padding = a.use_pkcs1_padding ? auth::RsaPadding::kPkcs1 : auth::RsaPadding::kOaep;
  auto token = [username = a.username, pw = *password, key, padding] {
    return auth::make_iperf3_token({username, pw, unix_now()}, *key, padding);
  };
  try {
    token();  // credentials too long for the key fail now, not after connecting
  } catch (const Error& e) {
    throw failure(e.what());
  }
  return token;
}

session::Iperf3Auth iperf3_server_auth(const Iperf3Args& a) {
  session::Iperf3Auth out;
  try {
    out.private_key = std::make_shared<const auth::RsaKey>(
        auth::load_rsa_private_key(a.rsa_private_key_path, "--rsa-private-key-path"));
  } catch (const Error& e) {
    throw parameter_failure(e.what(), kServerAuth);
  }
  try {
    auth::load_iperf3_users(a.authorized_users_path, "--authorized-users-path");
  } catch (const Error& e) {
    throw failure(e.what());
  }
  out.users_path = a.authorized_users_path;
  out.skew_threshold_s = a.time_skew_threshold_s;
  out.padding = a.use_pkcs1_padding ? auth::RsaPadding::kPkcs1 : auth::RsaPadding::kOaep;
  return out;
}

}  // namespace flowperf::cli
