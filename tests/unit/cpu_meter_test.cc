// CPU utilization and service demand from recorded /proc/stat text.
#include "measure/cpu_meter.h"

#include <gtest/gtest.h>

namespace flowperf::measure {
namespace {

// Two snapshots 1 s apart on a 2-CPU machine (USER_HZ ticks):
// cpu0 was busy 75 of 100 ticks, cpu1 25 of 100.
constexpr const char* kBefore =
    "cpu  1000 0 500 8000 100 0 50 0 0 0\n"
    "cpu0 600 0 300 3900 50 0 25 0 0 0\n"
    "cpu1 400 0 200 4100 50 0 25 0 0 0\n"
    "intr 12345 0 0\n"
    "ctxt 999\n";
constexpr const char* kAfter =
    "cpu  1060 0 520 8100 110 0 70 0 0 0\n"
    "cpu0 645 0 315 3920 55 0 40 0 0 0\n"
    "cpu1 415 0 205 4180 55 0 30 0 0 0\n"
    "intr 22345 0 0\n";

TEST(CpuMeter, ParsesAllAndPerCpuLines) {
  CpuSnapshot s = parse_proc_stat(kBefore);
  EXPECT_EQ(s.all.user, 1000u);
  EXPECT_EQ(s.all.idle, 8000u);
  EXPECT_EQ(s.all.softirq, 50u);
  ASSERT_EQ(s.per_cpu.size(), 2u);
  EXPECT_EQ(s.per_cpu[1].system, 200u);
}

TEST(CpuMeter, UtilizationSplitAndBusiestCpu) {
  CpuUsage u = cpu_between(parse_proc_stat(kBefore), parse_proc_stat(kAfter), 1.0);
  // All CPUs: 60 user + 20 system + 20 softirq busy; 100 idle + 10 iowait.
  // Total 210 ticks, busy 100.
  EXPECT_NEAR(u.util, 100.0 * 100 / 210, 1e-9);
  EXPECT_NEAR(u.user, 100.0 * 60 / 210, 1e-9);
  EXPECT_NEAR(u.system, 100.0 * 20 / 210, 1e-9);
  EXPECT_NEAR(u.softirq, 100.0 * 20 / 210, 1e-9);
  EXPECT_NEAR(u.iowait, 100.0 * 10 / 210, 1e-9);
  EXPECT_EQ(u.num_cpus, 2u);
  EXPECT_EQ(u.peak_cpu, 0);
  // cpu0: busy 45+15+15 = 75 of 100.
  EXPECT_NEAR(u.peak_util, 75.0, 1e-9);
  EXPECT_EQ(u.method, "S");
}

TEST(CpuMeter, CountersThatGoBackwardsCountAsZero) {
  CpuUsage u = cpu_between(parse_proc_stat(kAfter), parse_proc_stat(kBefore), 1.0);
  EXPECT_EQ(u.util, 0);
  EXPECT_GE(u.peak_util, 0);
}

TEST(CpuMeter, GarbageIsIgnored) {
  CpuSnapshot s = parse_proc_stat("cpu x y z\ncpuQ 1 2 3 4\nnot a cpu line\ncpu 1 2\n");
  EXPECT_EQ(s.all.total(), 0u);
  EXPECT_TRUE(s.per_cpu.empty());
}

TEST(CpuMeter, ServiceDemandIsCpuTimeOverWork) {
  CpuUsage u;
  u.util = 50;  // half of 4 CPUs for 2 s: 4 CPU-seconds = 4e6 us
  u.num_cpus = 4;
  u.elapsed_s = 2;
  // 1 GiB moved: 1,048,576 KB -> 4e6 / 1048576 us/KB.
  EXPECT_NEAR(service_demand_us(u, 1024.0 * 1024 * 1024, 1024), 4e6 / 1048576.0, 1e-12);
  // 200,000 transactions -> 20 us each.
  EXPECT_NEAR(service_demand_us(u, 200000, 1), 20.0, 1e-12);
  EXPECT_EQ(service_demand_us(u, 0, 1), 0);
}

TEST(CpuMeter, LiveSnapshotSeesThisMachine) {
  CpuSnapshot s = take_cpu_snapshot();
  EXPECT_GT(s.all.total(), 0u);
  EXPECT_GE(s.per_cpu.size(), 1u);
}

}  // namespace
}  // namespace flowperf::measure
