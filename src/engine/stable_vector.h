// A growable array whose elements never move, for a transport's
// connections: handlers keep references to one while others are added.
// Elements live in fixed chunks of 2^kChunkBits, so an index is two loads
// and a mask, inlined. std::deque keeps addresses too, but its operator[]
// is an out-of-line iterator walk (1.2% of the HPCC bench input's time,
// perf), and it allocates an element over 512 bytes (a connection) apart
// from its neighbours.
#pragma once

#include <cstddef>
#include <memory>
#include <new>
#include <utility>
#include <vector>

namespace rdmasim {

template <class T, int kChunkBits = 6>
class StableVector {
  static constexpr size_t kChunk = size_t{1} << kChunkBits;
  static constexpr size_t kMask = kChunk - 1;
  struct alignas(T) Storage {
    std::byte bytes[sizeof(T)];
  };

 public:
  StableVector() = default;
  StableVector(const StableVector&) = delete;
  StableVector& operator=(const StableVector&) = delete;
  StableVector(StableVector&& o) noexcept : chunks_(std::move(o.chunks_)), size_(std::exchange(o.size_, 0)) {}
  StableVector& operator=(StableVector&& o) noexcept {
    if (this != &o) {
      clear();
      chunks_ = std::move(o.chunks_);
      size_ = std::exchange(o.size_, 0);
    }
    return *this;
  }
  ~StableVector() { clear(); }

  [[nodiscard]] size_t size() const { return size_; }
  [[nodiscard]] bool empty() const { return size_ == 0; }
  T& operator[](size_t i) { return *slot(i); }
  const T& operator[](size_t i) const { return *slot(i); }

  template <class... Args>
  T& emplace_back(Args&&... args) {
    if ((size_ >> kChunkBits) == chunks_.size()) chunks_.push_back(std::make_unique<Storage[]>(kChunk));
    T* p = ::new (static_cast<void*>(&chunks_[size_ >> kChunkBits][size_ & kMask]))
        T(std::forward<Args>(args)...);
    ++size_;
    return *p;
  }
  // Destroys every element; the chunks are freed.
  void clear() {
    for (size_t i = size_; i > 0; --i) slot(i - 1)->~T();
    size_ = 0;
    chunks_.clear();
  }

  // Index order, for range-for.
  template <class V, class Owner>
  class Iter {
   public:
    Iter(Owner* v, size_t i) : v_(v), i_(i) {}
    V& operator*() const { return (*v_)[i_]; }
    V* operator->() const { return &(*v_)[i_]; }
    Iter& operator++() {
      ++i_;
      return *this;
    }
    bool operator==(const Iter& o) const { return i_ == o.i_; }

   private:
    Owner* v_;
    size_t i_;
  };
  using iterator = Iter<T, StableVector>;
  using const_iterator = Iter<const T, const StableVector>;
  iterator begin() { return {this, 0}; }
  iterator end() { return {this, size_}; }
  [[nodiscard]] const_iterator begin() const { return {this, 0}; }
  [[nodiscard]] const_iterator end() const { return {this, size_}; }

 private:
  T* slot(size_t i) const { return std::launder(reinterpret_cast<T*>(&chunks_[i >> kChunkBits][i & kMask])); }

  std::vector<std::unique_ptr<Storage[]>> chunks_;
  size_t size_ = 0;
};

}  // namespace rdmasim
