// kernels/common/worker_pool.h: a fixed set of threads that run the iterations of a loop (parallel for).
//
// The threads live as long as the pool, so per-thread scratch of the block solvers (thread_local,
// see kernels/mst/block_mst_cpu.cpp) is allocated once per thread, not once per batch. The calling
// thread takes part in every loop, so a pool of n threads starts n - 1 of its own.
// run(count, body) calls body(i) once for each i in [0, count), in any order and on any thread, and
// returns when all are done; the first exception thrown by a body is rethrown by run() (the other
// iterations still run to completion or throw, their exceptions are dropped).
#pragma once
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace terrazo {

class WorkerPool {
 public:
  explicit WorkerPool(unsigned threads);  // 0: std::thread::hardware_concurrency()
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  unsigned threads() const { return static_cast<unsigned>(workers_.size()) + 1; }
  void run(std::uint64_t count, const std::function<void(std::uint64_t)>& body);

 private:
  void work_on_current_loop();
  void worker_main();

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const std::function<void(std::uint64_t)>* body_ = nullptr;
  std::uint64_t count_ = 0, next_ = 0, finished_ = 0;
  std::uint64_t generation_ = 0;
  unsigned busy_ = 0;
  bool stop_ = false;
  std::exception_ptr error_;
};

}  // namespace terrazo
