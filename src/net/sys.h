// The thin layer over system calls that flowperf uses outside its data path:
// one EINTR retry helper, and whole-buffer read/write with a deadline for the
// control connection. The data path calls send/recv directly (it must handle
// EAGAIN itself and may not block on a deadline).
#pragma once

#include <sys/types.h>

#include <cerrno>
#include <chrono>
#include <cstddef>
#include <string>

namespace flowperf::net::sys {

// Calls f() again while it fails with EINTR.
template <typename F>
auto retry_eintr(F&& f) {
  for (;;) {
    auto r = f();
    if (!(r < 0 && errno == EINTR)) return r;
  }
}

using Clock = std::chrono::steady_clock;

enum class IoStatus { kOk, kClosed, kTimeout, kError };

// Writes all of buf before the deadline. On kError errno says why.
IoStatus write_all(int fd, const void* buf, size_t len, Clock::time_point deadline);
// Reads exactly len bytes before the deadline; kClosed when the peer closed
// first (the number read so far goes to *got when non-null).
IoStatus read_exact(int fd, void* buf, size_t len, Clock::time_point deadline,
                    size_t* got = nullptr);
// Waits until fd is readable (or has an error/hangup) or the deadline passes.
bool wait_readable(int fd, Clock::time_point deadline);

std::string errno_text(int err);

}  // namespace flowperf::net::sys
