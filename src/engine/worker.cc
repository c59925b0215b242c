#include "engine/worker.h"

#include <fmt/format.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>
#include <mutex>

#include "core/cpu_pin.h"
#include "core/error.h"
#include "net/data_calls.h"
#include "net/fd.h"

namespace flowperf::engine {
namespace {

constexpr auto kTick = std::chrono::milliseconds(20);
constexpr auto kRewake = std::chrono::milliseconds(1);

// Busy-polling spins this long without progress before it sleeps after all:
// long enough to catch a peer answering (a few microseconds on loopback),
// short enough not to burn a CPU through an idle stretch.
constexpr auto kSpinBudget = std::chrono::microseconds(50);

// Time to wait, capped at one tick, at full resolution: UDP_RR timeouts are
// tens of microseconds, so a millisecond-granular wait would stretch each
// one twentyfold.
timespec wait_for(Clock::time_point deadline, Clock::time_point now) {
  auto d = deadline <= now ? Clock::duration::zero() : deadline - now;
  d = std::min<Clock::duration>(d, kTick);
  auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(d).count();
  return timespec{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
}

void sleep_until(Clock::time_point t) {
  auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
  timespec ts{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
  ::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr);
}

// Empties a worker's wake-up eventfd once the wake-up has been seen.
void clear_waker(int fd) noexcept {
  uint64_t v;
  [[maybe_unused]] ssize_t n = ::read(fd, &v, sizeof v);
}

// The epoll driver's bookkeeping for one flow.
struct Slot {
  Flow* flow = nullptr;
  int reg_fd = -1;
  uint32_t reg_events = 0;
  Clock::time_point deadline = Clock::time_point::max();  // what the flow asked for
  Clock::time_point queued = Clock::time_point::max();    // its newest entry in the heap
  bool active = true;
};

// A deadline in the timer heap. Entries are never removed early: one whose
// time no longer matches its slot's newest entry is stale and skipped.
struct Timer {
  Clock::time_point at;
  uint32_t slot;
  bool operator>(const Timer& o) const { return at > o.at; }
};

class EpollDriver final : public FlowHost {
 public:
  EpollDriver(std::vector<Flow*>& flows, const std::atomic<Phase>& phase,
              std::atomic<size_t>& finished, bool busy_poll, int waker)
      : phase_(phase),
        finished_(finished),
        busy_poll_(busy_poll),
        waker_(waker),
        ep_(::epoll_create1(EPOLL_CLOEXEC)) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.ptr = nullptr;  // the waker; every flow's slot is non-null
    if (waker_ >= 0) ::epoll_ctl(ep_.get(), EPOLL_CTL_ADD, waker_, &ev);
    slots_.resize(flows.size());
    for (size_t i = 0; i < flows.size(); ++i) {
      slots_[i].flow = flows[i];
      flows[i]->host = this;
      flows[i]->host_slot = static_cast<uint32_t>(i);
      flows[i]->set_mode(false);
    }
  }

  void forget_fd(Flow* flow, int fd) noexcept override {
    Slot& s = slots_[flow->host_slot];
    if (s.reg_fd == fd) {
      ::epoll_ctl(ep_.get(), EPOLL_CTL_DEL, fd, nullptr);
      s.reg_fd = -1;
      s.reg_events = 0;
    }
  }

  void run() noexcept {
    Clock::time_point now = Clock::now();
    size_t active = slots_.size();
    Phase last = phase_.load(std::memory_order_relaxed);
    for (auto& s : slots_) {
      s.flow->started = now;
      active -= apply(s, s.flow->step(phase_, now), now);
    }
    epoll_event events[256];
    Clock::time_point last_event = now;
    while (active > 0) {
      Phase p = phase_.load(std::memory_order_relaxed);
      if (p != last) {
        // Every flow sees a phase change, even one whose socket is idle.
        last = p;
        now = Clock::now();
        for (auto& s : slots_)
          if (s.active) active -= apply(s, s.flow->step(phase_, now), now);
        continue;
      }
      now = Clock::now();
      const bool spin = busy_poll_ && now - last_event < kSpinBudget;
      const timespec ts = spin ? timespec{0, 0} : wait_for(next_timer(now), now);
      int n = ::epoll_pwait2(ep_.get(), events, 256, &ts, nullptr);
      if (n < 0 && errno == ENOSYS)  // kernels before 5.11
        n = net::data::epoll_wait(ep_.get(), events, 256,
                                  static_cast<int>((ts.tv_nsec + 999'999) / 1'000'000));
      now = Clock::now();
      if (n > 0)
        last_event = now;
      else if (spin)
        ::sched_yield();  // as drive_single does: let a queued peer run
      for (int i = 0; i < n; ++i) {
        if (!events[i].data.ptr) {  // the phase changed: seen at the top of the loop
          clear_waker(waker_);
          continue;
        }
        Slot& s = *static_cast<Slot*>(events[i].data.ptr);
        if (s.active) active -= apply(s, s.flow->step(phase_, now), now);
      }
      active -= expire(now);
    }
  }

 private:
  // The earliest live deadline, at most one tick away (so phase changes
  // are seen); stale heap entries on top are dropped on the way.
  Clock::time_point next_timer(Clock::time_point now) {
    while (!heap_.empty()) {
      const Timer& t = heap_.front();
      if (slots_[t.slot].queued == t.at) return std::min(t.at, now + kTick);
      std::pop_heap(heap_.begin(), heap_.end(), std::greater<>{});
      heap_.pop_back();
    }
    return now + kTick;
  }

  // Steps the flows whose deadline has passed; returns how many finished.
  size_t expire(Clock::time_point now) noexcept {
    size_t done = 0;
    while (!heap_.empty() && heap_.front().at <= now) {
      const Timer t = heap_.front();
      std::pop_heap(heap_.begin(), heap_.end(), std::greater<>{});
      heap_.pop_back();
      Slot& s = slots_[t.slot];
      if (s.queued != t.at) continue;  // stale
      s.queued = Clock::time_point::max();
      if (s.active && s.deadline <= now) done += apply(s, s.flow->step(phase_, now), now);
    }
    return done;
  }

  void schedule(Slot& s) noexcept {
    if (s.deadline == Clock::time_point::max() || s.deadline == s.queued) return;
    // Rebuild when stale entries pile up (a flow that moves its deadline on
    // every transaction leaves one behind each time).
    if (heap_.size() > 4 * slots_.size() + 64) {
      heap_.clear();
      for (auto& o : slots_) o.queued = Clock::time_point::max();
      for (uint32_t i = 0; i < slots_.size(); ++i) {
        Slot& o = slots_[i];
        if (o.active && o.deadline != Clock::time_point::max() && &o != &s) {
          heap_.push_back({o.deadline, i});
          o.queued = o.deadline;
        }
      }
      std::make_heap(heap_.begin(), heap_.end(), std::greater<>{});
    }
    try {
      heap_.push_back({s.deadline, static_cast<uint32_t>(&s - slots_.data())});
    } catch (...) {
      return;  // out of memory: the flow is still stepped every tick
    }
    std::push_heap(heap_.begin(), heap_.end(), std::greater<>{});
    s.queued = s.deadline;
  }

  // Registers what the flow waits for; returns 1 when the flow finished.
  size_t apply(Slot& s, const Wait& w, Clock::time_point now) noexcept {
    if (w.done) {
      if (s.reg_fd >= 0) ::epoll_ctl(ep_.get(), EPOLL_CTL_DEL, s.reg_fd, nullptr);
      s.reg_fd = -1;
      s.active = false;
      s.flow->ended = now;
      s.flow->is_finished.store(true, std::memory_order_release);
      finished_.fetch_add(1, std::memory_order_release);
      return 1;
    }
    s.deadline = w.deadline;
    schedule(s);
    if (w.fd != s.reg_fd || w.events != s.reg_events) {
      if (s.reg_fd >= 0 && w.fd != s.reg_fd)
        ::epoll_ctl(ep_.get(), EPOLL_CTL_DEL, s.reg_fd, nullptr);
      if (w.fd >= 0) {
        epoll_event ev{};
        ev.events = w.events;
        ev.data.ptr = &s;
        int op = (w.fd == s.reg_fd) ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;
        if (::epoll_ctl(ep_.get(), op, w.fd, &ev) < 0)
          ::epoll_ctl(ep_.get(), op == EPOLL_CTL_MOD ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, w.fd, &ev);
      }
      s.reg_fd = w.fd;
      s.reg_events = w.events;
    }
    return 0;
  }

  const std::atomic<Phase>& phase_;
  std::atomic<size_t>& finished_;
  const bool busy_poll_;
  const int waker_;
  net::Fd ep_;
  std::vector<Slot> slots_;
  std::vector<Timer> heap_;  // min-heap on `at`
};

// Whether drive_single runs the flow on a blocking socket.
bool blocks(const Flow& f, bool busy_poll) { return f.can_block() && !busy_poll; }

// One flow, driven directly: blocking sockets when the flow allows it,
// otherwise poll() with the flow's own deadline. Busy-polling, the socket
// is non-blocking and the flow is stepped again at once for up to
// kSpinBudget without progress (flows check their own deadlines on EAGAIN),
// then waits in poll() as usual.
void drive_single(Flow& f, const std::atomic<Phase>& phase, std::atomic<size_t>& finished,
                  bool busy_poll, int waker) {
  const bool blocking = blocks(f, busy_poll);
  f.set_mode(blocking);
  Clock::time_point now = Clock::now();
  f.started = now;
  // Progress, as the flow's call counters show it.
  auto calls = [&f] { return f.counters.send_calls.get() + f.counters.recv_calls.get(); };
  uint64_t last_calls = calls();
  Clock::time_point last_progress = now;
  for (;;) {
    Wait w = f.step(phase, now);
    if (w.done) break;
    now = Clock::now();
    if (busy_poll) {
      if (uint64_t c = calls(); c != last_calls) {
        last_calls = c;
        last_progress = now;
      }
      if (now - last_progress < kSpinBudget) {
        // Give the CPU to anything else that wants it right now: on a busy
        // machine the peer, or the softirq thread that delivers its
        // answer, may be queued on this very CPU (a pure spin then waits
        // out the whole budget on every transaction).
        ::sched_yield();
        continue;
      }
    }
    if (w.fd < 0) {  // pacing: nothing to wait for but time
      sleep_until(std::min(w.deadline, now + kTick));
    } else if (!blocking || w.deadline != Clock::time_point::max()) {
      pollfd pfd[2] = {{w.fd, static_cast<short>(w.events), 0}, {waker, POLLIN, 0}};
      const timespec ts = wait_for(w.deadline, now);
      if (net::data::ppoll(pfd, waker >= 0 ? 2 : 1, &ts) > 0 && pfd[1].revents) clear_waker(waker);
      last_progress = Clock::now();  // woken: spin again
    }
    now = Clock::now();
  }
  f.ended = Clock::now();
  f.is_finished.store(true, std::memory_order_release);
  finished.fetch_add(1, std::memory_order_release);
}

}  // namespace

Side::Side(std::vector<std::unique_ptr<Flow>> flows, unsigned threads, bool busy_poll)
    : flows_(std::move(flows)), busy_poll_(busy_poll) {
  threads = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(flows_.size())));
  groups_.resize(threads);
  // A worker asleep in poll or epoll learns of a phase change at once
  // rather than at its next tick (20 ms): drains then end promptly.
  for (unsigned i = 0; i < threads; ++i)
    wakers_.emplace_back(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  for (size_t i = 0; i < flows_.size(); ++i) groups_[i % threads].push_back(flows_[i].get());
  // A worker blocking in a receive no peer ends (see drive_single) learns of
  // a phase change from a signal; otherwise only when its 20 ms receive
  // timeout runs out, which every UDP test would add to its end.
  for (const auto& g : groups_)
    signal_wake_.push_back(g.size() == 1 && blocks(*g[0], busy_poll_) && g[0]->wake_by_signal());
  if (per_flow_histograms()) {
    for (auto& f : flows_) {
      histograms_.push_back(std::make_unique<measure::Histogram>());
      f->histogram = histograms_.back().get();
    }
  } else {
    for (auto& g : groups_) {
      histograms_.push_back(std::make_unique<measure::Histogram>());
      for (Flow* f : g) f->histogram = histograms_.back().get();
    }
  }
}

void Side::enable_live_latency() {
  if (!live_.empty()) return;
  // One writer per LiveLatency: a worker drives its group alone, and a
  // group's flows' histograms (their own, or the group's shared one) all
  // count into the group's.
  for (const auto& g : groups_) {
    live_.push_back(std::make_unique<measure::LiveLatency>());
    for (Flow* f : g)
      if (f->histogram) f->histogram->tap(live_.back()->counters());
  }
}

Side::~Side() {
  set_phase(Phase::kAbort);
  gate_.store(true);
  gate_.notify_all();
  join();
}

void Side::set_phase(Phase p) noexcept {
  if (p != Phase::kRun && phase_.load(std::memory_order_relaxed) == Phase::kRun) {
    const int64_t now = Clock::now().time_since_epoch().count();
    for (auto& f : flows_) f->run_ended_ns.store(now, std::memory_order_relaxed);
  }
  phase_.store(p, std::memory_order_release);
  const uint64_t one = 1;
  for (auto& w : wakers_) {
    if (!w) continue;
    [[maybe_unused]] ssize_t n = ::write(w.get(), &one, sizeof one);
  }
  signal_blocked_workers();
}

void Side::signal_blocked_workers() const noexcept {
  for (size_t g = 0; g < handles_.size(); ++g)
    if (signal_wake_[g] && !groups_[g][0]->is_finished.load(std::memory_order_acquire))
      ::pthread_kill(handles_[g], kWakeSignal);
}

void Side::launch(int cpu) {
  // Threads start with their creator's CPU set: pinned for as long as it
  // takes to create them, this thread hands the binding to all of them.
  core::CpuPin pin(cpu);
  if (cpu >= 0 && !pin.ok())
    throw runtime_error(fmt::format("--cpu-bind {}: cannot bind the data path to CPU {}: {}", cpu,
                                    cpu, std::strerror(pin.error())));
  // The wake signal interrupts a blocking system call (no SA_RESTART) and
  // does nothing else.
  static std::once_flag handler;
  std::call_once(handler, [] {
    struct sigaction sa {};
    sa.sa_handler = [](int) {};
    sigemptyset(&sa.sa_mask);
    ::sigaction(kWakeSignal, &sa, nullptr);
  });
  for (size_t g = 0; g < groups_.size(); ++g) {
    threads_.emplace_back([this, g] { run_worker(g); });
    handles_.push_back(threads_.back().native_handle());
  }
}

Clock::time_point Side::go() {
  start_ = Clock::now();
  gate_.store(true, std::memory_order_release);
  gate_.notify_all();
  return start_;
}

void Side::run_worker(size_t group) noexcept {
  // Timed waits end when asked: by default the kernel may stretch each by
  // up to 50 µs (timer slack, to batch wake-ups), as long as a UDP_RR
  // timeout itself, and every lost datagram would cost twice its timeout.
  ::prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  gate_.wait(false, std::memory_order_acquire);
  auto& flows = groups_[group];
  if (flows.size() == 1) {
    drive_single(*flows[0], phase_, finished_, busy_poll_, wakers_[group].get());
  } else {
    EpollDriver driver(flows, phase_, finished_, busy_poll_, wakers_[group].get());
    driver.run();
  }
  { std::lock_guard<std::mutex> lock(done_mu_); }
  done_cv_.notify_all();
}

bool Side::all_finished() const noexcept {
  return finished_.load(std::memory_order_acquire) == flows_.size();
}

bool Side::wait_finished(Clock::time_point deadline) const {
  std::unique_lock<std::mutex> lock(done_mu_);
  for (;;) {
    // A wake signal that comes just before its worker enters the receive
    // is lost (the worker would then wait out its 20 ms receive timeout):
    // past the run phase it is repeated every millisecond until done.
    const bool run = phase() == Phase::kRun;
    const Clock::time_point until = run ? deadline : std::min(deadline, Clock::now() + kRewake);
    if (done_cv_.wait_until(lock, until, [this] { return all_finished(); })) return true;
    if (Clock::now() >= deadline) return false;
    if (!run) signal_blocked_workers();
  }
}

void Side::join() {
  handles_.clear();  // a joined thread must not be signalled
  for (auto& t : threads_)
    if (t.joinable()) t.join();
  threads_.clear();
}

measure::Histogram Side::merged_histogram() const {
  measure::Histogram h;
  for (const auto& p : histograms_) h.merge(*p);
  return h;
}

const measure::Histogram* Side::flow_histogram(size_t i) const {
  return per_flow_histograms() && i < histograms_.size() ? histograms_[i].get() : nullptr;
}

measure::Histogram Side::take_flow_histogram(size_t i) {
  if (!per_flow_histograms() || i >= histograms_.size()) return {};
  return std::move(*histograms_[i]);
}

}  // namespace flowperf::engine
