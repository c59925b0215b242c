// Counts one session among the server's running tests while it holds its
// slot, for the server's limit on tests at once (both protocols share it).
#pragma once

#include <atomic>
#include <cstdint>

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
  void release() {
    if (held_) active_->fetch_sub(1);
    held_ = false;
  }

 private:
  std::atomic<uint32_t>* active_;
  bool held_ = false;
};

}  // namespace flowperf::session
