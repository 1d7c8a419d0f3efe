// kernels/common/timer.h: wall-clock timing of phases (steady clock, seconds as double).
#pragma once
#include <chrono>

namespace terrazo {

// Seconds since `start` was taken; construct one where a phase begins and read it where it ends.
class Stopwatch {
 public:
  Stopwatch() : start_(std::chrono::steady_clock::now()) {}
  double seconds() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }
  void restart() { start_ = std::chrono::steady_clock::now(); }

 private:
  std::chrono::steady_clock::time_point start_;
};

}  // namespace terrazo
