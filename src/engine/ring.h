// A FIFO of small values in one growable circular buffer (no per-push allocation
// once it has reached its peak size). With `InPlace` > 0 (a power of two) the
// first InPlace values live inside the Ring itself and the heap is used only
// beyond them: for queues that are short almost always and read where their
// owner's other fields are (a port's credit updates in flight).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace rdmasim {

template <typename T, size_t InPlace = 0>
class Ring {
  static_assert((InPlace & (InPlace - 1)) == 0, "InPlace must be 0 or a power of two");

 public:
  [[nodiscard]] bool empty() const { return size_ == 0; }
  [[nodiscard]] size_t size() const { return size_; }
  // The next push_back would move to a larger buffer.
  [[nodiscard]] bool full() const { return size_ == capacity(); }
  void push_back(T v) {
    if (size_ == capacity()) grow();
    data()[(head_ + size_) & (capacity() - 1)] = v;
    ++size_;
  }
  T pop_front() {
    T v = data()[head_];
    head_ = (head_ + 1) & (capacity() - 1);
    --size_;
    return v;
  }
  [[nodiscard]] const T& front() const { return data()[head_]; }
  [[nodiscard]] T& back() { return data()[(head_ + size_ - 1) & (capacity() - 1)]; }
  [[nodiscard]] const T& back() const { return data()[(head_ + size_ - 1) & (capacity() - 1)]; }
  // The i-th from the front.
  [[nodiscard]] const T& operator[](size_t i) const { return data()[(head_ + i) & (capacity() - 1)]; }
  void pop_back() { --size_; }

 private:
  struct None {};
  [[nodiscard]] size_t capacity() const {
    if constexpr (InPlace == 0)
      return heap_.size();
    else
      return heap_.empty() ? InPlace : heap_.size();
  }
  [[nodiscard]] T* data() {
    if constexpr (InPlace == 0)
      return heap_.data();
    else
      return heap_.empty() ? in_place_.data() : heap_.data();
  }
  [[nodiscard]] const T* data() const {
    if constexpr (InPlace == 0)
      return heap_.data();
    else
      return heap_.empty() ? in_place_.data() : heap_.data();
  }
  void grow() {
    std::vector<T> nb(capacity() == 0 ? 16 : capacity() * 2);
    for (size_t i = 0; i < size_; ++i) nb[i] = (*this)[i];
    heap_.swap(nb);
    head_ = 0;
  }
  std::vector<T> heap_;
  uint32_t head_ = 0;
  uint32_t size_ = 0;
  [[no_unique_address]] std::conditional_t<InPlace == 0, None, std::array<T, InPlace>> in_place_{};
};

}  // namespace rdmasim
