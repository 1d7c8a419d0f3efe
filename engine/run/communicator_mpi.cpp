// engine/run/communicator_mpi.cpp: MPI's world communicator (engine/run/communicator.h), compiled
// only with TERRAZO_MPI. Every collective is MPI-3's non-blocking one, and every wait polls
// MPI_Test (spinning briefly, then sleeping up to 1 ms between tests) so that it can honour the
// interrupt check; point-to-point messages are MPI_Isend and MPI_Iprobe + MPI_Recv of MPI_BYTE.
// MPI's C interface only (Open MPI's and MPICH's headers pull in the C++ bindings in C++ otherwise).
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <mutex>
#include <string>
#include <thread>

#include "engine/run/communicator.h"
#include "kernels/common/error.h"

namespace terrazo {
namespace {

std::mutex& mpi_mutex() {
  static std::mutex mutex;
  return mutex;
}

void check(int status, const char* what) {
  if (status == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(status, text, &length);
  throw Error(std::string("MPI: ") + what + " failed: " + std::string(text, static_cast<std::size_t>(length)));
}

// Polls `test` (true when done) until it is, asking the interrupt check between tries. The first
// 200 us only yield between tries: a round of a GPU exchange waits about that long for its peers,
// and a sleep's wake-up (50 us or more) would add to every round. Then 50 us sleeps, and after
// 20 ms 1 ms sleeps, so that a rank waiting long leaves the cores to others.
template <class Test>
void poll(const Communicator& comm, Test test) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(mpi_mutex());
      if (test()) return;
    }
    comm.check_interrupt();
    const auto waited = Clock::now() - start;
    if (waited < std::chrono::microseconds(200)) std::this_thread::yield();
    else std::this_thread::sleep_for(std::chrono::microseconds(waited < std::chrono::milliseconds(20) ? 50 : 1000));
  }
}

void wait_request(const Communicator& comm, MPI_Request* request) {
  poll(comm, [request] {
    int done = 0;
    check(MPI_Test(request, &done, MPI_STATUS_IGNORE), "MPI_Test");
    return done != 0;
  });
}

MPI_Op mpi_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return MPI_SUM;
    case ReduceOp::Min: return MPI_MIN;
    case ReduceOp::Max: return MPI_MAX;
  }
  return MPI_SUM;
}

class MpiMessage : public Communicator::Message {
 public:
  MpiMessage(const Communicator& comm, std::vector<std::uint8_t> bytes) : comm_(comm), bytes_(std::move(bytes)) {}
  MPI_Request* request() { return &request_; }
  const std::vector<std::uint8_t>& bytes() const { return bytes_; }
  bool done() override {
    if (finished_) return true;
    std::lock_guard<std::mutex> lock(mpi_mutex());
    int flag = 0;
    check(MPI_Test(&request_, &flag, MPI_STATUS_IGNORE), "MPI_Test");
    finished_ = flag != 0;
    return finished_;
  }
  void wait() override {
    if (!finished_) wait_request(comm_, &request_);
    finished_ = true;
  }

 private:
  const Communicator& comm_;
  std::vector<std::uint8_t> bytes_;
  MPI_Request request_ = MPI_REQUEST_NULL;
  bool finished_ = false;
};

class MpiCommunicator : public Communicator {
 public:
  MpiCommunicator(int* argc, char*** argv) {
    int provided = 0;
    check(MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided), "MPI_Init_thread");
    // Errors come back as codes (thrown as Error) instead of ending the job from inside MPI.
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    MPI_Comm local;
    check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local), "MPI_Comm_split_type");
    MPI_Comm_rank(local, &local_rank_);
    MPI_Comm_size(local, &local_size_);
    MPI_Comm_free(&local);
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int local_rank() const override { return local_rank_; }
  int local_size() const override { return local_size_; }

  void barrier() override {
    MPI_Request request;
    locked([&] { check(MPI_Ibarrier(MPI_COMM_WORLD, &request), "MPI_Ibarrier"); });
    wait_request(*this, &request);
  }
  void all_reduce(std::uint64_t* values, std::size_t n, ReduceOp op) override { reduce(values, n, MPI_UINT64_T, op); }
  void all_reduce(std::int64_t* values, std::size_t n, ReduceOp op) override { reduce(values, n, MPI_INT64_T, op); }
  std::uint64_t exclusive_prefix_sum(std::uint64_t value) override {
    std::uint64_t below = 0;
    MPI_Request request;
    locked([&] { check(MPI_Iexscan(&value, &below, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD, &request), "MPI_Iexscan"); });
    wait_request(*this, &request);
    return rank_ == 0 ? 0 : below;
  }
  void broadcast(std::vector<std::uint8_t>& bytes, int from) override {
    std::uint64_t n = bytes.size();
    bcast(&n, sizeof n, from);
    if (rank_ != from) bytes.resize(n);
    for (std::uint64_t at = 0; at < n; at += kMaxMessageBytes)
      bcast(bytes.data() + at, std::min<std::uint64_t>(kMaxMessageBytes, n - at), from);
  }
  std::vector<std::vector<std::uint8_t>> gather(const std::vector<std::uint8_t>& bytes, int to) override {
    std::vector<std::vector<std::uint8_t>> all;
    std::vector<std::uint64_t> sizes(static_cast<std::size_t>(size_));
    std::uint64_t mine = bytes.size();
    MPI_Request request;
    locked([&] { check(MPI_Igather(&mine, 1, MPI_UINT64_T, sizes.data(), 1, MPI_UINT64_T, to, MPI_COMM_WORLD, &request), "MPI_Igather"); });
    wait_request(*this, &request);
    // Then each rank's bytes by point-to-point messages (no 2 GiB limit on the total).
    constexpr int kTag = 0x7e01;
    if (rank_ != to) {
      for (std::uint64_t at = 0; at < mine; at += kMaxMessageBytes)
        send(to, kTag, std::vector<std::uint8_t>(bytes.begin() + at, bytes.begin() + std::min(mine, at + kMaxMessageBytes)));
      return all;
    }
    all.resize(static_cast<std::size_t>(size_));
    for (int r = 0; r < size_; ++r) {
      if (r == to) {
        all[r] = bytes;
        continue;
      }
      all[r].reserve(sizes[r]);
      while (all[r].size() < sizes[r]) {
        const std::vector<std::uint8_t> piece = recv(r, kTag);
        all[r].insert(all[r].end(), piece.begin(), piece.end());
      }
    }
    return all;
  }
  std::unique_ptr<Message> isend(int to, int tag, std::vector<std::uint8_t> bytes) override {
    if (bytes.size() > kMaxMessageBytes) throw Error("MPI: a message of more than 1 GiB to rank " + std::to_string(to));
    auto message = std::make_unique<MpiMessage>(*this, std::move(bytes));
    locked([&] {
      check(MPI_Isend(message->bytes().data(), static_cast<int>(message->bytes().size()), MPI_BYTE, to, tag,
                      MPI_COMM_WORLD, message->request()),
            "MPI_Isend");
    });
    return message;
  }
  std::vector<std::uint8_t> recv(int from, int tag) override {
    MPI_Status status;
    poll(*this, [&] {
      int flag = 0;
      check(MPI_Iprobe(from, tag, MPI_COMM_WORLD, &flag, &status), "MPI_Iprobe");
      return flag != 0;
    });
    int count = 0;
    std::lock_guard<std::mutex> lock(mpi_mutex());
    MPI_Get_count(&status, MPI_BYTE, &count);
    std::vector<std::uint8_t> bytes(static_cast<std::size_t>(count));
    check(MPI_Recv(bytes.data(), count, MPI_BYTE, from, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
    return bytes;
  }
  [[noreturn]] void abort(int code) override {
    MPI_Abort(MPI_COMM_WORLD, code);
    std::_Exit(code);
  }

 private:
  template <class F>
  void locked(F f) {
    std::lock_guard<std::mutex> lock(mpi_mutex());
    f();
  }
  void reduce(void* values, std::size_t n, MPI_Datatype type, ReduceOp op) {
    constexpr std::size_t kChunk = 1u << 26;  // elements per call (int counts)
    auto* bytes = static_cast<std::uint8_t*>(values);
    for (std::size_t at = 0; at < n; at += kChunk) {
      const int count = static_cast<int>(std::min(kChunk, n - at));
      MPI_Request request;
      locked([&] {
        check(MPI_Iallreduce(MPI_IN_PLACE, bytes + at * 8, count, type, mpi_op(op), MPI_COMM_WORLD, &request),
              "MPI_Iallreduce");
      });
      wait_request(*this, &request);
    }
  }
  void bcast(void* data, std::uint64_t bytes, int from) {
    MPI_Request request;
    locked([&] { check(MPI_Ibcast(data, static_cast<int>(bytes), MPI_BYTE, from, MPI_COMM_WORLD, &request), "MPI_Ibcast"); });
    wait_request(*this, &request);
  }

  int rank_ = 0, size_ = 1, local_rank_ = 0, local_size_ = 1;
};

}  // namespace

std::unique_ptr<Communicator> make_mpi_communicator(int* argc, char*** argv) {
  return std::make_unique<MpiCommunicator>(argc, argv);
}

void finalize_mpi() {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized) MPI_Finalize();
}

}  // namespace terrazo
