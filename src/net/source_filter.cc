#include "net/source_filter.h"

#include <arpa/inet.h>
#include <linux/filter.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <vector>

#include "core/error.h"
#include "net/sys.h"

namespace flowperf::net {

void accept_only_from(int fd, const Address& peer) {
  // The source address as the 32-bit words a BPF load gives (big-endian
  // loads, host order values), where it sits in the IP header, and which IP
  // version the packet must be.
  std::array<uint32_t, 4> words{};
  size_t nwords = 0;
  uint32_t version = 0, offset = 0;
  if (peer.family() == AF_INET) {
    const auto& in = reinterpret_cast<const sockaddr_in&>(peer.storage);
    words[nwords++] = ntohl(in.sin_addr.s_addr);
    version = 0x40, offset = 12;
  } else if (peer.family() == AF_INET6) {
    const auto& in6 = reinterpret_cast<const sockaddr_in6&>(peer.storage);
    uint32_t raw[4];
    std::memcpy(raw, in6.sin6_addr.s6_addr, sizeof raw);
    if (IN6_IS_ADDR_V4MAPPED(&in6.sin6_addr)) {
      words[nwords++] = ntohl(raw[3]);
      version = 0x40, offset = 12;
    } else {
      for (uint32_t w : raw) words[nwords++] = ntohl(w);
      version = 0x60, offset = 8;
    }
  } else {
    throw runtime_error("cannot filter packets by a source address of family " +
                        std::to_string(peer.family()));
  }

  std::vector<sock_filter> prog;
  std::vector<size_t> tests;  // each drops the packet when it fails
  auto must_equal = [&](uint32_t k) {
    tests.push_back(prog.size());
    prog.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, k, 0, 0));
  };
  auto load = [&](uint16_t size, uint32_t at) {
    prog.push_back(BPF_STMT(BPF_LD | size | BPF_ABS, static_cast<uint32_t>(SKF_NET_OFF) + at));
  };
  load(BPF_B, 0);  // version and header length
  prog.push_back(BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xf0));
  must_equal(version);
  for (size_t i = 0; i < nwords; ++i) {
    load(BPF_W, offset + 4 * static_cast<uint32_t>(i));
    must_equal(words[i]);
  }
  prog.push_back(BPF_STMT(BPF_RET | BPF_K, 0xffffffffu));  // the whole packet
  const size_t drop = prog.size();
  prog.push_back(BPF_STMT(BPF_RET | BPF_K, 0));
  for (size_t t : tests) prog[t].jf = static_cast<uint8_t>(drop - t - 1);

  const sock_fprog fprog{static_cast<unsigned short>(prog.size()), prog.data()};
  if (::setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &fprog, sizeof fprog) < 0)
    throw runtime_error("cannot limit a data socket to " + peer.host() +
                        " (SO_ATTACH_FILTER): " + sys::errno_text(errno));
}

}  // namespace flowperf::net
