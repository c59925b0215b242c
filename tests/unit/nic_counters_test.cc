// Interface counters: reading a statistics directory, finding the interface
// of an address, and deltas.
#include "measure/nic_counters.h"

#include <gtest/gtest.h>
#include <sys/socket.h>

#include <filesystem>
#include <fstream>

namespace flowperf::measure {
namespace {

namespace fs = std::filesystem;

TEST(NicCounters, ReadsAStatisticsDirectory) {
  fs::path root = fs::temp_directory_path() / ("nic_test_" + std::to_string(::getpid()));
  fs::create_directories(root / "veth0" / "statistics");
  auto put = [&](const char* name, uint64_t v) {
    std::ofstream(root / "veth0" / "statistics" / name) << v << "\n";
  };
  put("rx_packets", 10);
  put("tx_packets", 20);
  put("rx_bytes", 1000);
  put("tx_bytes", 2000);
  put("rx_dropped", 1);
  put("tx_dropped", 2);
  put("rx_errors", 3);
  put("tx_errors", 4);
  auto c = read_nic_counters("veth0", root.string());
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->rx_packets, 10u);
  EXPECT_EQ(c->tx_bytes, 2000u);
  EXPECT_EQ(c->tx_errors, 4u);
  EXPECT_FALSE(read_nic_counters("nosuch", root.string()).has_value());
  EXPECT_FALSE(read_nic_counters("../veth0", root.string()).has_value());
  fs::remove_all(root);
}

TEST(NicCounters, DeltasAndRates) {
  NicCounters a{100, 200, 1000, 2000, 0, 0, 0, 0};
  NicCounters b{300, 600, 5000, 10000, 1, 0, 0, 2};
  NicUsage u = nic_between("lo", a, b, 2.0);
  EXPECT_EQ(u.delta.rx_packets, 200u);
  EXPECT_EQ(u.delta.tx_bytes, 8000u);
  EXPECT_EQ(u.delta.rx_dropped, 1u);
  EXPECT_DOUBLE_EQ(u.per_s(u.delta.tx_packets), 200.0);
  // A counter that went backwards (interface reset) counts as zero.
  NicUsage back = nic_between("lo", b, a, 1.0);
  EXPECT_EQ(back.delta.rx_packets, 0u);
}

TEST(NicCounters, LoopbackAddressesAreOnLo) {
  for (const char* host : {"127.0.0.1", "127.0.0.2", "::1", "::ffff:127.0.0.1"}) {
    auto a = net::resolve(host, 0, IpFamily::kAny, SOCK_STREAM).front();
    auto name = interface_for(a);
    ASSERT_TRUE(name.has_value()) << host;
    EXPECT_EQ(*name, "lo") << host;
    EXPECT_TRUE(read_nic_counters(*name).has_value());
  }
}

}  // namespace
}  // namespace flowperf::measure
