#include "cli/daemon.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "core/error.h"

namespace flowperf::cli {

void detach(const char* option) {
  const pid_t pid = ::fork();
  if (pid < 0)
    throw runtime_error(std::string("cannot fork to run in the background (") + option + ")");
  if (pid > 0) {
    std::fflush(nullptr);
    ::_exit(0);
  }
  ::setsid();
  [[maybe_unused]] int ignored = ::chdir("/");  // don't pin the directory we started in
  int null = ::open("/dev/null", O_RDWR);
  if (null >= 0) {
    ::dup2(null, 0);
    ::dup2(null, 1);
    ::dup2(null, 2);
    if (null > 2) ::close(null);
  }
}

}  // namespace flowperf::cli
