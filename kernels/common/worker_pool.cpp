// kernels/common/worker_pool.cpp: see worker_pool.h.
#include "kernels/common/worker_pool.h"

namespace terrazo {

WorkerPool::WorkerPool(unsigned threads) {
  if (threads == 0) threads = std::thread::hardware_concurrency();
  if (threads == 0) threads = 1;
  for (unsigned i = 1; i < threads; ++i) workers_.emplace_back([this] { worker_main(); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (auto& t : workers_) t.join();
}

// Takes iterations of the current loop until none is left. Called with mutex_ unlocked.
void WorkerPool::work_on_current_loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (next_ < count_) {
    const std::uint64_t i = next_++;
    const auto* body = body_;
    lock.unlock();
    try {
      (*body)(i);
    } catch (...) {
      lock.lock();
      if (!error_) error_ = std::current_exception();
      lock.unlock();
    }
    lock.lock();
    if (++finished_ == count_) done_.notify_all();
  }
}

void WorkerPool::worker_main() {
  std::uint64_t seen = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      ++busy_;
    }
    work_on_current_loop();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (--busy_ == 0) done_.notify_all();
    }
  }
}

void WorkerPool::run(std::uint64_t count, const std::function<void(std::uint64_t)>& body) {
  if (count == 0) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    body_ = &body;
    count_ = count;
    next_ = 0;
    finished_ = 0;
    error_ = nullptr;
    ++generation_;
  }
  wake_.notify_all();
  work_on_current_loop();
  std::exception_ptr error;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    // All iterations done, and no worker still inside this loop (so body_ may go out of scope).
    done_.wait(lock, [&] { return finished_ == count_ && busy_ == 0; });
    body_ = nullptr;
    error = error_;
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace terrazo
