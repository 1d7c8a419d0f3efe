// kernels/common/huge_buffer.h: scratch arrays of trivially copyable cells that are written before they are
// read, on transparent huge pages and never zero-filled by the program.
//
// Why: `std::vector<T>(n)` and `resize(n)` memset every byte the caller then overwrites, and a
// large buffer is a fresh mapping whose 4 KiB pages fault one by one. A page fault is expensive on
// a paravirtualised VM (docs/benchmarks.md "Fixed costs of a small run": 32 MiB touched page by
// page took 0.6 s there, on 2 MiB pages 0.04-0.05 s). Buffers of 2 MiB or more are mappings that
// start on a 2 MiB boundary, advised MADV_HUGEPAGE (advice only: small pages are correct too);
// smaller ones come from operator new. Callers must not rely on any content: a buffer's cells are
// unspecified until written (fresh pages happen to be zero, reused buffers hold old cells).
//
// Memory: size() x sizeof(T) rounded up to 4 KiB; what is touched is resident, in whole 2 MiB
// pages where the kernel gives huge pages (a partly written 2 MiB range may become resident whole).
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace terrazo {

constexpr std::size_t kHugeBufferPage = 2u << 20;  // the huge page: buffers of this size or more are mappings

// Raw memory of at least `bytes` (see above); *mapped is what huge_free needs back.
void* huge_allocate(std::size_t bytes, std::size_t* mapped);
void huge_free(void* memory, std::size_t mapped);

template <typename T>
class HugeBuffer {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                "HugeBuffer holds plain cells");

 public:
  HugeBuffer() = default;
  explicit HugeBuffer(std::size_t count) { allocate(count); }
  ~HugeBuffer() { release(); }
  HugeBuffer(const HugeBuffer&) = delete;
  HugeBuffer& operator=(const HugeBuffer&) = delete;
  HugeBuffer(HugeBuffer&& other) noexcept { *this = std::move(other); }
  HugeBuffer& operator=(HugeBuffer&& other) noexcept {
    if (this != &other) {
      release();
      std::swap(data_, other.data_);
      std::swap(size_, other.size_);
      std::swap(mapped_, other.mapped_);
    }
    return *this;
  }

  // size() becomes `count`; the cells are unspecified (old contents are not kept when it grows).
  void allocate(std::size_t count) {
    if (count * sizeof(T) > capacity_bytes()) {
      release();
      data_ = static_cast<T*>(huge_allocate(count * sizeof(T), &mapped_));
    }
    size_ = count;
  }
  // Grows to at least `count` cells (unspecified), never shrinks.
  void ensure(std::size_t count) {
    if (count > size_) allocate(count);
  }
  void release() {
    if (data_) huge_free(data_, mapped_);
    data_ = nullptr;
    size_ = 0;
    mapped_ = 0;
  }

  T* data() { return data_; }
  const T* data() const { return data_; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](std::size_t i) { return data_[i]; }
  const T& operator[](std::size_t i) const { return data_[i]; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }

 private:
  std::size_t capacity_bytes() const { return data_ ? mapped_ : 0; }
  T* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t mapped_ = 0;  // bytes usable at data_ (what huge_allocate gave)
};

}  // namespace terrazo
