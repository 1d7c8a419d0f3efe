// engine/run/communicator.h: the ranks of a distributed run (`mpirun -np N terrazo <command> ...`,
// docs/distributed.md) and what they say to each other.
//
// One Communicator per process, world(): MPI's world communicator when the process was started by
// mpirun (launched_by_mpirun(): OMPI_COMM_WORLD_SIZE or PMIX_RANK in the environment) and terrazo was
// built with MPI (TERRAZO_MPI); otherwise one rank of one, whose collectives return at once and
// which never calls MPI (a plain `terrazo`, the tests, the Python package). init_world() makes it,
// once, from the program's main; without it world() is the one-rank communicator.
//
// Contract:
//  - every collective (barrier, all_reduce, exclusive_prefix_sum, broadcast, gather, agree) is
//    called by every rank in the same order with the same counts;
//  - point-to-point messages are byte buffers with a tag, received in the order each sender sent
//    them for that tag (MPI's non-overtaking rule); send() returns once the buffer may be reused,
//    isend() at once (the Message keeps the buffer until it is sent);
//  - every wait polls: while it waits, the interrupt check (set_interrupt_check: the program's
//    SIGINT/SIGTERM flag) is asked, and true throws Cancelled, so a rank that mpirun is ending
//    unwinds and removes its run directory and partial outputs instead of hanging in MPI;
//  - agree(): the fault protocol at phase boundaries (docs/distributed.md "Faults"): every rank says
//    whether its stage failed; when one did, every rank throws, the failing rank its own exception,
//    the others an Error of the same kind naming that rank and its message ("rank 2 of 4: ...").
//    Errors between agreement points (inside a phase that exchanges messages) end the job with
//    abort() (MPI_Abort) from the program's main, after the failing rank has unwound.
// Thread use: one thread at a time (MPI_THREAD_SERIALIZED discipline; calls are serialized by a
// mutex, a wait holds it).
#pragma once
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace terrazo {

enum class ReduceOp { Sum, Min, Max };

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // The rank among the ranks of this host, and their number (the GPU choice, docs/distributed.md).
  virtual int local_rank() const = 0;
  virtual int local_size() const = 0;
  bool distributed() const { return size() > 1; }
  bool root() const { return rank() == 0; }

  virtual void barrier() = 0;
  // Element-wise over ranks, in place, on every rank.
  virtual void all_reduce(std::uint64_t* values, std::size_t n, ReduceOp op) = 0;
  virtual void all_reduce(std::int64_t* values, std::size_t n, ReduceOp op) = 0;
  std::uint64_t all_reduce(std::uint64_t value, ReduceOp op);
  double all_reduce_max(double value);  // through the bits of a non-negative double (times)
  // The sum of `value` over the ranks below this one (0 on rank 0).
  virtual std::uint64_t exclusive_prefix_sum(std::uint64_t value) = 0;
  // `bytes` of rank `from` to every rank (the others' vectors are replaced).
  virtual void broadcast(std::vector<std::uint8_t>& bytes, int from) = 0;
  // Every rank's `bytes` to rank `to`, in rank order (empty on the other ranks).
  virtual std::vector<std::vector<std::uint8_t>> gather(const std::vector<std::uint8_t>& bytes, int to) = 0;

  // A message on its way (isend): done() once the buffer is sent; wait() polls until then.
  class Message {
   public:
    virtual ~Message() = default;
    virtual bool done() = 0;
    virtual void wait() = 0;
  };
  virtual std::unique_ptr<Message> isend(int to, int tag, std::vector<std::uint8_t> bytes) = 0;
  void send(int to, int tag, std::vector<std::uint8_t> bytes) { isend(to, tag, std::move(bytes))->wait(); }
  // The next message from `from` with `tag` (polls until it comes). At most 1 GiB a message.
  virtual std::vector<std::uint8_t> recv(int from, int tag) = 0;

  // Ends every rank of the job (MPI_Abort); the one-rank communicator exits the process.
  [[noreturn]] virtual void abort(int code) = 0;

  // The fault protocol above: `error` is this rank's failure in the stage just ended (null: none).
  void agree(std::exception_ptr error, const std::string& stage);
  // True once agree() threw on this rank because some rank failed: every rank knows; rank 0 says it.
  bool failed_together() const { return failed_together_; }

  void set_interrupt_check(std::function<bool()> check) { interrupt_ = std::move(check); }
  // Throws Cancelled when the interrupt check says so (every wait calls it).
  void check_interrupt() const;

  static constexpr std::uint64_t kMaxMessageBytes = 1ull << 30;

 private:
  std::function<bool()> interrupt_;
  bool failed_together_ = false;
};

// True when this process was started by mpirun (Open MPI's or PMIx's rank variables are set).
bool launched_by_mpirun();
// True when terrazo was built with MPI (TERRAZO_MPI).
bool built_with_mpi();

// Makes world() (once, from main): MPI's when launched_by_mpirun() and built_with_mpi(), else one
// rank. With several ranks on a host, the host's ranks take its GPUs in turn (choose_local_gpu).
void init_world(int* argc, char*** argv);
Communicator& world();
// The end of a run from main: with several ranks, a failure the ranks did not agree on (code != 0
// and !failed_together()) aborts the job; otherwise MPI is finalized. Returns the exit code.
int finish_world(int code);

// CUDA_VISIBLE_DEVICES for the `local_rank`-th rank of a host: the (local_rank % n)-th of the n
// devices it lists, or of /dev/nvidia0.. when it is unset; nothing without a device. Set before any
// CUDA call, so every thread of the process sees the one device. Returns the device chosen (-1: none).
int choose_local_gpu(int local_rank);

// Fault injection for the tests of a distributed run (docs/distributed.md "Faults"): with
// TERRAZO_FAULT="RANK:STAGE:ACTION" in the environment, rank RANK reaching `stage` kills itself
// (ACTION kill: SIGKILL, as a crashed node) or throws an Error (ACTION throw). Nothing otherwise.
void fault_point(const Communicator& comm, const std::string& stage);

// Runs `work` as one stage of a distributed run: its failure on any rank is agreed (agree()) at its
// end, so every rank throws; with one rank, `work` runs as it is.
template <class Work>
void agreed_stage(Communicator& comm, const std::string& stage, Work&& work) {
  if (!comm.distributed()) {
    work();
    return;
  }
  std::exception_ptr error;
  try {
    work();
  } catch (...) {
    error = std::current_exception();
  }
  comm.agree(error, stage);
}

// A one-rank communicator (world() without MPI; tests).
std::unique_ptr<Communicator> make_single_communicator();

}  // namespace terrazo
