// The server's front door. It accepts control connections and holds each,
// with no thread of its own, until its first bytes say which protocol it
// speaks (session/dispatch.h); only then does the server give it a
// session thread. A connection that says nothing in time is closed, and
// when more than `max_pending` wait at once the oldest is closed to make
// room: a crowd of idle or dribbling connections costs descriptors and a
// little memory, never threads, and cannot keep a real client out.
//
//   accept ─► pending (epoll, edge-triggered) ─┬─ a row claims it ─► Arrival
//                                               ├─ silent past its deadline ─► closed
//                                               ├─ closed, or said all it will ─► closed
//                                               └─ oldest of too many ─► closed
//
// Out of descriptors (accept fails with EMFILE, ENFILE, ENOBUFS or ENOMEM),
// the listeners are taken out of the epoll set for kAcceptPause and tried
// again then: a level-triggered listener with a connection it cannot take
// would wake the loop at once, forever (a spinning core). The waiting
// connections stay in the kernel's backlog meanwhile.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "net/fd.h"
#include "session/access_policy.h"
#include "session/dispatch.h"

namespace flowperf::session {

class Intake {
 public:
  using Clock = std::chrono::steady_clock;

  struct Arrival {
    net::Fd fd;
    const ProtocolRow* row = nullptr;
    Clock::time_point first_message_by;  // its first message is due by then
    std::optional<IpAddr> peer;
    uint64_t number = 0;  // accept order
  };
  struct Counts {
    uint64_t accepted = 0, claimed = 0, timed_out = 0, evicted = 0, hung_up = 0;
    uint64_t paused = 0;  // times accepting stopped for want of descriptors
  };
  static constexpr std::chrono::milliseconds kAcceptPause{100};

  // Why a pending connection is closed.
  enum class Drop { kTimedOut, kHungUp, kEvicted };
  // The server's last word to a connection it closes unclaimed, given the
  // bytes it sent (a flowperf client is told why in its own protocol).
  using Farewell = std::function<void(int fd, std::span<const uint8_t> first, Drop why)>;

  // The listeners (one per port the server serves, at most kMaxListeners)
  // are made non-blocking; `wake` (an eventfd) ends a wait early. All stay
  // owned by the caller. Connections of every listener share one queue,
  // one max_pending and one accept order.
  static constexpr size_t kMaxListeners = 8;
  Intake(std::vector<int> listeners, int wake, uint32_t max_pending, double first_bytes_s,
         Farewell farewell = nullptr);

  // Waits up to `timeout` for connections and bytes; returns the
  // connections whose protocol is now known, in the order they were claimed.
  std::vector<Arrival> wait(std::chrono::milliseconds timeout);

  size_t pending() const { return pending_.size(); }
  // Whether accepting is paused now (out of descriptors).
  bool paused() const { return paused_until_.has_value(); }
  const Counts& counts() const { return counts_; }

 private:
  struct Pending {
    net::Fd fd;
    Clock::time_point by;
    size_t have = 0;  // bytes seen so far
    std::optional<IpAddr> peer;
  };
  void accept_all(int listener, Clock::time_point now);
  // Stops or resumes watching the listeners.
  void arm_listeners(bool on);
  // Looks at one pending connection's bytes; moves it to `out` once claimed.
  void look(uint64_t number, uint32_t events, std::vector<Arrival>& out);
  void expire(Clock::time_point now);
  // Closes a pending connection, after its farewell; what it sent is read
  // first, so the close is a FIN rather than a reset.
  void drop(std::map<uint64_t, Pending>::iterator it, Drop why);

  std::vector<int> listeners_;
  int wake_;
  net::Fd epoll_;
  uint32_t max_pending_;
  Clock::duration first_bytes_;
  std::map<uint64_t, Pending> pending_;  // by accept number: oldest (and soonest due) first
  uint64_t accepted_ = 0;
  Counts counts_;
  Farewell farewell_;
  std::optional<Clock::time_point> paused_until_;
};

}  // namespace flowperf::session
