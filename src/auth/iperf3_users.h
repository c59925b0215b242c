// Who may run iperf3 tests on a server with authentication (iperf3 -s
// --authorized-users-path FILE), and the decision on one test's token.
//
// The file is iperf3 3.12's: one `USERNAME,HASH` line per user, where HASH
// is the lowercase hex SHA-256 of "{USERNAME}PASSWORD" (for mario/rossi:
// `printf '{mario}rossi' | sha256sum`). Lines starting with '#' and empty
// lines are skipped. 3.12 also skips lines it cannot read; this parser
// names them instead, so a typo does not lock a user out unseen.
//
// A token is good when it opens with the server's key (and the padding the
// server was started with), its time is within the skew threshold of the
// server's clock (either way; 10 s unless told), its user's line has its
// password's hash, and (flowperf's addition) this server has not taken the
// same token before: iperf3 checks the first three, in that order, so a
// token seen on the wire could be sent again for the rest of its window.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "auth/handshake.h"  // Bytes
#include "auth/iperf3_rsa.h"

namespace flowperf::auth {

inline constexpr int kIperf3DefaultSkewSeconds = 10;

struct Iperf3User {
  std::string name;
  Bytes hash;  // SHA-256, 32 bytes
};

// SHA-256 of "{username}password", the hash the users file holds.
Bytes iperf3_password_hash(std::string_view username, std::string_view password);

// The users in a file's text; `where` names the file in errors. Throws a
// usage Error naming the line for a line that is not USERNAME,HASH (a name
// of one word without ',' and 64 hex digits), and for a file with no users.
std::vector<Iperf3User> parse_iperf3_users(std::string_view text, const std::string& where);
// The same, read from a file (`option` and the path name it in errors;
// missing, unreadable and over 1 MB are errors too).
std::vector<Iperf3User> load_iperf3_users(const std::string& path, const std::string& option);

// Whether a timestamp is within `threshold_s` seconds of `now` (both Unix
// seconds); exactly the threshold is still within, as in 3.12.
bool within_skew(int64_t timestamp, int64_t now, int threshold_s);

// Whether one of the lines for `username` holds this password's hash. Every
// line is compared, each hash in constant time (CRYPTO_memcmp).
bool iperf3_password_matches(const std::vector<Iperf3User>& users, std::string_view username,
                             std::string_view password);

// The tokens a server has authorized, each kept until its time leaves the
// skew window (after which the clock check refuses it anyway). Keyed by
// the SHA-256 of the token's text; at most `capacity` kept (the one due to
// leave first makes room). Safe to share between sessions' threads.
class Iperf3ReplayCache {
 public:
  explicit Iperf3ReplayCache(size_t capacity = 1 << 16) : capacity_(capacity) {}
  // True the first time a token is offered; it is then kept until
  // `keep_until` (Unix seconds). False for one kept already.
  bool first_use(std::string_view token, int64_t keep_until, int64_t now);
  size_t size() const;

 private:
  size_t capacity_;
  mutable std::mutex mu_;
  std::set<std::string> seen_;
  std::multimap<int64_t, std::string> leaving_;  // keep_until → digest
};

enum class Iperf3Verdict {
  kAuthorized,
  kNoToken,        // the parameters carry no authtoken
  kBadToken,       // not base64, not for this key and padding, or not iperf3's text
  kTimeSkew,       // its time is too far from the server's
  kUnknownUser,    // no line for the name
  kWrongPassword,  // lines for the name, none with this password's hash
  kReplayed,       // a good token this server has taken before
};

struct Iperf3Decision {
  Iperf3Verdict verdict = Iperf3Verdict::kNoToken;
  std::string username;   // as the token gave it ("" without one)
  int64_t timestamp = 0;  // the token's time
  // For the server's log: "authorized user 'mario'", "user 'mario': wrong
  // password", "no token", ...
  std::string describe(int64_t now) const;
};

// How a server checks tokens.
struct Iperf3TokenCheck {
  const RsaKey* private_key = nullptr;
  RsaPadding padding = RsaPadding::kOaep;
  int threshold_s = kIperf3DefaultSkewSeconds;
  Iperf3ReplayCache* replay = nullptr;  // nullptr: no replay check
};

// The decision iperf3's server makes on a test's token, with the clock
// given, and the replay check. A token that does not open costs the same
// work after the decryption as one that does (a password hash is computed
// either way), and every refusal is answered alike by the session.
Iperf3Decision authorize_iperf3(std::string_view token, const Iperf3TokenCheck& check,
                                const std::vector<Iperf3User>& users, int64_t now);

}  // namespace flowperf::auth
