#include "gdal/external_memory.h"

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <mutex>
#include <stxxl/bits/mng/block_manager.h>
#include <stxxl/bits/mng/config.h>

#include "core/error.h"

namespace terrazo {

namespace {

std::mutex setup_mutex;
bool configured = false;
std::string disk_file, log_file;

// Configures STXXL's disk and logs, and starts its block manager with stdout redirected, so the
// version banner and "Disk ... is allocated" lines land in STXXL's log, not on stdout.
void configure_stxxl(const std::string& scratch_dir) {
  disk_file = scratch_dir + "/stxxl.disk";
  log_file = scratch_dir + "/stxxl.log";
  // The logger opens these when STXXL is first touched (overwrite: the run owns its directory).
  ::setenv("STXXLLOGFILE", log_file.c_str(), 1);
  ::setenv("STXXLERRLOGFILE", (scratch_dir + "/stxxl.errlog").c_str(), 1);
  std::ofstream banner(scratch_dir + "/stxxl.banner");
  std::streambuf* saved = std::cout.rdbuf(banner.rdbuf());
  try {
    stxxl::config* config = stxxl::config::get_instance();
    // Size 0 with autogrow: the file grows with what containers write; unlink: deleted at open.
    stxxl::disk_config disk(disk_file, 0, "syscall autogrow unlink");
    disk.autogrow = true;
    disk.unlink_on_open = true;
    disk.delete_on_exit = false;
    config->add_disk(disk);
    stxxl::block_manager::get_instance();
  } catch (const std::exception& e) {
    std::cout.rdbuf(saved);
    throw Error("cannot set up external memory (STXXL) in '" + scratch_dir + "': " + e.what());
  }
  std::cout.rdbuf(saved);
  configured = true;
}

}  // namespace

ExternalMemory::ExternalMemory(const std::string& scratch_dir, MemoryBudget& budget, std::uint64_t internal_bytes)
    : reservation_(budget.reserve(internal_bytes, "STXXL internal memory")) {
  std::lock_guard<std::mutex> lock(setup_mutex);
  if (!configured) configure_stxxl(scratch_dir);
}

ExternalMemory::~ExternalMemory() = default;

std::uint64_t ExternalMemory::take(std::uint64_t bytes, std::string_view what) {
  if (bytes > available())
    throw Error("external memory too small: " + std::string(what) + " needs " + MemoryBudget::format_size(bytes) +
                " but only " + MemoryBudget::format_size(available()) + " of the " +
                MemoryBudget::format_size(internal_bytes()) + " reserved for STXXL is left; raise --memory");
  taken_ += bytes;
  return bytes;
}

void ExternalMemory::give_back(std::uint64_t bytes) { taken_ -= bytes < taken_ ? bytes : taken_; }

std::string ExternalMemory::disk_path() {
  std::lock_guard<std::mutex> lock(setup_mutex);
  return disk_file;
}

std::string ExternalMemory::log_path() {
  std::lock_guard<std::mutex> lock(setup_mutex);
  return log_file;
}

}  // namespace terrazo
