#include "session/descriptor_budget.h"

#include <dirent.h>
#include <fmt/format.h>
#include <sys/resource.h>

#include "core/error.h"

namespace flowperf::session {

uint64_t open_descriptors() {
  DIR* d = ::opendir("/proc/self/fd");
  if (!d) return 0;
  uint64_t n = 0;
  while (dirent* e = ::readdir(d))
    if (e->d_name[0] != '.') ++n;
  ::closedir(d);
  return n > 0 ? n - 1 : 0;  // not the descriptor opendir itself holds
}

DescriptorBudget descriptor_budget(const spec::TestSpec& spec, unsigned ends, unsigned threads) {
  DescriptorBudget b;
  b.needed = spec::data_descriptors(spec, threads) * ends;
  rlimit rl{};
  b.limit = ::getrlimit(RLIMIT_NOFILE, &rl) == 0 ? rl.rlim_cur : 0;
  b.in_use = open_descriptors();
  if (b.limit == 0 || rl.rlim_cur == RLIM_INFINITY) b.limit = UINT64_MAX;
  return b;
}

std::string descriptor_problem(const spec::TestSpec& spec, const DescriptorBudget& b, unsigned ends,
                               const std::string& where) {
  std::string s =
      fmt::format("-P {} needs about {} descriptors{}{}; the open-file limit{} is {}", spec.streams,
                  b.needed, where, ends > 1 ? " (both ends run in this process)" : "",
                  where.empty() ? "" : " there", b.limit);
  if (b.in_use > 16) s += fmt::format(" with {} already open", b.in_use);
  s += " (ulimit -n)";
  rlimit rl{};
  if (::getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_max != RLIM_INFINITY &&
      rl.rlim_max <= b.limit)
    s += " — it is already at the hard limit; raise that (limits.conf, systemd LimitNOFILE)";
  if (ends > 1) s += ", or run `flowperf server` as its own process and use -H 127.0.0.1";
  s += ", or use fewer streams";
  return s;
}

void check_descriptors(const spec::TestSpec& spec, unsigned ends, unsigned threads) {
  DescriptorBudget b = descriptor_budget(spec, ends, threads);
  if (!b.fits()) throw usage_error(descriptor_problem(spec, b, ends, ""));
}

}  // namespace flowperf::session
