#include "measure/cpu_meter.h"

#include <sys/resource.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>

namespace flowperf::measure {
namespace {

bool parse_ticks(std::string_view rest, CpuTicks* t) {
  uint64_t v[8] = {};
  size_t n = 0;
  const char* p = rest.data();
  const char* end = rest.data() + rest.size();
  while (n < 8 && p < end) {
    while (p < end && *p == ' ') ++p;
    if (p >= end) break;
    auto r = std::from_chars(p, end, v[n]);
    if (r.ec != std::errc()) return false;
    p = r.ptr;
    ++n;
  }
  if (n < 4) return false;
  *t = {v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]};
  return true;
}

double pct(uint64_t part, uint64_t whole) {
  return whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0;
}

CpuTicks minus(const CpuTicks& b, const CpuTicks& a) {
  auto d = [](uint64_t x, uint64_t y) { return x >= y ? x - y : 0; };
  return {d(b.user, a.user),     d(b.nice, a.nice), d(b.system, a.system),   d(b.idle, a.idle),
          d(b.iowait, a.iowait), d(b.irq, a.irq),   d(b.softirq, a.softirq), d(b.steal, a.steal)};
}

double busy_pct(const CpuTicks& d) { return pct(d.total() - d.idle - d.iowait, d.total()); }

}  // namespace

CpuSnapshot parse_proc_stat(std::string_view text) {
  CpuSnapshot s;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? text.npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    if (line.substr(0, 3) != "cpu") continue;
    size_t sp = line.find(' ');
    if (sp == std::string_view::npos) continue;
    std::string_view name = line.substr(0, sp);
    CpuTicks t;
    if (!parse_ticks(line.substr(sp), &t)) continue;
    if (name == "cpu") {
      s.all = t;
    } else {
      unsigned id = 0;
      auto r = std::from_chars(name.data() + 3, name.data() + name.size(), id);
      if (r.ec != std::errc() || id > 65535) continue;
      if (s.per_cpu.size() <= id) s.per_cpu.resize(id + 1);
      s.per_cpu[id] = t;
    }
  }
  return s;
}

CpuSnapshot take_cpu_snapshot() {
  std::ifstream f("/proc/stat");
  std::stringstream ss;
  ss << f.rdbuf();
  CpuSnapshot s = parse_proc_stat(ss.str());
  rusage ru{};
  if (::getrusage(RUSAGE_SELF, &ru) == 0) {
    s.process_user_s = static_cast<double>(ru.ru_utime.tv_sec) + ru.ru_utime.tv_usec / 1e6;
    s.process_system_s = static_cast<double>(ru.ru_stime.tv_sec) + ru.ru_stime.tv_usec / 1e6;
  }
  return s;
}

CpuUsage cpu_between(const CpuSnapshot& a, const CpuSnapshot& b, double elapsed_s) {
  CpuUsage u;
  // The whole is the sum of the CPUs' own lines, read in the same pass: the
  // kernel works out the "cpu" line and each "cpuN" line at slightly
  // different moments and rounds each to 1/USER_HZ, so over a short test
  // the two may disagree by a tick, enough to put the busiest CPU below the
  // average. Without per-CPU lines, the "cpu" line.
  u.num_cpus = static_cast<unsigned>(std::min(a.per_cpu.size(), b.per_cpu.size()));
  CpuTicks d = u.num_cpus ? CpuTicks{} : minus(b.all, a.all);
  for (unsigned i = 0; i < u.num_cpus; ++i) {
    const CpuTicks c = minus(b.per_cpu[i], a.per_cpu[i]);
    d.user += c.user;
    d.nice += c.nice;
    d.system += c.system;
    d.idle += c.idle;
    d.iowait += c.iowait;
    d.irq += c.irq;
    d.softirq += c.softirq;
    d.steal += c.steal;
  }
  const uint64_t total = d.total();
  u.util = busy_pct(d);
  u.user = pct(d.user + d.nice, total);
  u.system = pct(d.system, total);
  u.iowait = pct(d.iowait, total);
  u.irq = pct(d.irq, total);
  u.softirq = pct(d.softirq, total);
  for (unsigned i = 0; i < u.num_cpus; ++i) {
    double busy = busy_pct(minus(b.per_cpu[i], a.per_cpu[i]));
    if (u.peak_cpu < 0 || busy > u.peak_util) {
      u.peak_cpu = static_cast<int>(i);
      u.peak_util = busy;
    }
  }
  u.process_user_s = std::max(0.0, b.process_user_s - a.process_user_s);
  u.process_system_s = std::max(0.0, b.process_system_s - a.process_system_s);
  u.elapsed_s = elapsed_s;
  return u;
}

double service_demand_us(const CpuUsage& cpu, double work, double unit_divisor) {
  if (work <= 0 || unit_divisor <= 0) return 0;
  double cpu_us = cpu.util / 100.0 * cpu.num_cpus * cpu.elapsed_s * 1e6;
  return cpu_us / (work / unit_divisor);
}

}  // namespace flowperf::measure
