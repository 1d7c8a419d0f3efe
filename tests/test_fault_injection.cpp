// tests/test_fault_injection.cpp: the terrazo program under faults (docs/reliability.md "Fault
// campaign"), label `fault`. Each case drives the real binary (fork + exec) and checks the promises:
//
//  - SIGINT, SIGTERM, a double SIGINT and SIGKILL at random points of every command: a run that
//    exits 0 published outputs equal to an undisturbed run's; a run that exits 1 wrote one line and
//    left no partial file and no run directory; a run killed by the signal (SIGKILL, the second
//    SIGINT, a signal before the handler is installed) may leave partial files and its run
//    directory, and the next run of the command must succeed, equal the reference and leave none;
//  - disk full (RLIMIT_FSIZE in the child, SIGXFSZ ignored: writes fail with EFBIG) at a random
//    file size: exit 0 with the reference outputs, or exit 1 on one line, nothing stale;
//  - an output directory the run cannot write: exit 1 or 2 on one line naming it, nothing written;
//  - two runs writing one output path at once: both exit 0, the file is one of the two results.
//
// Whatever happens, a file under a final output name equals the reference (never half-written), a
// crash (another signal, "internal error") or a hang (no end within 120 s) fails the case, and the
// counts are printed (tried / finished / clear error / killed / crash / hang / silent wrong).
// Randomized but deterministic: std::mt19937_64 seeded per case (TERRAZO_FAULT_SEED adds to it);
// TERRAZO_FAULT_TRIALS (default 3) trials per command and fault kind.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "io/gdal/gdal_raster.h"
#include "tests/support/sssp_reference.h"
#include "tests/support/test_support.h"

namespace {

using namespace terrazo;
using namespace terrazo::testing;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

unsigned env_number(const char* name, unsigned fallback) {
  const char* text = std::getenv(name);
  return text && *text ? static_cast<unsigned>(std::strtoul(text, nullptr, 10)) : fallback;
}

// ---- running the program -----------------------------------------------------------------------

struct SpawnOptions {
  rlim_t file_size_limit = RLIM_INFINITY;  // RLIMIT_FSIZE of the child, SIGXFSZ ignored
  bool as_nobody = false;                   // setuid(65534) before exec (root ignores permissions)
};

struct Outcome {
  bool exited = false, hung = false;
  int code = -1, signal = 0;
  std::string err;
  double seconds = 0;
  std::string describe() const {
    if (hung) return "hang";
    return exited ? "exit " + std::to_string(code) : std::string("signal ") + strsignal(signal);
  }
};

class Child {
 public:
  explicit Child(const std::vector<std::string>& args, const SpawnOptions& options = {}) {
    // Everything the child needs is made before fork: it only calls async-signal-safe functions.
    std::vector<std::string> storage{TERRAZO_BINARY};
    storage.insert(storage.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : storage) argv.push_back(a.data());
    argv.push_back(nullptr);
    // stderr through a pipe, not a file: RLIMIT_FSIZE would cut a file of the disk-full cases.
    int pipe_fds[2];
    const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (pipe2(pipe_fds, O_CLOEXEC) != 0 || null < 0) throw std::runtime_error("cannot make the child's stderr pipe");
    err_fd_ = pipe_fds[0];
    const int err = pipe_fds[1];
    start_ = Clock::now();
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
      dup2(null, STDOUT_FILENO);
      dup2(err, STDERR_FILENO);
      // The program as a terminal starts it: default dispositions (a shell's background job, as
      // this test may be, ignores SIGINT, and exec keeps an ignored signal ignored), nothing blocked.
      signal(SIGINT, SIG_DFL);
      signal(SIGTERM, SIG_DFL);
      sigset_t none;
      sigemptyset(&none);
      sigprocmask(SIG_SETMASK, &none, nullptr);
      if (options.file_size_limit != RLIM_INFINITY) {
        signal(SIGXFSZ, SIG_IGN);  // kept across exec: a write past the limit fails with EFBIG
        const struct rlimit limit{options.file_size_limit, options.file_size_limit};
        if (setrlimit(RLIMIT_FSIZE, &limit) != 0) _exit(126);
      }
      if (options.as_nobody && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(126);
      execv(argv[0], argv.data());
      _exit(127);
    }
    ::close(err);
    ::close(null);
    ::fcntl(err_fd_, F_SETFL, O_NONBLOCK);
  }
  ~Child() {
    if (pid_ > 0 && !reaped_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (err_fd_ >= 0) ::close(err_fd_);
  }
  pid_t pid() const { return pid_; }
  // Waits until the program catches SIGINT (main() installed its handler: /proc/PID/status SigCgt)
  // or has ended; false on timeout.
  bool wait_for_handler(double timeout_seconds = 30) const {
    const std::string status = "/proc/" + std::to_string(pid_) + "/status";
    while (elapsed() < timeout_seconds) {
      std::ifstream in(status);
      std::string line;
      bool alive = false;
      while (std::getline(in, line)) {
        if (line.rfind("State:", 0) == 0) alive = line.find('Z') == std::string::npos;
        if (line.rfind("SigCgt:", 0) == 0) {
          const unsigned long long caught = std::strtoull(line.c_str() + 7, nullptr, 16);
          if ((caught >> (SIGINT - 1)) & 1) return true;
        }
      }
      if (!alive) return true;
      std::this_thread::sleep_for(std::chrono::microseconds(500));
    }
    return false;
  }
  double elapsed() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

  Outcome wait(double timeout_seconds = 120) {
    Outcome outcome;
    int status = 0;
    for (;;) {
      drain();
      const pid_t got = waitpid(pid_, &status, WNOHANG);
      if (got == pid_) break;
      if (elapsed() > timeout_seconds) {
        kill(pid_, SIGKILL);
        waitpid(pid_, &status, 0);
        outcome.hung = true;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    reaped_ = true;
    outcome.seconds = elapsed();
    outcome.exited = WIFEXITED(status);
    outcome.code = outcome.exited ? WEXITSTATUS(status) : -1;
    outcome.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    drain();
    outcome.err = err_;
    return outcome;
  }

 private:
  void drain() {
    char buffer[4096];
    for (ssize_t got; (got = ::read(err_fd_, buffer, sizeof buffer)) > 0;) err_.append(buffer, static_cast<std::size_t>(got));
  }
  pid_t pid_ = -1;
  bool reaped_ = false;
  int err_fd_ = -1;
  std::string err_;
  Clock::time_point start_;
};

// ---- the commands and their reference outputs --------------------------------------------------

bool is_raster(const std::string& path) {
  const std::string ext = fs::path(path).extension().string();
  return ext == ".tif" || ext == ".tzs";
}

// What a file holds, for comparison: a raster's cells (NaN as a marker, the GeoTIFF's block order
// may differ between runs), another file's bytes.
std::string content_of(const std::string& path) {
  if (!is_raster(path)) return slurp(path);
  std::string text;
  for (double v : read_raster_values(path)) {
    if (v != v) v = -1e308;
    text.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  return text;
}

struct Command {
  std::string name;
  std::vector<std::string> args;     // output paths relative to the case's output directory: "@/name"
  std::vector<std::string> outputs;  // names in the output directory
};

// A world for one case: inputs made once, an output directory and a scratch directory (--tmpdir).
// The commands run on a generated terrain of 700 x 600 cells (the signal and race campaigns: runs
// long enough to be interrupted in their work), or a smaller one (the disk-full and permission
// cases, where the size is not the point); points are placed in proportion.
class World {
 public:
  explicit World(std::uint64_t width = 700, std::uint64_t height = 600) : width_(width), height_(height) {
    ::chmod(root_.path().c_str(), 0755);  // readable by the unprivileged child of the permission case
    out_ = root_.file("out");
    scratch_ = root_.file("scratch");
    fs::create_directory(out_);
    fs::create_directory(scratch_);
    ::chmod(scratch_.c_str(), 0777);
    dem_ = root_.file("dem.tzs");
    run_ok({"gen", "-q", "--width", std::to_string(width_), "--height", std::to_string(height_), "--tile", "64", "--seed",
            "3", "--nodata-holes", "0.02", dem_});
    run_ok({"export", "-q", dem_, root_.file("dem.tif")});
    run_ok({"sssp", "-q", "--source", at(20, 30), "--backlink", root_.file("back.tif"), dem_, root_.file("cost.tif")});
  }

  // "x,y" of the point (x, y) of the 700 x 600 world, in this one.
  std::string at(std::uint64_t x, std::uint64_t y) const {
    return std::to_string(x * width_ / 700) + "," + std::to_string(y * height_ / 600);
  }

  const std::string& out() const { return out_; }
  const std::string& scratch() const { return scratch_; }
  std::string file(const std::string& name) const { return root_.file(name); }

  // The command named `name` among commands() (a default Command, named "", when there is none).
  Command command(const std::string& name) const {
    Command found;
    for (const auto& c : commands())
      if (c.name == name) found = c;
    return found;
  }

  std::vector<Command> commands() const {
    const std::string tif = root_.file("dem.tif");
    return {
        {"gen",
         {"gen", "--width", std::to_string(width_), "--height", std::to_string(height_), "--tile", "64", "--seed", "9",
          "@/g.tzs"},
         {"g.tzs"}},
        {"import", {"import", "--tile", "32", tif, "@/i.tzs"}, {"i.tzs"}},
        {"export", {"export", dem_, "@/e.tif"}, {"e.tif"}},
        {"info", {"info", "--json", tif}, {}},
        {"mst", {"mst", "--tile", "32", "--edge-list", "@/m.bin", tif, "@/m.tif"}, {"m.bin", "m.tif"}},
        {"sssp",
         {"sssp", "--tile", "32", "--source", at(100, 200), "--source", at(650, 20), "--backlink", "@/b.tif",
          "--allocation", "@/a.tif", tif, "@/c.tif"},
         {"b.tif", "a.tif", "c.tif"}},
        {"path",
         {"path", "--backlink", root_.file("back.tif"), "--cost", root_.file("cost.tif"), "--dest", at(690, 590),
          "--dest", at(5, 580), "--mask", "@/pm.tif", "@/p.geojson"},
         {"pm.tif", "p.geojson"}},
        {"clump", {"clump", "--by", "range:300,600", "--tile", "32", "--stats", "@/l.csv", dem_, "@/l.tif"},
         {"l.csv", "l.tif"}},
    };
  }

  // The arguments with "@/" replaced by `directory`, plus -q and --tmpdir.
  std::vector<std::string> argv_of(const Command& c, const std::string& directory) const {
    std::vector<std::string> args{c.args[0], "-q", "--tmpdir", scratch_};
    for (std::size_t i = 1; i < c.args.size(); ++i)
      args.push_back(c.args[i].rfind("@/", 0) == 0 ? directory + "/" + c.args[i].substr(2) : c.args[i]);
    return args;
  }

  Outcome run(const std::vector<std::string>& args, const SpawnOptions& options = {}) const {
    Child child(args, options);
    return child.wait();
  }

  void run_ok(const std::vector<std::string>& args) const {
    const Outcome o = run(args);
    if (!o.exited || o.code != 0) throw std::runtime_error("setup run failed (" + o.describe() + "): " + o.err);
  }

  // Runs `c` undisturbed into a directory of its own and keeps its outputs' contents.
  std::map<std::string, std::string> reference(const Command& c, double* seconds) const {
    const std::string dir = root_.file("ref-" + c.name);
    fs::create_directory(dir);
    const Outcome o = run(argv_of(c, dir));
    if (!o.exited || o.code != 0) throw std::runtime_error(c.name + " reference run failed: " + o.err);
    *seconds = o.seconds;
    std::map<std::string, std::string> contents;
    for (const auto& name : c.outputs) contents[name] = content_of(dir + "/" + name);
    return contents;
  }

  // The shortest of three `terrazo --version` runs: exec and the dynamic loader.
  double startup_seconds() const {
    double best = 1e9;
    for (int i = 0; i < 3; ++i) best = std::min(best, run({"--version"}).seconds);
    return best;
  }

  void clear_outputs() const {
    for (const auto& entry : fs::directory_iterator(out_)) fs::remove_all(entry.path());
  }

  // Partial files in the output directory and run directories in the scratch directory.
  std::vector<std::string> leftovers() const {
    std::vector<std::string> found;
    for (const auto& entry : fs::directory_iterator(out_))
      if (contains(entry.path().filename().string(), ".partial-")) found.push_back(entry.path().string());
    for (const auto& entry : fs::directory_iterator(scratch_)) found.push_back(entry.path().string());
    return found;
  }

 private:
  std::uint64_t width_, height_;
  TempDir root_;
  std::string out_, scratch_, dem_;
};

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& n : names) text += (text.empty() ? "" : ", ") + n;
  return text;
}

bool one_line(const std::string& text) {
  return !text.empty() && text.find('\n') == text.size() - 1 && text.rfind("terrazo", 0) == 0;
}

struct Counts {
  unsigned tried = 0, finished = 0, clear_error = 0, killed = 0, crash = 0, hang = 0, wrong = 0, reruns = 0;
  std::string line() const {
    char text[256];
    std::snprintf(text, sizeof text,
                  "tried %u: finished %u, clear error %u, killed %u (reruns %u), crash %u, hang %u, silent wrong %u",
                  tried, finished, clear_error, killed, reruns, crash, hang, wrong);
    return text;
  }
};

// Every final output that exists equals the reference (a run may have published some outputs
// before it was stopped; none is ever half-written). Returns how many differ.
unsigned check_finals(const World& world, const Command& c, const std::map<std::string, std::string>& reference,
                      const std::string& context) {
  unsigned wrong = 0;
  for (const auto& name : c.outputs) {
    const std::string path = world.out() + "/" + name;
    if (!fs::exists(path)) continue;
    std::string content;
    try {
      content = content_of(path);
    } catch (const std::exception& e) {
      content = std::string("unreadable: ") + e.what();
    }
    if (content != reference.at(name)) {
      ADD_FAILURE() << context << ": " << name << " differs from the undisturbed run's";
      ++wrong;
    }
  }
  return wrong;
}

void expect_all_outputs(const World& world, const Command& c, const std::string& context) {
  for (const auto& name : c.outputs) EXPECT_TRUE(fs::exists(world.out() + "/" + name)) << context << ": " << name;
}

// Counts a run that exited (`o`): it left nothing behind, and either finished with every output or
// stopped with a clear error. Returns whether it finished.
bool count_exit(const World& world, const Command& c, const Outcome& o, const std::string& context, Counts& counts) {
  EXPECT_TRUE(world.leftovers().empty()) << context << " (" << o.describe() << "): " << joined(world.leftovers());
  if (o.code == 0) {
    ++counts.finished;
    expect_all_outputs(world, c, context);
    return true;
  }
  ++counts.clear_error;
  return false;
}

// Classifies an outcome that is not a hang: a crash (a signal other than `allowed`, an exit code
// other than 0 and 1, an internal error, more than one line) fails the case.
bool crashed(const Outcome& o, int allowed_signal, const std::string& context) {
  const bool bad_signal = !o.exited && o.signal != allowed_signal;
  const bool bad_exit = o.exited && o.code != 0 && o.code != 1;
  const bool bad_text = o.exited && o.code == 1 && (!one_line(o.err) || contains(o.err, "internal error"));
  if (bad_signal || bad_exit || bad_text) {
    ADD_FAILURE() << context << ": " << o.describe() << ", stderr: " << o.err;
    return true;
  }
  return false;
}

// ---- signals at random points --------------------------------------------------------------------

enum class Fault { Interrupt, DoubleInterrupt, Terminate, Kill };

const char* fault_name(Fault f) {
  switch (f) {
    case Fault::Interrupt: return "SIGINT";
    case Fault::DoubleInterrupt: return "double SIGINT";
    case Fault::Terminate: return "SIGTERM";
    case Fault::Kill: return "SIGKILL";
  }
  return "?";
}

void signal_campaign(const std::string& command_name, std::uint64_t seed) {
  World world;
  const Command command = world.command(command_name);
  ASSERT_EQ(command.name, command_name);
  double reference_seconds = 0;
  const auto reference = world.reference(command, &reference_seconds);
  // Before main() installs the handler (exec, the dynamic loader: about as long as `terrazo
  // --version`) a signal takes the default action. Points are drawn in the run's work after that.
  const double startup = std::min(world.startup_seconds(), 0.5 * reference_seconds);
  const double work = std::max(0.01, reference_seconds - startup);
  std::mt19937_64 random(seed + env_number("TERRAZO_FAULT_SEED", 0));
  const unsigned trials = env_number("TERRAZO_FAULT_TRIALS", 3);
  Counts counts;
  unsigned handled = 0;
  for (Fault fault : {Fault::Interrupt, Fault::DoubleInterrupt, Fault::Terminate, Fault::Kill}) {
    for (unsigned trial = 0; trial < trials; ++trial) {
      world.clear_outputs();
      ASSERT_TRUE(world.leftovers().empty()) << joined(world.leftovers());
      // Trial 0: at once when the handler is in place (the first progress update sees it: the
      // handled path, deterministically). Trial 2: from exec, anywhere in the first 0.9 of the
      // run (it may land before main()). Others: anywhere in the first 0.9 of the work after the
      // handler is in place (after the last progress update a run finishes).
      const bool from_exec = trial % 3 == 2;
      const double at = trial == 0 ? 0.0
                        : from_exec ? std::uniform_real_distribution<double>(0.0, 0.9 * reference_seconds)(random)
                                    : std::uniform_real_distribution<double>(0.0, 0.9 * work)(random);
      const double second_after = std::uniform_real_distribution<double>(0.0, 0.05)(random);
      const std::string context = command_name + ", " + fault_name(fault) + " at " + std::to_string(at) + " s" +
                                  (from_exec ? " from exec" : " after the handler");
      const int sig = fault == Fault::Terminate ? SIGTERM : fault == Fault::Kill ? SIGKILL : SIGINT;
      Outcome o;
      {
        Child child(world.argv_of(command, world.out()));
        if (!from_exec) {
          ASSERT_TRUE(child.wait_for_handler()) << context;
        }
        std::this_thread::sleep_for(std::chrono::duration<double>(at));
        kill(child.pid(), sig);
        if (fault == Fault::DoubleInterrupt) {
          std::this_thread::sleep_for(std::chrono::duration<double>(second_after));
          kill(child.pid(), SIGINT);
        }
        o = child.wait();
      }
      ++counts.tried;
      if (std::getenv("TERRAZO_FAULT_VERBOSE"))
        std::printf("  %s (startup %.3f s, reference %.3f s): %s after %.3f s\n", context.c_str(), startup,
                    reference_seconds, o.describe().c_str(), o.seconds);
      if (o.hung) {
        ++counts.hang;
        ADD_FAILURE() << context << ": no end within 120 s";
        continue;
      }
      if (crashed(o, sig, context)) {
        ++counts.crash;
        continue;
      }
      counts.wrong += check_finals(world, command, reference, context);
      if (o.exited) {
        if (!count_exit(world, command, o, context, counts)) {
          ++handled;
          EXPECT_TRUE(contains(o.err, "interrupted")) << context << ": " << o.err;
        }
        continue;
      }
      // Killed by the signal: whatever it left, the next run cleans and succeeds.
      ++counts.killed;
      const Outcome rerun = world.run(world.argv_of(command, world.out()));
      ++counts.reruns;
      ASSERT_TRUE(rerun.exited && rerun.code == 0) << context << ", rerun: " << rerun.describe() << " " << rerun.err;
      expect_all_outputs(world, command, context + ", rerun");
      counts.wrong += check_finals(world, command, reference, context + ", rerun");
      EXPECT_TRUE(world.leftovers().empty()) << context << ", after the rerun: " << joined(world.leftovers());
    }
  }
  std::printf("fault campaign %s (seed %llu, %u trials per kind): %s\n", command_name.c_str(),
              static_cast<unsigned long long>(seed + env_number("TERRAZO_FAULT_SEED", 0)), trials, counts.line().c_str());
  EXPECT_EQ(counts.crash + counts.hang + counts.wrong, 0u) << counts.line();
  // The campaign must have reached the handled path: at least one run stopped by its handler.
  EXPECT_GT(handled, 0u) << "no signal landed inside the run: " << counts.line();
}

// ---- disk full ------------------------------------------------------------------------------------

// Limits drawn up to the size of the largest output of an undisturbed run.
void disk_full_campaign(const std::string& command_name, std::uint64_t seed) {
  World world(350, 300);
  const Command command = world.command(command_name);
  ASSERT_EQ(command.name, command_name);
  double reference_seconds = 0;
  const auto reference = world.reference(command, &reference_seconds);
  std::uint64_t largest = 0;
  for (const auto& [name, content] : reference)
    largest = std::max<std::uint64_t>(largest, fs::file_size(world.file("ref-" + command_name) + "/" + name));
  std::mt19937_64 random(seed + env_number("TERRAZO_FAULT_SEED", 0));
  const unsigned trials = 2 * env_number("TERRAZO_FAULT_TRIALS", 3);
  Counts counts;
  for (unsigned trial = 0; trial < trials; ++trial) {
    world.clear_outputs();
    // From a few bytes (the first header write fails) to past the largest output (a run that may
    // finish, when its scratch files fit too).
    const double fraction = std::uniform_real_distribution<double>(0.0, 1.2)(random);
    SpawnOptions options;
    options.file_size_limit = static_cast<rlim_t>(1 + fraction * fraction * static_cast<double>(largest));
    const std::string context = command_name + ", files limited to " + std::to_string(options.file_size_limit) + " bytes";
    const Outcome o = world.run(world.argv_of(command, world.out()), options);
    ++counts.tried;
    if (o.hung) {
      ++counts.hang;
      ADD_FAILURE() << context << ": no end within 120 s";
      continue;
    }
    if (crashed(o, 0, context)) {
      ++counts.crash;
      continue;
    }
    counts.wrong += check_finals(world, command, reference, context);
    count_exit(world, command, o, context, counts);
  }
  std::printf("disk-full campaign %s (seed %llu, %u trials): %s\n", command_name.c_str(),
              static_cast<unsigned long long>(seed + env_number("TERRAZO_FAULT_SEED", 0)), trials, counts.line().c_str());
  EXPECT_EQ(counts.crash + counts.hang + counts.wrong, 0u) << counts.line();
  EXPECT_GT(counts.clear_error, 0u) << "no limit was small enough to fail a write: " << counts.line();
}

}  // namespace

// One case per command and kind of fault (each its own ctest entry, label `fault`).
TEST(FaultSignals, Gen) { signal_campaign("gen", 101); }
TEST(FaultSignals, Import) { signal_campaign("import", 102); }
TEST(FaultSignals, Export) { signal_campaign("export", 103); }
TEST(FaultSignals, Info) { signal_campaign("info", 104); }
TEST(FaultSignals, Mst) { signal_campaign("mst", 105); }
TEST(FaultSignals, Sssp) { signal_campaign("sssp", 106); }
TEST(FaultSignals, Path) { signal_campaign("path", 107); }
TEST(FaultSignals, Clump) { signal_campaign("clump", 108); }

TEST(FaultDiskFull, Gen) { disk_full_campaign("gen", 201); }
TEST(FaultDiskFull, Import) { disk_full_campaign("import", 202); }
TEST(FaultDiskFull, Export) { disk_full_campaign("export", 203); }
TEST(FaultDiskFull, Mst) { disk_full_campaign("mst", 205); }
TEST(FaultDiskFull, Sssp) { disk_full_campaign("sssp", 206); }
TEST(FaultDiskFull, Path) { disk_full_campaign("path", 207); }
TEST(FaultDiskFull, Clump) { disk_full_campaign("clump", 208); }

// Every command writing outputs, into a directory it may not write: one line naming the output,
// exit 1 or 2, nothing created, no run directory left. (Root writes anywhere: the child then runs
// as nobody, for whom the root-owned directory is read-only.)
TEST(FaultUnwritableOutput, EveryCommandFailsCleanly) {
  World world(350, 300);
  const std::string locked = world.file("locked");
  fs::create_directory(locked);
  ::chmod(locked.c_str(), 0555);
  SpawnOptions options;
  options.as_nobody = geteuid() == 0;
  for (const Command& c : world.commands()) {
    if (c.outputs.empty()) continue;
    const Outcome o = world.run(world.argv_of(c, locked), options);
    ASSERT_FALSE(o.hung) << c.name;
    EXPECT_TRUE(o.exited && (o.code == 1 || o.code == 2)) << c.name << ": " << o.describe() << " " << o.err;
    EXPECT_TRUE(one_line(o.err)) << c.name << ": " << o.err;
    EXPECT_FALSE(contains(o.err, "internal error")) << c.name << ": " << o.err;
    EXPECT_TRUE(contains(o.err, locked)) << c.name << ": " << o.err;
    EXPECT_TRUE(fs::is_empty(locked)) << c.name;
    EXPECT_TRUE(world.leftovers().empty()) << c.name << ": " << joined(world.leftovers());
  }
}

// Reproducer (issue 15, item 1) with two processes: runs writing one path at once, the second
// started at a random point of the first. Both exit 0 and the file is the whole result of one.
TEST(FaultRace, TwoRunsOnOneOutputPathEachPublishAWholeFile) {
  World world;
  std::mt19937_64 random(301 + env_number("TERRAZO_FAULT_SEED", 0));
  const unsigned trials = 2 * env_number("TERRAZO_FAULT_TRIALS", 3);
  for (const std::string command : {"gen", "sssp"}) {
    Command a, b;
    for (const auto& c : world.commands())
      if (c.name == command) a = b = c;
    // b: another seed, or other sources; the same outputs.
    for (auto& arg : b.args) {
      if (arg == "9") arg = "10";
      if (arg == "100,200") arg = "400,400";
    }
    b.name += "-b";
    double seconds_a = 0, seconds_b = 0;
    const auto reference_a = world.reference(a, &seconds_a), reference_b = world.reference(b, &seconds_b);
    ASSERT_NE(reference_a, reference_b);
    for (unsigned trial = 0; trial < trials; ++trial) {
      world.clear_outputs();
      const double at = std::uniform_real_distribution<double>(0.0, seconds_a)(random);
      Child first(world.argv_of(a, world.out()));
      std::this_thread::sleep_for(std::chrono::duration<double>(at));
      Child second(world.argv_of(b, world.out()));
      const Outcome oa = first.wait(), ob = second.wait();
      const std::string context = command + ", second run at " + std::to_string(at) + " s";
      ASSERT_TRUE(oa.exited && oa.code == 0) << context << ": " << oa.describe() << " " << oa.err;
      ASSERT_TRUE(ob.exited && ob.code == 0) << context << ": " << ob.describe() << " " << ob.err;
      for (const auto& name : a.outputs) {
        const std::string content = content_of(world.out() + "/" + name);
        EXPECT_TRUE(content == reference_a.at(name) || content == reference_b.at(name)) << context << ": " << name;
      }
      EXPECT_TRUE(world.leftovers().empty()) << context << ": " << joined(world.leftovers());
    }
  }
}
