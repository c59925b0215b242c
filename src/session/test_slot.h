// Counts one session among the server's running tests while it holds its
// slot, for the server's limit on tests at once (every protocol shares it),
// and, when the server limits each source address, among its source's.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "session/access_policy.h"

namespace flowperf::session {

class TestSlot {
 public:
  explicit TestSlot(std::atomic<uint32_t>* active) : active_(active) {}
  ~TestSlot() { release(); }
  TestSlot(const TestSlot&) = delete;
  TestSlot& operator=(const TestSlot&) = delete;

  // Takes a slot unless `limit` tests already run; then *running says how many.
  bool take(uint32_t limit, uint32_t* running) {
    uint32_t before = active_->fetch_add(1);
    if (before >= limit) {
      active_->fetch_sub(1);
      *running = before;
      return false;
    }
    held_ = true;
    return true;
  }
  // The source's share (ServerConfig::max_tests_per_source and
  // _per_minute): empty when taken (or there are no such limits), else why
  // not, in words for the client. Released with the slot.
  std::string take_source(SourceLimits* limits, const std::optional<IpAddr>& peer) {
    if (!limits || !peer) return {};
    std::string why = limits->take(*peer, std::chrono::steady_clock::now());
    if (why.empty()) ticket_ = SourceTicket(limits, *peer);
    return why;
  }
  void release() {
    if (held_) active_->fetch_sub(1);
    held_ = false;
    ticket_.reset();
  }

 private:
  std::atomic<uint32_t>* active_;
  bool held_ = false;
  SourceTicket ticket_;
};

}  // namespace flowperf::session
