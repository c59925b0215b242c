// The data path's system calls, made without libc's cancellation-point
// wrappers. In a process with more than one thread, glibc brackets every
// send, recv, epoll_wait and the like with an enable and a disable of
// asynchronous thread cancellation (two atomic read-modify-writes per call).
// flowperf never cancels a thread, and in TCP_RR those brackets were a fifth
// of its user-space CPU time (perf), so the hot loops call the kernel
// directly: an inline `syscall` instruction on x86-64, syscall(2) elsewhere.
// Each returns what the libc call would: -1 with errno set on failure.
#pragma once

#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>
#include <type_traits>

namespace flowperf::net::data {

// One system call. On x86-64 the `syscall` instruction itself, inline (the
// calling convention puts the arguments where the kernel wants them, so a
// send or recv costs a few register moves); elsewhere libc's syscall(2).
#if defined(__x86_64__)
inline long call6(long nr, long a, long b, long c, long d, long e, long f) noexcept {
  long ret;
  register long r10 __asm__("r10") = d;
  register long r8 __asm__("r8") = e;
  register long r9 __asm__("r9") = f;
  __asm__ volatile("syscall"
                   : "=a"(ret)
                   : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                   : "rcx", "r11", "memory");
  if (static_cast<unsigned long>(ret) > static_cast<unsigned long>(-4096L)) {
    errno = static_cast<int>(-ret);
    return -1;
  }
  return ret;
}
#else
inline long call6(long nr, long a, long b, long c, long d, long e, long f) noexcept {
  return ::syscall(nr, a, b, c, d, e, f);
}
#endif

template <typename T>
inline long arg(T v) noexcept {
  if constexpr (std::is_null_pointer_v<T>)
    return 0;
  else if constexpr (std::is_pointer_v<T>)
    return reinterpret_cast<long>(v);
  else
    return static_cast<long>(v);
}

template <typename... Args>
inline long call(long nr, Args... args) noexcept {
  static_assert(sizeof...(Args) <= 6);
  long v[6] = {arg(args)...};
  return call6(nr, v[0], v[1], v[2], v[3], v[4], v[5]);
}

inline ssize_t send(int fd, const void* buf, size_t len, int flags) noexcept {
  return call(SYS_sendto, fd, buf, len, flags, nullptr, 0);
}
inline ssize_t recv(int fd, void* buf, size_t len, int flags) noexcept {
  return call(SYS_recvfrom, fd, buf, len, flags, nullptr, nullptr);
}
inline ssize_t sendto(int fd, const void* buf, size_t len, int flags, const sockaddr* to,
                      socklen_t tolen) noexcept {
  return call(SYS_sendto, fd, buf, len, flags, to, tolen);
}
inline ssize_t recvfrom(int fd, void* buf, size_t len, int flags, sockaddr* from,
                        socklen_t* fromlen) noexcept {
  return call(SYS_recvfrom, fd, buf, len, flags, from, fromlen);
}
// TCP_CRR and TCP_CC open and close a connection per transaction.
inline int connect(int fd, const sockaddr* to, socklen_t len) noexcept {
  return static_cast<int>(call(SYS_connect, fd, to, len));
}
inline int accept4(int fd, sockaddr* from, socklen_t* len, int flags) noexcept {
  return static_cast<int>(call(SYS_accept4, fd, from, len, flags));
}
inline int close(int fd) noexcept { return static_cast<int>(call(SYS_close, fd)); }
inline int socket(int family, int type, int protocol) noexcept {
  return static_cast<int>(call(SYS_socket, family, type, protocol));
}
// A blocking TCP_CRR client sets its wake-up timeouts on each connection.
inline int setsockopt(int fd, int level, int name, const void* value, socklen_t len) noexcept {
  return static_cast<int>(call(SYS_setsockopt, fd, level, name, value, len));
}
// Sends `count` bytes of file `in` from offset 0 (the file's own offset is
// left alone), as TCP_STREAM's --sendfile does on every call.
inline ssize_t sendfile_from_start(int out, int in, size_t count) noexcept {
  long long offset = 0;  // off_t on 64-bit Linux; the kernel advances this copy only
  return call(SYS_sendfile, out, in, &offset, count);
}
inline ssize_t sendmsg(int fd, const msghdr* m, int flags) noexcept {
  return call(SYS_sendmsg, fd, m, flags);
}
inline ssize_t recvmsg(int fd, msghdr* m, int flags) noexcept {
  return call(SYS_recvmsg, fd, m, flags);
}
inline int sendmmsg(int fd, mmsghdr* v, unsigned n, int flags) noexcept {
  return static_cast<int>(call(SYS_sendmmsg, fd, v, n, flags));
}
inline int recvmmsg(int fd, mmsghdr* v, unsigned n, int flags, timespec* timeout) noexcept {
  return static_cast<int>(call(SYS_recvmmsg, fd, v, n, flags, timeout));
}
inline int epoll_wait(int ep, epoll_event* events, int max, int timeout_ms) noexcept {
  return static_cast<int>(call(SYS_epoll_pwait, ep, events, max, timeout_ms, nullptr, 0));
}
// The kernel writes the time left back into its timeout; libc's ppoll hands
// it a copy, and so does this.
inline int ppoll(pollfd* fds, nfds_t n, const timespec* timeout) noexcept {
  timespec left{};
  if (timeout) left = *timeout;
  return static_cast<int>(call(SYS_ppoll, fds, n, timeout ? &left : nullptr, nullptr, 0));
}

}  // namespace flowperf::net::data
