#include "auth/keys.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>
#include <vector>

#include "core/error.h"
#include "core/private_file.h"
#include "net/fd.h"

namespace flowperf::auth {
namespace {

struct Line {
  int number;
  Key key;
};

// The file's key lines, after checking who may read it.
std::vector<Line> read_key_lines(const std::string& path, const char* option) {
  net::Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY));
  if (!fd)
    throw usage_error(fmt::format("{} {}: cannot open it: {}", option, path, std::strerror(errno)));
  require_private_file(fd.get(), path, fmt::format("{} {}", option, path));
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0)
    throw usage_error(fmt::format("{} {}: cannot read it: {}", option, path, std::strerror(errno)));
  if (st.st_size > (1 << 20))
    throw usage_error(fmt::format("{} {}: larger than 1 MB; is it a key file?", option, path));
  std::string text(static_cast<size_t>(st.st_size), '\0');
  size_t got = 0;
  while (got < text.size()) {
    ssize_t n = ::read(fd.get(), text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  text.resize(got);

  std::vector<Line> lines;
  std::istringstream in(text);
  std::string raw;
  for (int number = 1; std::getline(in, raw); ++number) {
    if (!raw.empty() && raw.back() == '\r') raw.pop_back();
    std::istringstream words(raw);
    std::string name, secret, extra;
    words >> name;
    if (name.empty() || name[0] == '#') continue;
    words >> secret >> extra;
    const std::string where = fmt::format("{} {}, line {}", option, path, number);
    if (secret.empty() || !extra.empty())
      throw usage_error(where + ": expected two words, NAME SECRET");
    // The errors never show the line's words: a line written SECRET NAME
    // would show its secret.
    if (!valid_key_name(name))
      throw usage_error(fmt::format(
          "{}: the name (the first word) is not 1-64 characters of letters, digits, '.', '_', "
          "'@' or '-'",
          where));
    if (secret.size() < kMinSecretChars)
      throw usage_error(fmt::format(
          "{}: the secret (the second word) is {} characters; give at least {} (`openssl rand "
          "-hex 32` makes one), after the name",
          where, secret.size(), kMinSecretChars));
    lines.push_back({number, {name, secret}});
  }
  if (lines.empty())
    throw usage_error(
        fmt::format("{} {}: no keys in it (one NAME SECRET line each)", option, path));
  return lines;
}

}  // namespace

bool valid_key_name(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '@' || c == '-';
    if (!ok) return false;
  }
  return true;
}

std::map<std::string, std::string> load_server_keys(const std::string& path) {
  std::map<std::string, std::string> keys;
  std::map<std::string, int> line_of;
  for (auto& l : read_key_lines(path, "--keys")) {
    if (auto [at, fresh] = line_of.emplace(l.key.name, l.number); !fresh)
      throw usage_error(fmt::format("--keys {}, line {}: the name of line {} is given again", path,
                                    l.number, at->second));
    keys.emplace(l.key.name, l.key.secret);
  }
  return keys;
}

Key load_client_key(const std::string& path) {
  auto lines = read_key_lines(path, "--key");
  if (lines.size() > 1)
    throw usage_error(fmt::format(
        "--key {}: {} keys in it, line {} and line {}; a client's file holds its one key", path,
        lines.size(), lines[0].number, lines[1].number));
  return lines[0].key;
}

}  // namespace flowperf::auth
