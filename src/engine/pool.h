// A free-list object pool with stable addresses. Objects come from fixed-size
// blocks, so steady-state allocation and release are a pointer swap.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

namespace rdmasim {

template <typename T, size_t kBlock = 4096>
class Pool {
 public:
  Pool() = default;
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  T* get() {
    if (free_.empty()) grow();
    T* p = free_.back();
    free_.pop_back();
    *p = T{};
    ++live_;
    return p;
  }
  void put(T* p) {
    free_.push_back(p);
    --live_;
  }
  [[nodiscard]] size_t live() const { return live_; }
  [[nodiscard]] size_t capacity() const { return blocks_.size() * kBlock; }

 private:
  void grow() {
    blocks_.push_back(std::make_unique<T[]>(kBlock));
    T* b = blocks_.back().get();
    free_.reserve(capacity());
    for (size_t i = kBlock; i-- > 0;) free_.push_back(&b[i]);
  }
  std::vector<std::unique_ptr<T[]>> blocks_;
  std::vector<T*> free_;
  size_t live_ = 0;
};

}  // namespace rdmasim
