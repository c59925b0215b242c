// iperf3's authorized-users file, the password hash, the clock check and
// the decision on a token (see iperf3_users.h).
#include "auth/iperf3_users.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>

#include "core/error.h"
#include "net/fd.h"

namespace flowperf::auth {
namespace {

constexpr size_t kHashBytes = 32;
constexpr off_t kMaxFileBytes = 1 << 20;

std::string read_small_file(const std::string& path, const std::string& where) {
  net::Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY));
  if (!fd) throw usage_error(fmt::format("{}: cannot open it: {}", where, std::strerror(errno)));
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode))
    throw usage_error(fmt::format("{}: not a regular file", where));
  if (st.st_size > kMaxFileBytes)
    throw usage_error(fmt::format("{}: larger than 1 MB; is it a users file?", where));
  std::string text(static_cast<size_t>(st.st_size), '\0');
  size_t got = 0;
  while (got < text.size()) {
    const ssize_t n = ::read(fd.get(), text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      throw usage_error(fmt::format("{}: cannot read it: {}", where, std::strerror(errno)));
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  text.resize(got);
  return text;
}

Bytes sha256(std::string_view text) {
  Bytes out(EVP_MAX_MD_SIZE);
  unsigned int n = 0;
  if (!EVP_Digest(text.data(), text.size(), out.data(), &n, EVP_sha256(), nullptr))
    throw runtime_error("cannot compute SHA-256 (OpenSSL failed)");
  out.resize(n);
  return out;
}

}  // namespace

Bytes iperf3_password_hash(std::string_view username, std::string_view password) {
  return sha256(fmt::format("{{{}}}{}", username, password));
}

std::vector<Iperf3User> parse_iperf3_users(std::string_view text, const std::string& where) {
  std::vector<Iperf3User> users;
  size_t from = 0;
  for (int number = 1; from < text.size(); ++number) {
    size_t nl = text.find('\n', from);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(from, nl - from);
    from = nl + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line[0] == '#') continue;

    const std::string at = fmt::format("{}, line {}", where, number);
    const size_t comma = line.find(',');
    if (comma == std::string_view::npos)
      throw usage_error(fmt::format(
          "{}: expected USERNAME,HASH with HASH the SHA-256 of \"{{USERNAME}}PASSWORD\" "
          "(`printf '{{%s}}%s' USERNAME PASSWORD | sha256sum` prints it)",
          at));
    const std::string_view name = line.substr(0, comma), hex = line.substr(comma + 1);
    if (!iperf3_token_word(name))
      throw usage_error(fmt::format(
          "{}: the username '{}' is empty or has a space in it, and iperf3's token carries "
          "a name of one word",
          at, name));
    auto hash = from_hex(hex, kHashBytes);
    if (!hash)
      throw usage_error(fmt::format(
          "{}: the hash of '{}' is not 64 hex digits (a SHA-256, as `printf '{{%s}}%s' {} "
          "PASSWORD | sha256sum` prints it)",
          at, name, name));
    users.push_back({std::string(name), std::move(*hash)});
  }
  if (users.empty())
    throw usage_error(fmt::format(
        "{}: no users in it; give one USERNAME,HASH line per user ('#' starts a comment)", where));
  return users;
}

std::vector<Iperf3User> load_iperf3_users(const std::string& path, const std::string& option) {
  const std::string where = fmt::format("{} {}", option, path);
  return parse_iperf3_users(read_small_file(path, where), where);
}

bool within_skew(int64_t timestamp, int64_t now, int threshold_s) {
  // The distance in unsigned arithmetic: a token may carry any 64-bit time.
  const auto a = static_cast<uint64_t>(now), b = static_cast<uint64_t>(timestamp);
  const uint64_t d = now >= timestamp ? a - b : b - a;
  return threshold_s >= 0 && d <= static_cast<uint64_t>(threshold_s);
}

bool iperf3_password_matches(const std::vector<Iperf3User>& users, std::string_view username,
                             std::string_view password) {
  const Bytes want = iperf3_password_hash(username, password);
  bool match = false;
  for (const auto& u : users) {
    const bool hash_same =
        u.hash.size() == want.size() && CRYPTO_memcmp(u.hash.data(), want.data(), want.size()) == 0;
    match |= hash_same && u.name == username;
  }
  return match;
}

std::string Iperf3Decision::describe(int64_t now) const {
  switch (verdict) {
    case Iperf3Verdict::kAuthorized:
      return fmt::format("authorized user '{}'", username);
    case Iperf3Verdict::kNoToken:
      return "no token";
    case Iperf3Verdict::kBadToken:
      return "a token that does not open with this server's private key and padding";
    case Iperf3Verdict::kTimeSkew:
      return fmt::format(
          "user '{}': the token's time ({}) is too far from this server's clock ({})", username,
          timestamp, now);
    case Iperf3Verdict::kUnknownUser:
      return fmt::format("user '{}': not in the users file", username);
    case Iperf3Verdict::kWrongPassword:
      return fmt::format("user '{}': wrong password", username);
    case Iperf3Verdict::kReplayed:
      return fmt::format("user '{}': a token this server has taken before (a replay)", username);
  }
  return "?";
}

bool Iperf3ReplayCache::first_use(std::string_view token, int64_t keep_until, int64_t now) {
  const Bytes digest = sha256(token);
  std::string key(digest.begin(), digest.end());
  std::lock_guard lock(mu_);
  while (!leaving_.empty() && leaving_.begin()->first < now) {
    seen_.erase(leaving_.begin()->second);
    leaving_.erase(leaving_.begin());
  }
  if (seen_.contains(key)) return false;
  while (!leaving_.empty() && seen_.size() >= capacity_) {
    seen_.erase(leaving_.begin()->second);
    leaving_.erase(leaving_.begin());
  }
  seen_.insert(key);
  leaving_.emplace(keep_until, std::move(key));
  return true;
}

size_t Iperf3ReplayCache::size() const {
  std::lock_guard lock(mu_);
  return seen_.size();
}

Iperf3Decision authorize_iperf3(std::string_view token, const Iperf3TokenCheck& check,
                                const std::vector<Iperf3User>& users, int64_t now) {
  Iperf3Decision d;
  if (token.empty()) return d;
  auto c = open_iperf3_token(token, *check.private_key, check.padding);
  if (!c) {
    // The same hashing a good token's check does, its answer unused.
    [[maybe_unused]] const bool same_work = iperf3_password_matches(users, "-", "-");
    d.verdict = Iperf3Verdict::kBadToken;
    return d;
  }
  d.username = c->username;
  d.timestamp = c->timestamp;
  const bool password = iperf3_password_matches(users, c->username, c->password);
  if (!within_skew(c->timestamp, now, check.threshold_s)) {
    d.verdict = Iperf3Verdict::kTimeSkew;
  } else if (password) {
    // Kept until its time leaves the window (saturating: any 64-bit time).
    const int64_t until =
        c->timestamp > INT64_MAX - check.threshold_s ? INT64_MAX : c->timestamp + check.threshold_s;
    d.verdict = !check.replay || check.replay->first_use(token, until, now)
                    ? Iperf3Verdict::kAuthorized
                    : Iperf3Verdict::kReplayed;
  } else {
    bool known = false;
    for (const auto& u : users) known |= u.name == c->username;
    d.verdict = known ? Iperf3Verdict::kWrongPassword : Iperf3Verdict::kUnknownUser;
  }
  return d;
}

}  // namespace flowperf::auth
