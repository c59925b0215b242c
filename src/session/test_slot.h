// Counts one session among the server's running tests while it holds its
// slot, for the server's limit on tests at once (every protocol shares it),
// and, when the server limits each source address, among its source's; and
// holds the test's share of the server's memory budget.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "session/access_policy.h"

namespace flowperf::session {

// The bytes of buffers all running tests may hold together
// (ServerConfig::max_memory_bytes), taken before a test starts.
class MemoryBudget {
 public:
  explicit MemoryBudget(uint64_t limit) : limit_(limit) {}
  // Takes `bytes` unless the total would pass the limit; false then, and
  // *in_use says how much the running tests hold.
  bool reserve(uint64_t bytes, uint64_t* in_use) {
    uint64_t used = used_.load();
    do {
      if (bytes > limit_ || used > limit_ - bytes) {
        *in_use = used;
        return false;
      }
    } while (!used_.compare_exchange_weak(used, used + bytes));
    return true;
  }
  void release(uint64_t bytes) { used_.fetch_sub(bytes); }
  uint64_t limit() const { return limit_; }
  uint64_t in_use() const { return used_.load(); }

 private:
  uint64_t limit_;
  std::atomic<uint64_t> used_{0};
};

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
  // The test's share of `budget`, released with the slot; false when it
  // does not fit (*in_use: what the running tests hold). No budget: true.
  bool take_memory(MemoryBudget* budget, uint64_t bytes, uint64_t* in_use) {
    if (!budget) return true;
    if (!budget->reserve(bytes, in_use)) return false;
    budget_ = budget;
    reserved_ = bytes;
    return true;
  }
  void release() {
    if (held_) active_->fetch_sub(1);
    held_ = false;
    ticket_.reset();
    if (budget_) budget_->release(reserved_);
    budget_ = nullptr;
    reserved_ = 0;
  }

 private:
  std::atomic<uint32_t>* active_;
  MemoryBudget* budget_ = nullptr;
  uint64_t reserved_ = 0;
  bool held_ = false;
  SourceTicket ticket_;
};

}  // namespace flowperf::session
