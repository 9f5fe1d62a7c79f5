// The one way rdmasim runs independent simulations side by side (`run -j`,
// `demo`, `validate`, nccl-tests sizes). Jobs are indices; each writes only
// its own result slot, and callers print the slots in index order, so the
// output is the same whatever the number of threads.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <functional>
#include <thread>
#include <vector>

namespace rdmasim {

class ThreadPool {
 public:
  // `threads` < 1 is taken as 1; 0 could not make progress.
  explicit ThreadPool(int threads) : threads_(std::max(1, threads)) {}

  // The machine's hardware threads (at least 1).
  [[nodiscard]] static int hardware() {
    return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  }

  // Calls job(i) once for every i in [0, n), on up to `threads` threads (the
  // caller's included), and returns when all have returned. `job` must not
  // throw: catch inside and record the failure in the job's slot.
  void for_each(size_t n, const std::function<void(size_t)>& job) const {
    std::atomic<size_t> next{0};
    auto worker = [&] {
      for (size_t i; (i = next++) < n;) job(i);
    };
    std::vector<std::thread> pool;
    const size_t extra = std::min(static_cast<size_t>(threads_), std::max<size_t>(n, 1)) - 1;
    for (size_t t = 0; t < extra; ++t) pool.emplace_back(worker);
    worker();
    for (auto& t : pool) t.join();
  }

  [[nodiscard]] int threads() const { return threads_; }

 private:
  int threads_;
};

}  // namespace rdmasim
