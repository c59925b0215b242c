// The data path's system calls, made without libc's cancellation-point
// wrappers. In a process with more than one thread, glibc brackets every
// send, recv, epoll_wait and the like with an enable and a disable of
// asynchronous thread cancellation (two atomic read-modify-writes per call).
// flowperf never cancels a thread, and in TCP_RR those brackets were a fifth
// of its user-space CPU time (perf), so the hot loops call the kernel
// through syscall(2) instead. Each returns what the libc call would: -1 with
// errno set on failure.
#pragma once

#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <ctime>

namespace flowperf::net::data {

inline ssize_t send(int fd, const void* buf, size_t len, int flags) noexcept {
  return ::syscall(SYS_sendto, fd, buf, len, flags, nullptr, 0);
}
inline ssize_t recv(int fd, void* buf, size_t len, int flags) noexcept {
  return ::syscall(SYS_recvfrom, fd, buf, len, flags, nullptr, nullptr);
}
inline ssize_t sendto(int fd, const void* buf, size_t len, int flags, const sockaddr* to,
                      socklen_t tolen) noexcept {
  return ::syscall(SYS_sendto, fd, buf, len, flags, to, tolen);
}
inline ssize_t recvfrom(int fd, void* buf, size_t len, int flags, sockaddr* from,
                        socklen_t* fromlen) noexcept {
  return ::syscall(SYS_recvfrom, fd, buf, len, flags, from, fromlen);
}
inline ssize_t sendmsg(int fd, const msghdr* m, int flags) noexcept {
  return ::syscall(SYS_sendmsg, fd, m, flags);
}
inline ssize_t recvmsg(int fd, msghdr* m, int flags) noexcept {
  return ::syscall(SYS_recvmsg, fd, m, flags);
}
inline int sendmmsg(int fd, mmsghdr* v, unsigned n, int flags) noexcept {
  return static_cast<int>(::syscall(SYS_sendmmsg, fd, v, n, flags));
}
inline int recvmmsg(int fd, mmsghdr* v, unsigned n, int flags, timespec* timeout) noexcept {
  return static_cast<int>(::syscall(SYS_recvmmsg, fd, v, n, flags, timeout));
}
inline int epoll_wait(int ep, epoll_event* events, int max, int timeout_ms) noexcept {
  return static_cast<int>(::syscall(SYS_epoll_pwait, ep, events, max, timeout_ms, nullptr, 0));
}
// The kernel writes the time left back into its timeout; libc's ppoll hands
// it a copy, and so does this.
inline int ppoll(pollfd* fds, nfds_t n, const timespec* timeout) noexcept {
  timespec left{};
  if (timeout) left = *timeout;
  return static_cast<int>(::syscall(SYS_ppoll, fds, n, timeout ? &left : nullptr, nullptr, 0));
}

}  // namespace flowperf::net::data
