#include "measure/nic_counters.h"

#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>

#include <cstring>
#include <fstream>

namespace flowperf::measure {
namespace {

bool read_u64(const std::string& path, uint64_t* out) {
  std::ifstream f(path);
  unsigned long long v = 0;
  if (!(f >> v)) return false;
  *out = v;
  return true;
}

bool same_address(const sockaddr* a, const net::Address& b) {
  if (a->sa_family == AF_INET && b.family() == AF_INET)
    return std::memcmp(&reinterpret_cast<const sockaddr_in*>(a)->sin_addr,
                       &reinterpret_cast<const sockaddr_in*>(&b.storage)->sin_addr,
                       sizeof(in_addr)) == 0;
  if (a->sa_family == AF_INET6 && b.family() == AF_INET6)
    return std::memcmp(&reinterpret_cast<const sockaddr_in6*>(a)->sin6_addr,
                       &reinterpret_cast<const sockaddr_in6*>(&b.storage)->sin6_addr,
                       sizeof(in6_addr)) == 0;
  return false;
}

}  // namespace

std::optional<std::string> interface_for(const net::Address& local) {
  net::Address addr = local;
  // An IPv4 client on a dual-stack socket shows as ::ffff:a.b.c.d.
  if (addr.family() == AF_INET6) {
    const auto* s6 = reinterpret_cast<const sockaddr_in6*>(&addr.storage);
    if (IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr)) {
      sockaddr_in s4{};
      s4.sin_family = AF_INET;
      std::memcpy(&s4.sin_addr, &s6->sin6_addr.s6_addr[12], 4);
      addr = net::Address{};
      std::memcpy(&addr.storage, &s4, sizeof s4);
      addr.len = sizeof s4;
    }
  }
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return std::nullopt;
  std::optional<std::string> found;
  for (ifaddrs* i = list; i && !found; i = i->ifa_next)
    if (i->ifa_addr && same_address(i->ifa_addr, addr)) found = i->ifa_name;
  ::freeifaddrs(list);
  // 127.0.0.0/8 beyond 127.0.0.1 still lives on lo.
  if (!found && addr.family() == AF_INET &&
      (ntohl(reinterpret_cast<const sockaddr_in*>(&addr.storage)->sin_addr.s_addr) >> 24) == 127)
    found = "lo";
  return found;
}

std::optional<NicCounters> read_nic_counters(const std::string& name, const std::string& sysfs) {
  if (name.empty() || name.find('/') != std::string::npos) return std::nullopt;
  const std::string dir = sysfs + "/" + name + "/statistics/";
  NicCounters c;
  bool ok = read_u64(dir + "rx_packets", &c.rx_packets) &&
            read_u64(dir + "tx_packets", &c.tx_packets) &&
            read_u64(dir + "rx_bytes", &c.rx_bytes) && read_u64(dir + "tx_bytes", &c.tx_bytes);
  if (!ok) return std::nullopt;
  read_u64(dir + "rx_dropped", &c.rx_dropped);
  read_u64(dir + "tx_dropped", &c.tx_dropped);
  read_u64(dir + "rx_errors", &c.rx_errors);
  read_u64(dir + "tx_errors", &c.tx_errors);
  return c;
}

NicUsage nic_between(const std::string& name, const NicCounters& a, const NicCounters& b,
                     double elapsed_s) {
  auto d = [](uint64_t x, uint64_t y) { return y >= x ? y - x : 0; };
  NicUsage u;
  u.name = name;
  u.elapsed_s = elapsed_s;
  u.delta = {d(a.rx_packets, b.rx_packets), d(a.tx_packets, b.tx_packets),
             d(a.rx_bytes, b.rx_bytes),     d(a.tx_bytes, b.tx_bytes),
             d(a.rx_dropped, b.rx_dropped), d(a.tx_dropped, b.tx_dropped),
             d(a.rx_errors, b.rx_errors),   d(a.tx_errors, b.tx_errors)};
  return u;
}

}  // namespace flowperf::measure
