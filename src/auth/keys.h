// Key files: the shared secrets of flowperf's authentication. A server's
// file (--keys) has one `NAME SECRET` line per client; a client's (--key)
// has the one line for itself. Blank lines and lines starting with # are
// skipped. A file that anyone but its owner may read or write is refused:
// a secret others can read authenticates nobody.
#pragma once

#include <map>
#include <string>

namespace flowperf::auth {

struct Key {
  std::string name;
  std::string secret;
};

// Shortest secret taken: 16 characters (`openssl rand -hex 32` makes a good one).
inline constexpr size_t kMinSecretChars = 16;

// Name → secret. Throws a usage Error naming the file (and line) and what
// to do: missing or unreadable, readable by others, a malformed line, a short
// secret, a name given twice, no keys at all.
std::map<std::string, std::string> load_server_keys(const std::string& path);
// The one key in a client's file; the same errors, and more than one key.
Key load_client_key(const std::string& path);

// A name as a key file may give it: 1-64 of A-Z a-z 0-9 . _ @ -
bool valid_key_name(const std::string& name);

}  // namespace flowperf::auth
