// Files that hold secrets (key files of every kind: flowperf's --keys and
// --key, TLS private keys, iperf3's RSA private key): refused when anyone
// but their owner may read or write them. A secret others can read
// authenticates nobody, and a key others can write is theirs to replace.
#pragma once

#include <string>

namespace flowperf {

// Throws a usage Error naming `what` (the option and the path, as the
// message should show them) and the chmod that mends it when the file's
// mode gives group or others any access; also when it is not a regular
// file. `fd` is the file, opened; with -1 the path is looked at instead.
void require_private_file(int fd, const std::string& path, const std::string& what);

}  // namespace flowperf
