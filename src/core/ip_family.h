// The address family a test, a connection or a listener asks for: the one
// type every layer uses (-4/-6 on each command line, the spec, the resolver).
#pragma once

namespace flowperf {

enum class IpFamily { kAny, kV4, kV6 };

}  // namespace flowperf
