// CPU utilization over exactly the measured interval, the way netperf's
// /proc/stat method ("S") computes it: system-wide, all CPUs, from the
// kernel's tick counters, split by kind, plus the busiest CPU and this
// process's own CPU time (getrusage).
//
// Utilization = 1 − (idle + iowait ticks) / all ticks, over the interval.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace flowperf::measure {

// One CPU's counters (ticks) from a /proc/stat "cpu" line.
struct CpuTicks {
  uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  uint64_t total() const { return user + nice + system + idle + iowait + irq + softirq + steal; }
};

struct CpuSnapshot {
  CpuTicks all;
  std::vector<CpuTicks> per_cpu;
  double process_user_s = 0, process_system_s = 0;
};

struct CpuUsage {
  double util = 0;                                                // percent of all CPUs, 0-100
  double user = 0, system = 0, iowait = 0, irq = 0, softirq = 0;  // percent, same base
  int peak_cpu = -1;                                              // the busiest CPU's id
  double peak_util = 0;                                           // its utilization, percent
  unsigned num_cpus = 0;
  double process_user_s = 0, process_system_s = 0;  // this process over the interval
  double elapsed_s = 0;
  std::string method = "S";  // netperf's letter for /proc/stat
};

// Parses /proc/stat text. Lines other than cpu lines are ignored.
CpuSnapshot parse_proc_stat(std::string_view text);
// Reads /proc/stat and getrusage now.
CpuSnapshot take_cpu_snapshot();
// What happened between two snapshots taken elapsed_s apart.
CpuUsage cpu_between(const CpuSnapshot& a, const CpuSnapshot& b, double elapsed_s);

// netperf's service demand: CPU microseconds per unit of work, where the
// CPU time is utilization × CPUs × elapsed. unit_divisor turns work into
// units (1024 for "per KB" of bytes, 1 for "per transaction"). 0 when
// nothing was done.
double service_demand_us(const CpuUsage& cpu, double work, double unit_divisor);

}  // namespace flowperf::measure
