// The netserver personality: listens like netperf 2.7's netserver (port
// 12865, -p, -L name[,family], -4/-6), prints its start-up line, detaches
// unless -D, and serves tests with session::Server, which answers flowperf's
// control protocol and netperf's on the same port.
#include <fcntl.h>
#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <string>
#include <string_view>
#include <thread>

#include "cli/daemon.h"
#include "cli/exit_status.h"
#include "cli/personalities.h"
#include "cli/signals.h"
#include "core/error.h"
#include "core/version.h"
#include "proto/netperf_wire.h"
#include "session/server.h"

namespace flowperf::cli {
namespace {

constexpr const char* kNetperfVersion = "2.7.1";

struct NetserverArgs {
  bool help = false, version = false;
  bool foreground = false;  // -D
  int debug = 0;            // -d
  std::string host;         // -L name
  std::string family_word;  // -L ,family / -4 / -6, as netserver names it
  IpFamily family = IpFamily::kAny;
  std::string port_text = "12865";
  uint16_t port = 12865;
  std::string passphrase;  // -Z
};

const char* kUsage = R"(
Usage: netserver [options]

Options:
    -h                This text
    -D                Stay in the foreground (netserver detaches by default)
    -d                More debugging output: log each test on stderr
    -f                Serve tests one after another (accepted; flowperf serves
                      each connection on its own thread)
    -L name,family    Listen on this address, and only for this family
    -N                No debugging output
    -p portnum        Listen on this port (default 12865; 0 picks a free one)
    -4                IPv4 only
    -6                IPv6 only
    -v verbosity      Verbosity level (accepted)
    -V                Version, then exit
    -Z passphrase     Expect passphrase as the first thing received
)";

IpFamily family_of(std::string_view word, std::string* name) {
  std::string w(word);
  for (auto& ch : w) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (w.find('6') != std::string::npos) {
    *name = "AF_INET6";
    return IpFamily::kV6;
  }
  if (w.find("inet") != std::string::npos || w.find('4') != std::string::npos) {
    *name = "AF_INET";
    return IpFamily::kV4;
  }
  if (w.find("unspec") != std::string::npos || w.find('0') != std::string::npos) {
    *name = "AF_UNSPEC";
    return IpFamily::kAny;
  }
  throw usage_error("-L ," + std::string(word) +
                    ": unknown address family (use inet, inet6, 4, 6 or unspec)");
}

NetserverArgs parse(int argc, char** argv) {
  NetserverArgs a;
  a.family_word = "AF_UNSPEC";
  const std::string_view with_value = "LnpvZ", flags = "DdfhNV46";
  for (int i = 1; i < argc; ++i) {
    std::string_view word = argv[i];
    if (word == "--") break;
    if (word.size() < 2 || word[0] != '-') continue;  // getopt skips non-options
    for (size_t j = 1; j < word.size(); ++j) {
      const char c = word[j];
      std::string value;
      if (with_value.find(c) != std::string_view::npos) {
        if (j + 1 < word.size())
          value = std::string(word.substr(j + 1));
        else if (i + 1 < argc)
          value = argv[++i];
        else
          throw usage_error(std::string("-") + c + ": this option needs a value");
      } else if (flags.find(c) == std::string_view::npos) {
        throw usage_error(std::string("-") + c +
                          ": not a netserver option; run `netserver -h` for the options");
      }
      switch (c) {
        case 'h':
          a.help = true;
          return a;
        case 'V':
          a.version = true;
          return a;
        case 'D':
          a.foreground = true;
          break;
        case 'd':
          ++a.debug;
          break;
        case 'N':
          a.debug = 0;
          break;
        case 'p': {
          unsigned v = 0;
          auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
          if (ec != std::errc() || ptr != value.data() + value.size() || v > 65535)
            throw usage_error("-p " + value + ": a port number is 0 to 65535");
          a.port = static_cast<uint16_t>(v);
          a.port_text = value;
          break;
        }
        case 'L': {
          auto comma = value.find(',');
          std::string name = value.substr(0, comma);
          if (!name.empty()) a.host = name;
          if (comma != std::string::npos && comma + 1 < value.size())
            a.family = family_of(value.substr(comma + 1), &a.family_word);
          break;
        }
        case '4':
          a.family = IpFamily::kV4;
          a.family_word = "AF_INET";
          break;
        case '6':
          a.family = IpFamily::kV6;
          a.family_word = "AF_INET6";
          break;
        case 'Z':
          a.passphrase = value;
          break;
        case 'n':
        case 'v':
          break;  // CPU count and verbosity: nothing here depends on them
        default:
          break;  // -f
      }
      if (with_value.find(c) != std::string_view::npos) break;
    }
  }
  return a;
}

int run(const NetserverArgs& a) {
  session::ServerConfig config;
  config.bind_host = a.host;
  config.family = a.family;
  config.port = a.port;
  config.max_tests = 10000;  // netserver sets no limit; this one only guards descriptors
  config.log = a.debug > 0 ? stderr : nullptr;
  // netserver keeps what fits in one message
  config.netperf_passphrase = a.passphrase.substr(0, proto::netperf::kDataWords * 4 - 1);

  // 1. Bind first, so a busy port is reported before we detach.
  block_termination_signals();
  session::Server server(config);
  const std::string shown_host = a.host.empty() ? "IN(6)ADDR_ANY" : a.host;
  try {
    server.bind();
  } catch (const Error& e) {
    std::fprintf(stderr, "Unable to start netserver with  '%s' port '%s' and family %s\n",
                 shown_host.c_str(), a.port_text.c_str(), a.family_word.c_str());
    std::fprintf(stderr, "netserver: %s\n", e.what());
    return static_cast<int>(ExitCode::kRuntime);
  }
  // With -p 0 the port is the one the system chose, so a caller can use it.
  const std::string port = a.port == 0 ? std::to_string(server.port()) : a.port_text;
  std::printf("Starting netserver with host '%s' port '%s' and family %s\n", shown_host.c_str(),
              port.c_str(), a.family_word.c_str());
  std::fflush(stdout);

  // 2. Detach like netserver: the parent returns, the child serves on.
  if (!a.foreground) {
    detach("use -D to stay in the foreground");
  }

  // 3. Serve until SIGINT or SIGTERM.
  std::thread signals([&server] {
    wait_for_termination();
    server.request_stop();
  });
  signals.detach();
  server.serve();
  server.stop();
  return 0;
}

}  // namespace

int netserver_main(int argc, char** argv) {
  try {
    NetserverArgs a = parse(argc, argv);
    if (a.help) {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (a.version) {
      std::printf("Netperf version %s (flowperf %s)\n", kNetperfVersion, kVersion);
      return 0;
    }
    return run(a);
  } catch (const Error& e) {
    std::fprintf(stderr, "netserver: %s\n", e.what());
    return exit_status(Tool::kNetserver, e);  // 1, a bad option included, as netserver
  }
}

}  // namespace flowperf::cli
