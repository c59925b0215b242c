// Two network namespaces joined by a veth pair, for tests that compare
// flowperf's numbers with a link whose truth is known: a rate set with tbf,
// a loss rate set with nftables, an MTU, and the kernel's own counters
// (tbf's bytes and drops, nftables' rule counters, /proc/net/snmp) read
// before and after a test.
//
// Everything is done with iproute2's and nftables' own commands, run through
// the e2e Process helper, so the test process itself never changes its
// namespace. Deleting a namespace removes its end of the veth, its qdiscs and
// its nftables tables with it, so NetnsPair's destructor is the whole cleanup.
#pragma once

#include <signal.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "support/process.h"

namespace flowperf::testing::netns {

using namespace std::chrono_literals;

// A system tool's absolute path (Process runs argv[0] with execv), or "".
inline std::string tool(const std::string& name) {
  for (const char* dir : {"/usr/sbin/", "/sbin/", "/usr/bin/", "/bin/"}) {
    std::string path = dir + name;
    if (::access(path.c_str(), X_OK) == 0) return path;
  }
  return "";
}

struct Cmd {
  int code = -1;
  std::string out, err;
  bool ok() const { return code == 0; }
  std::string what() const { return "exit " + std::to_string(code) + ": " + err + out; }
};

inline Cmd run(std::vector<std::string> argv, std::chrono::milliseconds limit = 20s) {
  Process p(std::move(argv));
  Outcome o = p.wait(limit);
  return {o.timed_out ? -1 : o.exit_code, std::move(o.out), std::move(o.err)};
}

inline std::string join(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) s += (s.empty() ? "" : " ") + a;
  return s;
}

// The names this suite gives its namespaces: the prefix, a side and the pid
// of the test process that made them.
constexpr const char* kPrefix = "flowperf-ns";

class NetnsPair {
 public:
  // Each namespace's end of the veth has the same name in both (they are
  // different namespaces), so the tests can say "the veth" on either side.
  static constexpr const char* kDev = "veth0";

  NetnsPair()
      : a(std::string(kPrefix) + "a-" + std::to_string(::getpid())),
        b(std::string(kPrefix) + "b-" + std::to_string(::getpid())),
        ip_(tool("ip")) {
    if (ip_.empty()) {
      skip_reason = "iproute2's `ip` is not installed";
      return;
    }
    remove_stale();
    // Only this step decides whether the machine can do it at all (root,
    // CAP_SYS_ADMIN, a kernel with network namespaces): its failure skips.
    for (const auto& ns : {a, b}) {
      Cmd c = run({ip_, "netns", "add", ns});
      if (!c.ok()) {
        std::string why = c.err;
        while (!why.empty() && std::isspace(static_cast<unsigned char>(why.back()))) why.pop_back();
        skip_reason = "cannot create network namespace " + ns + " (" + why + ")";
        return;
      }
      made_.push_back(ns);
    }
    step({ip_, "link", "add", kDev, "netns", a, "type", "veth", "peer", "name", kDev, "netns", b});
    step({ip_, "-n", a, "addr", "add", "10.77.0.1/24", "dev", kDev});
    step({ip_, "-n", b, "addr", "add", "10.77.0.2/24", "dev", kDev});
    // nodad: no duplicate address detection, so the address is usable at
    // once instead of "tentative" for a second or two.
    step({ip_, "-n", a, "-6", "addr", "add", "fd77::1/64", "dev", kDev, "nodad"});
    step({ip_, "-n", b, "-6", "addr", "add", "fd77::2/64", "dev", kDev, "nodad"});
    for (const auto& ns : {a, b}) {
      step({ip_, "-n", ns, "link", "set", "lo", "up"});
      step({ip_, "-n", ns, "link", "set", kDev, "up"});
    }
  }

  ~NetnsPair() {
    for (const auto& ns : made_) remove(ns);
  }
  NetnsPair(const NetnsPair&) = delete;
  NetnsPair& operator=(const NetnsPair&) = delete;

  // Empty when both namespaces exist; otherwise why they could not be made.
  std::string skip_reason;
  // Empty when every setup step after that worked; otherwise the failures.
  std::string error;
  const std::string a, b;

  const std::string& ip() const { return ip_; }

  // argv run inside namespace ns.
  std::vector<std::string> in(const std::string& ns, std::vector<std::string> argv) const {
    std::vector<std::string> full = {ip_, "netns", "exec", ns};
    full.insert(full.end(), argv.begin(), argv.end());
    return full;
  }
  Cmd exec(const std::string& ns, std::vector<std::string> argv) const {
    return run(in(ns, std::move(argv)));
  }

 private:
  void step(std::vector<std::string> argv) {
    Cmd c = run(argv);
    if (!c.ok()) error += "`" + join(argv) + "` failed, " + c.what() + "\n";
  }

  // Kills what still runs inside a namespace (a server left by a test
  // process that was killed) and deletes it.
  void remove(const std::string& ns) const {
    Cmd pids = run({ip_, "netns", "pids", ns});
    std::istringstream in(pids.out);
    for (pid_t pid; in >> pid;)
      if (pid > 0 && pid != ::getpid()) ::kill(pid, SIGKILL);
    run({ip_, "netns", "del", ns});
  }

  // Namespaces of this suite whose test process is gone: a run killed by a
  // time limit never reached its destructors. Also this pid's own names, in
  // case an earlier process with the same pid left them.
  void remove_stale() const {
    Cmd list = run({ip_, "netns", "list"});
    std::istringstream lines(list.out);
    for (std::string line; std::getline(lines, line);) {
      std::string name = line.substr(0, line.find(' '));
      if (name.rfind(kPrefix, 0) != 0) continue;
      auto dash = name.rfind('-');
      if (dash == std::string::npos) continue;
      pid_t pid = static_cast<pid_t>(std::atol(name.c_str() + dash + 1));
      bool gone = pid <= 0 || (::kill(pid, 0) != 0 && errno == ESRCH);
      if (gone || pid == ::getpid()) remove(name);
    }
  }

  std::string ip_;
  std::vector<std::string> made_;
};

// ---- the kernel's counters ----

// /proc/net/snmp and /proc/net/snmp6 of a namespace as "Udp.InDatagrams",
// "Udp6InDatagrams", "Ip6FragCreates", ... -> value.
inline std::map<std::string, uint64_t> snmp(const NetnsPair& net, const std::string& ns) {
  std::map<std::string, uint64_t> m;
  Cmd v4 = net.exec(ns, {tool("cat"), "/proc/net/snmp"});
  std::istringstream lines(v4.out);
  // Pairs of lines: "Udp: Name1 Name2 ..." then "Udp: 1 2 ...".
  for (std::string names, values; std::getline(lines, names) && std::getline(lines, values);) {
    std::istringstream n(names), v(values);
    std::string proto, name, ignored;
    n >> proto;
    v >> ignored;
    proto.pop_back();  // the ':'
    uint64_t value;
    while (n >> name && v >> value) m[proto + "." + name] = value;
  }
  Cmd v6 = net.exec(ns, {tool("cat"), "/proc/net/snmp6"});
  std::istringstream six(v6.out);
  std::string name;
  for (uint64_t value; six >> name >> value;) m[name] = value;
  return m;
}

// After minus before, per key.
inline std::map<std::string, uint64_t> delta(const std::map<std::string, uint64_t>& before,
                                             const std::map<std::string, uint64_t>& after) {
  std::map<std::string, uint64_t> d;
  for (const auto& [k, v] : after) {
    auto it = before.find(k);
    d[k] = v - (it == before.end() ? 0 : it->second);
  }
  return d;
}

struct QdiscStats {
  uint64_t bytes = 0, packets = 0, drops = 0;
};

// The root qdisc's counters on the namespace's veth.
inline QdiscStats qdisc_stats(const std::string& ns) {
  Cmd c = run({tool("tc"), "-n", ns, "-s", "-j", "qdisc", "show", "dev", NetnsPair::kDev});
  QdiscStats s;
  auto j = nlohmann::json::parse(c.out, nullptr, false);
  if (!j.is_array()) return s;
  for (const auto& q : j)
    if (q.value("root", false)) {
      s.bytes = q.value("bytes", uint64_t{0});
      s.packets = q.value("packets", uint64_t{0});
      s.drops = q.value("drops", uint64_t{0});
    }
  return s;
}

// The table this suite puts its drop rules in.
constexpr const char* kNftTable = "flowperf_netns";

// Packets dropped by the counted rules of our table in namespace ns.
inline uint64_t nft_dropped(const NetnsPair& net, const std::string& ns) {
  Cmd c = net.exec(ns, {tool("nft"), "-j", "list", "table", "inet", kNftTable});
  auto j = nlohmann::json::parse(c.out, nullptr, false);
  uint64_t packets = 0;
  if (!j.is_object() || !j.contains("nftables")) return 0;
  for (const auto& item : j["nftables"]) {
    if (!item.contains("rule")) continue;
    for (const auto& e : item["rule"]["expr"])
      if (e.contains("counter")) packets += e["counter"].value("packets", uint64_t{0});
  }
  return packets;
}

}  // namespace flowperf::testing::netns
