// A filter the kernel runs on a socket's incoming packets (classic BPF,
// SO_ATTACH_FILTER), so that an authenticated test's data sockets take
// packets from its client's address only. UDP has no connection to carry a
// token, and a TCP_CRR connection per transaction carries none either.
#pragma once

#include "net/socket.h"

namespace flowperf::net {

// Lets in only packets whose IP source address is `peer`'s; the port is not
// compared (a NAT may change the data sockets' ports but not the address).
// An IPv4-mapped IPv6 peer matches IPv4 packets from its IPv4 address. On a
// UDP socket the others are dropped before they are queued; on a TCP
// listener their SYNs are. Throws a runtime Error when the kernel refuses.
void accept_only_from(int fd, const Address& peer);

}  // namespace flowperf::net
