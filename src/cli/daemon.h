// Running a server in the background, as netserver (by default) and
// `iperf3 -s -D` do.
#pragma once

namespace flowperf::cli {

// Forks; the parent leaves at once (with exit status 0), the child goes on
// in its own session, in "/", with its standard streams on /dev/null.
// The parent leaves without running destructors: a Server's wake-up
// eventfd is shared with the child since the fork, and the parent's
// destructor would leave it readable for the child's accept loop, which
// would then spin on every poll. Throws a runtime Error when it cannot fork.
void detach(const char* option);

}  // namespace flowperf::cli
