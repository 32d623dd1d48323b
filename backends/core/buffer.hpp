// Page-aligned heap arrays: SIMD loads never straddle, and large buffers start on a page.
#pragma once
#include <cstddef>
#include <cstdlib>
#include <new>
#include <span>

namespace ladder {

template <class T>
class AlignedBuffer {
 public:
  static constexpr std::size_t alignment = 4096;

  AlignedBuffer() = default;
  explicit AlignedBuffer(std::size_t count) : size_(count) {
    if (count == 0) return;
    std::size_t bytes = (count * sizeof(T) + alignment - 1) / alignment * alignment;
    data_ = static_cast<T*>(std::aligned_alloc(alignment, bytes));
    if (!data_) throw std::bad_alloc();
  }
  AlignedBuffer(AlignedBuffer&& other) noexcept : data_(other.data_), size_(other.size_) {
    other.data_ = nullptr;
    other.size_ = 0;
  }
  AlignedBuffer& operator=(AlignedBuffer&& other) noexcept {
    if (this != &other) {
      std::free(data_);
      data_ = other.data_;
      size_ = other.size_;
      other.data_ = nullptr;
      other.size_ = 0;
    }
    return *this;
  }
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  ~AlignedBuffer() { std::free(data_); }

  T* data() { return data_; }
  const T* data() const { return data_; }
  std::size_t size() const { return size_; }
  T& operator[](std::size_t i) { return data_[i]; }
  const T& operator[](std::size_t i) const { return data_[i]; }
  std::span<T> span() { return {data_, size_}; }
  std::span<const T> span() const { return {data_, size_}; }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

// Fills `count` values in the run's threads' static shares, so that each page is first touched,
// and so placed, by the thread that will work on it (on two sockets: on that thread's node).
template <class T>
void parallel_fill(T* data, std::size_t count, T value) {
  const auto n = static_cast<std::ptrdiff_t>(count);
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t i = 0; i < n; ++i) data[i] = value;
}

}  // namespace ladder
