#include "core/host_info.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>
#include <string>

namespace flowperf::core {

HostInfo local_host_info() {
  HostInfo h;
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) == 0) h.hostname = name;
  utsname u{};
  if (::uname(&u) == 0) h.os = std::string(u.sysname) + " " + u.release;
  long n = ::sysconf(_SC_NPROCESSORS_ONLN);
  h.cores = n > 0 ? static_cast<unsigned>(n) : 1;
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, line.find_last_not_of(" \t", colon - 1) + 1);
    std::string value = colon + 2 <= line.size() ? line.substr(colon + 2) : "";
    if (key == "model name" && h.cpu_model.empty()) h.cpu_model = value;
    if (key == "cpu MHz" && h.cpu_mhz == 0) {
      try {
        h.cpu_mhz = std::stod(value);
      } catch (...) {
      }
    }
  }
  return h;
}

}  // namespace flowperf::core
