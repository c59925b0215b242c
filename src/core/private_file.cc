#include "core/private_file.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "core/error.h"

namespace flowperf {

void require_private_file(int fd, const std::string& path, const std::string& what) {
  struct stat st {};
  const int r = fd >= 0 ? ::fstat(fd, &st) : ::stat(path.c_str(), &st);
  if (r != 0) throw usage_error(fmt::format("{}: cannot open it: {}", what, std::strerror(errno)));
  if (!S_ISREG(st.st_mode)) throw usage_error(fmt::format("{}: not a regular file", what));
  if ((st.st_mode & 077) != 0)
    throw usage_error(fmt::format(
        "{}: the file may be read or written by others (mode {:04o}); a secret others can read "
        "authenticates anyone who reads it — run `chmod 600 {}`",
        what, st.st_mode & 07777, path));
}

}  // namespace flowperf
