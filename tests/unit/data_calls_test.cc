// The data path's direct system calls (net/data_calls.h) must behave as the
// libc calls they replace: the result on success, -1 with errno on failure,
// whatever the number and kinds of arguments.
#include "net/data_calls.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace flowperf::net {
namespace {

TEST(DataCalls, FailuresReturnMinusOneWithErrno) {
  char c = 'x';
  errno = 0;
  EXPECT_EQ(data::send(-1, &c, 1, 0), -1);
  EXPECT_EQ(errno, EBADF);
  errno = 0;
  EXPECT_EQ(data::recv(-1, &c, 1, MSG_DONTWAIT), -1);
  EXPECT_EQ(errno, EBADF);
  errno = 0;
  EXPECT_EQ(data::close(-1), -1);
  EXPECT_EQ(errno, EBADF);
}

TEST(DataCalls, MovesDataAndReportsWouldBlock) {
  int sv[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  const char out[] = "hello";
  EXPECT_EQ(data::send(sv[0], out, sizeof out, MSG_NOSIGNAL), static_cast<ssize_t>(sizeof out));
  char in[16] = {};
  EXPECT_EQ(data::recv(sv[1], in, sizeof in, 0), static_cast<ssize_t>(sizeof out));
  EXPECT_STREQ(in, "hello");
  errno = 0;
  EXPECT_EQ(data::recv(sv[1], in, sizeof in, MSG_DONTWAIT), -1);
  EXPECT_EQ(errno, EAGAIN);
  EXPECT_EQ(data::close(sv[0]), 0);
  EXPECT_EQ(data::recv(sv[1], in, sizeof in, 0), 0);  // end of file
  EXPECT_EQ(data::close(sv[1]), 0);
  EXPECT_EQ(::fcntl(sv[1], F_GETFD), -1);  // really closed
}

// A socket of `type` bound to 127.0.0.1 on a free port; *addr gets its address.
int bound_loopback(int type, sockaddr_in* addr) {
  int fd = ::socket(AF_INET, type | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  *addr = sockaddr_in{};
  addr->sin_family = AF_INET;
  addr->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof *addr;
  if (::bind(fd, reinterpret_cast<sockaddr*>(addr), sizeof *addr) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(addr), &len) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

TEST(DataCalls, DatagramsCarryTheirAddresses) {
  sockaddr_in mine{}, addr{};
  int a = bound_loopback(SOCK_DGRAM, &mine);
  int b = bound_loopback(SOCK_DGRAM, &addr);
  ASSERT_GE(a, 0);
  ASSERT_GE(b, 0);
  EXPECT_EQ(data::sendto(a, "ping", 4, 0, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 4);
  char in[8] = {};
  sockaddr_storage from;
  socklen_t fromlen = sizeof from;
  EXPECT_EQ(data::recvfrom(b, in, sizeof in, 0, reinterpret_cast<sockaddr*>(&from), &fromlen), 4);
  EXPECT_EQ(std::memcmp(in, "ping", 4), 0);
  ASSERT_EQ(fromlen, sizeof(sockaddr_in));
  EXPECT_EQ(reinterpret_cast<sockaddr_in*>(&from)->sin_port, mine.sin_port);
  ::close(a);
  ::close(b);
}

TEST(DataCalls, ConnectToAClosedPortIsRefused) {
  // A port that was free a moment ago: bind, read its number, close.
  sockaddr_in addr{};
  int probe = bound_loopback(SOCK_STREAM, &addr);
  ASSERT_GE(probe, 0);
  ::close(probe);
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(fd, 0);
  errno = 0;
  EXPECT_EQ(data::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), -1);
  EXPECT_EQ(errno, ECONNREFUSED);
  ::close(fd);
}

// socket() gives a working descriptor with the type flags applied, and
// setsockopt() sets what getsockopt() then reads back; both fail as libc's
// would.
TEST(DataCalls, SocketAndSetsockopt) {
  const int fd = data::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  ASSERT_GE(fd, 0);
  EXPECT_TRUE(::fcntl(fd, F_GETFL) & O_NONBLOCK);
  EXPECT_TRUE(::fcntl(fd, F_GETFD) & FD_CLOEXEC);
  const timeval set{0, 200'000};  // whole jiffies at HZ 100, 250 and 1000
  EXPECT_EQ(data::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &set, sizeof set), 0);
  timeval got{};
  socklen_t len = sizeof got;
  ASSERT_EQ(::getsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &got, &len), 0);
  EXPECT_EQ(got.tv_sec, 0);
  EXPECT_EQ(got.tv_usec, 200'000);
  errno = 0;
  EXPECT_EQ(data::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &set, 1), -1);  // too short
  EXPECT_EQ(errno, EINVAL);
  ::close(fd);
  errno = 0;
  EXPECT_EQ(data::socket(AF_INET, 12345, 0), -1);
  EXPECT_EQ(errno, EINVAL);
}

}  // namespace
}  // namespace flowperf::net
