// engine/run/communicator.cpp: the one-rank communicator, the fault protocol and the process's world
// (engine/run/communicator.h); MPI's communicator is engine/run/communicator_mpi.cpp.
#include "engine/run/communicator.h"

#include <dirent.h>

#include <csignal>

#include <cstdlib>
#include <cstring>
#include <string>

#include "kernels/common/error.h"

namespace terrazo {

#if defined(TERRAZO_WITH_MPI)
std::unique_ptr<Communicator> make_mpi_communicator(int* argc, char*** argv);
void finalize_mpi();
#endif

namespace {

class SingleCommunicator : public Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  int local_rank() const override { return 0; }
  int local_size() const override { return 1; }
  void barrier() override {}
  void all_reduce(std::uint64_t*, std::size_t, ReduceOp) override {}
  void all_reduce(std::int64_t*, std::size_t, ReduceOp) override {}
  std::uint64_t exclusive_prefix_sum(std::uint64_t) override { return 0; }
  void broadcast(std::vector<std::uint8_t>&, int) override {}
  std::vector<std::vector<std::uint8_t>> gather(const std::vector<std::uint8_t>& bytes, int) override { return {bytes}; }
  std::unique_ptr<Message> isend(int to, int, std::vector<std::uint8_t>) override {
    throw Error("internal error: a message to rank " + std::to_string(to) + " in a run of one rank");
  }
  std::vector<std::uint8_t> recv(int from, int) override {
    throw Error("internal error: a message from rank " + std::to_string(from) + " in a run of one rank");
  }
  [[noreturn]] void abort(int code) override { std::_Exit(code); }
};

// The kinds of failure agree() carries from the failing rank to the others (kernels/common/error.h).
enum class FailureKind : std::uint8_t { Error, Usage, Io, Budget, Cancelled, Other };

FailureKind kind_of(const std::exception_ptr& error, std::string* message) {
  try {
    std::rethrow_exception(error);
  } catch (const Cancelled&) {
    *message = "interrupted";
    return FailureKind::Cancelled;
  } catch (const UsageError& e) {
    *message = e.what();
    return FailureKind::Usage;
  } catch (const IoError& e) {
    *message = e.what();
    return FailureKind::Io;
  } catch (const BudgetError& e) {
    *message = e.what();
    return FailureKind::Budget;
  } catch (const Error& e) {
    *message = e.what();
    return FailureKind::Error;
  } catch (const std::bad_alloc&) {
    *message = "out of memory; lower --memory to what each rank's host has free";
    return FailureKind::Other;
  } catch (const std::exception& e) {
    *message = std::string("internal error: ") + e.what();
    return FailureKind::Other;
  }
}

[[noreturn]] void throw_kind(FailureKind kind, const std::string& message) {
  switch (kind) {
    case FailureKind::Usage: throw UsageError(message);
    case FailureKind::Io: throw IoError(message);
    case FailureKind::Budget: throw BudgetError(message);
    default: throw Error(message);
  }
}

std::unique_ptr<Communicator>& world_slot() {
  static std::unique_ptr<Communicator> world;
  return world;
}

}  // namespace

std::unique_ptr<Communicator> make_single_communicator() { return std::make_unique<SingleCommunicator>(); }

std::uint64_t Communicator::all_reduce(std::uint64_t value, ReduceOp op) {
  all_reduce(&value, 1, op);
  return value;
}

double Communicator::all_reduce_max(double value) {
  std::uint64_t bits;
  std::memcpy(&bits, &value, 8);  // non-negative doubles order as their bits
  bits = all_reduce(bits, ReduceOp::Max);
  std::memcpy(&value, &bits, 8);
  return value;
}

void Communicator::check_interrupt() const {
  if (interrupt_ && interrupt_()) throw Cancelled();
}

void Communicator::agree(std::exception_ptr error, const std::string& stage) {
  if (!distributed()) {
    if (error) std::rethrow_exception(error);
    return;
  }
  const auto n = static_cast<std::uint64_t>(size());
  const std::uint64_t first = all_reduce(error ? static_cast<std::uint64_t>(rank()) : n, ReduceOp::Min);
  if (first == n) return;
  failed_together_ = true;
  // The first failing rank's kind and message, to every rank.
  std::vector<std::uint8_t> said;
  if (static_cast<std::uint64_t>(rank()) == first) {
    std::string message;
    const FailureKind kind = kind_of(error, &message);
    said.push_back(static_cast<std::uint8_t>(kind));
    said.insert(said.end(), message.begin(), message.end());
  }
  broadcast(said, static_cast<int>(first));
  if (error) std::rethrow_exception(error);
  const auto kind = static_cast<FailureKind>(said.empty() ? 0 : said[0]);
  const std::string message(said.begin() + (said.empty() ? 0 : 1), said.end());
  const std::string who = "rank " + std::to_string(first) + " of " + std::to_string(n) + " (" + stage + ")";
  if (kind == FailureKind::Cancelled) throw Error(who + " was interrupted; no output was written");
  throw_kind(kind, who + ": " + message);
}

bool launched_by_mpirun() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMIX_RANK") != nullptr ||
         std::getenv("PMI_RANK") != nullptr;
}

bool built_with_mpi() {
#if defined(TERRAZO_WITH_MPI)
  return true;
#else
  return false;
#endif
}

void init_world(int* argc, char*** argv) {
  if (world_slot()) return;
#if defined(TERRAZO_WITH_MPI)
  if (launched_by_mpirun()) {
    world_slot() = make_mpi_communicator(argc, argv);
    if (world_slot()->distributed()) choose_local_gpu(world_slot()->local_rank());
    return;
  }
#else
  (void)argc, (void)argv;
#endif
  world_slot() = make_single_communicator();
}

Communicator& world() {
  if (!world_slot()) world_slot() = make_single_communicator();
  return *world_slot();
}

int finish_world(int code) {
  Communicator& w = world();
  if (w.distributed() && code != 0 && !w.failed_together()) w.abort(code);
#if defined(TERRAZO_WITH_MPI)
  if (w.distributed() || launched_by_mpirun()) finalize_mpi();
#endif
  return code;
}

void fault_point(const Communicator& comm, const std::string& stage) {
  const char* fault = std::getenv("TERRAZO_FAULT");
  if (!fault) return;
  const std::string spec = fault;
  const auto a = spec.find(':'), b = spec.rfind(':');
  if (a == std::string::npos || b == a) return;
  if (spec.substr(0, a) != std::to_string(comm.rank()) || spec.substr(a + 1, b - a - 1) != stage) return;
  const std::string action = spec.substr(b + 1);
  if (action == "kill") raise(SIGKILL);
  if (action == "throw") throw Error("fault injected at " + stage + " (TERRAZO_FAULT)");
}

int choose_local_gpu(int local_rank) {
  std::vector<std::string> devices;
  if (const char* listed = std::getenv("CUDA_VISIBLE_DEVICES")) {
    std::string all = listed, item;
    for (char c : all + ",") {
      if (c != ',') {
        item += c;
      } else if (!item.empty()) {
        devices.push_back(item);
        item.clear();
      }
    }
  } else if (DIR* dir = opendir("/dev")) {
    int count = 0;
    while (const dirent* entry = readdir(dir)) {
      const char* name = entry->d_name;
      if (std::strncmp(name, "nvidia", 6) == 0 && name[6] >= '0' && name[6] <= '9') ++count;
    }
    closedir(dir);
    for (int i = 0; i < count; ++i) devices.push_back(std::to_string(i));
  }
  if (devices.empty()) return -1;
  const std::string& chosen = devices[static_cast<std::size_t>(local_rank) % devices.size()];
  setenv("CUDA_VISIBLE_DEVICES", chosen.c_str(), 1);
  return static_cast<int>(static_cast<std::size_t>(local_rank) % devices.size());
}

}  // namespace terrazo
