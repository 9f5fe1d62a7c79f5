// A FIFO of small values in one growable circular buffer (no per-push allocation
// once it has reached its peak size).
#pragma once

#include <cstddef>
#include <vector>

namespace rdmasim {

template <typename T>
class Ring {
 public:
  [[nodiscard]] bool empty() const { return size_ == 0; }
  [[nodiscard]] size_t size() const { return size_; }
  void push_back(T v) {
    if (size_ == buf_.size()) grow();
    buf_[(head_ + size_) & (buf_.size() - 1)] = v;
    ++size_;
  }
  T pop_front() {
    T v = buf_[head_];
    head_ = (head_ + 1) & (buf_.size() - 1);
    --size_;
    return v;
  }
  [[nodiscard]] const T& front() const { return buf_[head_]; }
  [[nodiscard]] T& back() { return buf_[(head_ + size_ - 1) & (buf_.size() - 1)]; }
  [[nodiscard]] const T& back() const { return buf_[(head_ + size_ - 1) & (buf_.size() - 1)]; }
  // The i-th from the front.
  [[nodiscard]] const T& operator[](size_t i) const { return buf_[(head_ + i) & (buf_.size() - 1)]; }
  void pop_back() { --size_; }

 private:
  void grow() {
    std::vector<T> nb(buf_.empty() ? 16 : buf_.size() * 2);
    for (size_t i = 0; i < size_; ++i) nb[i] = buf_[(head_ + i) & (buf_.size() - 1)];
    buf_.swap(nb);
    head_ = 0;
  }
  std::vector<T> buf_;
  size_t head_ = 0;
  size_t size_ = 0;
};

}  // namespace rdmasim
