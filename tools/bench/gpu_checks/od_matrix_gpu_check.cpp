// tools/bench/gpu_checks/od_matrix_gpu_check.cpp: od-matrix with the index, the G' exchange's min-plus
// products on the GPU (IndexMatrixTilesCuda, engine/index/gprime_tiles.h) against the same query on
// the CPU, against od-matrix without the index (batched in-tile solves) and against the in-memory
// Dijkstra oracle, on the GPU machine, where GDAL is not installed. Random rasters with nodata walls
// and islands, point sites and region sites, tiles of 16 and 32, GPU rounds of 1, 3 and 512 tiles, 8-
// and 4-connectivity, --max-cost; the G' exchange as the queue (CPU, GPU) and in resident
// Bellman-Ford rounds (CPU, GPU: GPrimeRounds, engine/index/gprime_round_loop.h); every matrix must be
// equal bit for bit. Then (--side N) one timing on a smooth synthetic terrain: the index build on
// the GPU (CPU without one) and the query every way.
//
// Build here (GDAL-free: CMake target terrazo_od_matrix_gpu_check), carry it, run it there:
//   terrazo_od_matrix_gpu_check [--side N] [--tile T] [--sites K] [--scratch DIR] [--threads N]
//                               [--skip cpu-queue|cpu-rounds|gpu-queue|no-index|random]... (parts left out)
//                               [--windows W1,W2,...] (label windows of the GPU rounds timed; default
//                               the dispatch's, OdQueryOptions::round_window)
// Exit status 0 when every comparison holds; one line per check.
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "kernels/common/memory_budget.h"
#include "kernels/common/progress.h"
#include "engine/index/build_index.h"
#include "engine/index/od_matrix.h"
#include "kernels/common/cuda_device.h"
#include "io/store/index_file.h"
#include "tests/support/memory_tile_input.h"
#include "tests/support/sssp_reference.h"

namespace terrazo {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();


double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

std::string build(const MemoryTileInput<>& input, const std::string& path, const WeightParams& params, Connectivity c, Device device,
                  unsigned threads, double* seconds) {
  IndexFileHeader header;
  header.width = input.grid().width;
  header.height = input.grid().height;
  header.tile = input.grid().tile;
  header.leaf = 8;
  header.model = params.model;
  header.connectivity = c;
  header.scale = params.scale;
  header.offset = params.offset;
  MemoryBudget budget(8ull << 30);
  const double start = now();
  IndexFileWriter writer(path, header, budget);
  IndexBuildOptions bo;
  bo.params = params;
  bo.connectivity = c;
  bo.device = device;
  bo.threads = threads;
  const IndexBuildStats stats = build_index(input, writer, bo, budget, Progress::silent());
  writer.finish();
  if (seconds) *seconds = now() - start;
  if (seconds)
    std::printf("     index build phases: matrices %.2f s (kernels %.2f s), read %.2f s, write %.2f s, %llu batches of %llu tiles\n",
                stats.matrix_seconds, stats.kernel_ms / 1000.0, stats.read_seconds, stats.write_seconds,
                static_cast<unsigned long long>(stats.batches), static_cast<unsigned long long>(stats.batch_tiles));
  return path;
}

std::vector<PathLength> query(const MemoryTileInput<>& input, const IndexFile* index, const std::vector<OdSite>& sites,
                              OdQueryOptions qo, Device device, std::uint64_t round_tiles, std::uint64_t memory,
                              OdQueryStats* stats, double* seconds, OdExchange exchange = OdExchange::Queue) {
  qo.device = device;
  qo.exchange = exchange;
  qo.round_tiles = round_tiles;
  MemoryBudget budget(memory);
  const double start = now();
  auto out = index ? od_matrix_by_index(input, *index, sites, qo, budget, Progress::silent(), stats)
                   : od_matrix_by_exchange(input, sites, qo, budget, Progress::silent(), stats);
  if (seconds) *seconds = now() - start;
  return out;
}

int failures = 0;
void check(bool ok, const std::string& what) {
  std::printf("%s %s\n", ok ? "ok  " : "FAIL", what.c_str());
  if (!ok) ++failures;
}

// The command line (header above).
struct CheckArgs {
  std::uint64_t side = 0, k_sites = 100;
  std::uint32_t tile = 64;
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::string scratch = "/tmp";
  // which timings run (--skip cpu-queue|cpu-rounds|gpu-queue|no-index|random); without the CPU queue (the
  // reference) the others are timed but not compared
  bool cpu_queue = true, cpu_rounds = true, gpu_queue = true, no_index = false, random = true;
  std::vector<double> windows = {OdQueryOptions{}.round_window};
};

// False (after a line saying why) on an unknown flag.
bool parse_args(int argc, char** argv, CheckArgs& a) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--side") a.side = std::strtoull(argv[i + 1], nullptr, 10);
    else if (flag == "--tile") a.tile = static_cast<std::uint32_t>(std::strtoul(argv[i + 1], nullptr, 10));
    else if (flag == "--sites") a.k_sites = std::strtoull(argv[i + 1], nullptr, 10);
    else if (flag == "--threads") a.threads = static_cast<unsigned>(std::strtoul(argv[i + 1], nullptr, 10));
    else if (flag == "--scratch") a.scratch = argv[i + 1];
    else if (flag == "--windows") {  // label windows of the GPU rounds to time, comma-separated (tile crossings)
      a.windows.clear();
      for (const char* p = argv[i + 1]; *p;) {
        char* end = nullptr;
        a.windows.push_back(std::strtod(p, &end));
        p = *end == ',' ? end + 1 : end;
        if (end == p && *p) break;
      }
    }
    else if (flag == "--skip") {
      const std::string what = argv[i + 1];
      a.cpu_rounds = a.cpu_rounds && what != "cpu-rounds";
      a.cpu_queue = a.cpu_queue && what != "cpu-queue";
      a.gpu_queue = a.gpu_queue && what != "gpu-queue";
      a.no_index = a.no_index || what == "no-index";
      a.random = a.random && what != "random";
    }
    else {
      std::printf("unknown flag %s\n", argv[i]);
      return false;
    }
  }
  return true;
}

// One random raster of part 1: values with a nodata wall (one gap) and a closed island, every
// other round with tile (0, 0) all nodata and tile (0, 1) ringed with nodata; point sites, one in
// the island, and every other round a region site of scattered cells.
struct RandomCase {
  std::uint32_t t = 0;
  std::uint64_t w = 0, h = 0;
  std::vector<double> values;
  WeightParams params;
  Connectivity c = Connectivity::Eight;
  std::vector<OdSite> sites;
};

RandomCase make_random_case(std::mt19937_64& rng, int round) {
  RandomCase r;
  r.t = round % 2 ? 16 : 32;
  const std::uint32_t t = r.t;
  const std::uint64_t w = 40 + rng() % 90, h = 40 + rng() % 90;
  r.w = w;
  r.h = h;
  std::vector<double>& values = r.values;
  values.resize(w * h);
  for (auto& v : values) v = 1.0 + static_cast<double>(rng() % 1000) / 100.0;
  // A nodata wall with one gap and a closed island.
  const std::uint64_t wall = w / 3 + rng() % (w / 3), gap = rng() % h;
  for (std::uint64_t y = 0; y < h; ++y)
    if (y != gap) values[y * w + wall] = kNaN;
  for (std::uint64_t x = w - 8; x < w - 1; ++x) values[(h - 8) * w + x] = values[(h - 2) * w + x] = kNaN;
  for (std::uint64_t y = h - 8; y < h - 1; ++y) values[y * w + w - 8] = values[y * w + w - 2] = kNaN;
  if (round % 2 == 0 && h >= 2 * t) {
    // Tile (0, 0) all nodata (absent from the input: no slot), and tile (0, 1) with a nodata ring
    // around valid cells (in the input, not in an index: a slot that must never be active).
    for (std::uint64_t y = 0; y < 2 * t; ++y)
      for (std::uint64_t x = 0; x < t; ++x)
        if (y < t || x == 0 || x == t - 1 || y == t || y == 2 * t - 1) values[y * w + x] = kNaN;
  }
  r.params.model = static_cast<WeightModel>(rng() % 3);
  r.params.scale = 1000;
  r.c = round % 3 == 0 ? Connectivity::Four : Connectivity::Eight;
  auto valid = [&]() {
    for (;;) {
      const std::uint64_t cell = rng() % (w * h);
      if (!std::isnan(values[cell])) return cell;
    }
  };
  std::vector<OdSite>& sites = r.sites;
  const std::uint64_t k = 3 + rng() % 6;
  for (std::uint64_t i = 0; i < k; ++i) sites.push_back(OdSite{{valid()}, "site " + std::to_string(i + 1)});
  sites.push_back(OdSite{{(h - 5) * w + w - 5}, "island"});  // inside the closed island
  if (std::isnan(values[sites.back().cells[0]])) sites.pop_back();
  if (round % 2 == 0) {  // a region site: a few scattered cells
    OdSite region{{}, "region"};
    for (int i = 0; i < 5; ++i) region.cells.push_back(valid());
    sites.push_back(region);
  }
  return r;
}

// Oracle: multi-source Dijkstra from each site's cells; costs above max_cost unreached.
std::vector<PathLength> oracle_matrix(const RandomCase& r, PathLength max_cost) {
  const std::vector<OdSite>& sites = r.sites;
  std::vector<PathLength> oracle(sites.size() * sites.size(), kUnreached);
  for (std::size_t i = 0; i < sites.size(); ++i) {
    testing::SsspReferenceProblem p = testing::reference_problem(r.w, r.h, r.values.data(), r.params, r.c);
    p.max_cost = max_cost;
    std::vector<std::pair<std::uint64_t, std::uint32_t>> cells;
    for (std::uint64_t cell : sites[i].cells) cells.push_back({cell, 1});
    testing::set_reference_sources(p, cells);
    testing::sssp_reference(p);
    for (std::size_t j = 0; j < sites.size(); ++j)
      for (std::uint64_t cell : sites[j].cells) oracle[i * sites.size() + j] = std::min(oracle[i * sites.size() + j], p.dist[cell]);
  }
  for (auto& d : oracle)
    if (d > max_cost) d = kUnreached;
  return oracle;
}

// The GPU's queries of one random raster against the CPU's matrix `cpu`: the queue in rounds of 1,
// 3 and 512 tiles, the resident rounds, the index built on the GPU into the rounds' memory.
void check_gpu_round(const MemoryTileInput<>& input, const IndexFile& index, const std::vector<OdSite>& sites,
                     OdQueryOptions qo, int round, const std::vector<PathLength>& cpu, const std::string& what) {
  for (std::uint64_t rt : {1ull, 3ull, 512ull})
    check(query(input, &index, sites, qo, Device::Cuda, rt, 1ull << 30, nullptr, nullptr) == cpu,
          what + ": index on the GPU, rounds of " + std::to_string(rt) + " tiles = CPU");
  OdQueryStats rs;
  qo.max_batch = round % 3 == 0 ? 2 : 0;
  qo.round_window = round % 2 ? 0.7 : 0.0;
  const bool resident_same = query(input, &index, sites, qo, Device::Cuda, 0, 1ull << 30, &rs, nullptr, OdExchange::Auto) == cpu;
  check(resident_same && rs.exchange == "rounds-gpu",
        what + ": index, resident rounds on the GPU (" + rs.exchange + ", batch " + std::to_string(rs.batch_sources) + ") = CPU");
  // No index file: the matrices built on the GPU straight into the rounds' memory.
  OdQueryStats gs;
  qo.device = Device::Cuda;
  MemoryBudget gpu_budget(1ull << 30);
  const bool gpu_index_same = od_matrix_by_gpu_index(input, sites, qo, gpu_budget, Progress::silent(), &gs) == cpu;
  check(gpu_index_same && gs.exchange == "rounds-gpu",
        what + ": index built on the GPU into the rounds' memory (batch " + std::to_string(gs.batch_sources) + ", window " +
            std::to_string(qo.round_window) + ") = CPU");
  check(gpu_budget.reserved() == 0, what + ": index built on the GPU: every reservation returned");
}

// Part 1, one random raster: the index's query on the CPU, the exchange without an index and the
// CPU's rounds against the oracle, then the GPU's against the CPU.
void check_random_round(std::mt19937_64& rng, int round, const std::string& dir, bool gpu) {
  const RandomCase r = make_random_case(rng, round);
  MemoryTileInput input(r.values, r.w, r.h, r.t,
                        round % 2 ? MemoryTileInput<>::Absent::Never : MemoryTileInput<>::Absent::WhenNoValidCell);
  OdQueryOptions qo;
  qo.params = r.params;
  qo.connectivity = r.c;
  qo.threads = 2;
  if (round % 4 == 3) qo.max_cost = 40000;
  const std::string path = build(input, dir + "/r" + std::to_string(round) + ".tzi", r.params, r.c, Device::Cpu, 2, nullptr);
  MemoryBudget budget(1ull << 30);
  auto index = IndexFile::open(path, budget);
  const auto cpu = query(input, index.get(), r.sites, qo, Device::Cpu, 0, 1ull << 30, nullptr, nullptr);
  const auto exchange = query(input, nullptr, r.sites, qo, Device::Cpu, 0, 1ull << 30, nullptr, nullptr);
  const std::vector<PathLength> oracle = oracle_matrix(r, qo.max_cost);
  const std::string what = "raster " + std::to_string(r.w) + "x" + std::to_string(r.h) + " t " + std::to_string(r.t) + " " +
                           to_string(r.params.model) + " " + std::to_string(static_cast<int>(r.c)) + " K " +
                           std::to_string(r.sites.size());
  check(cpu == oracle, what + ": index (CPU) = oracle");
  check(exchange == oracle, what + ": no index (batched in-tile solves) = oracle");
  check(query(input, index.get(), r.sites, qo, Device::Cpu, 0, 1ull << 30, nullptr, nullptr, OdExchange::Rounds) == cpu,
        what + ": index, Bellman-Ford rounds on the CPU = queue");
  if (gpu) check_gpu_round(input, *index, r.sites, qo, round, cpu, what);
}

// The matrices of part 2, timed; the first (the CPU queue's, unless skipped) is the reference of
// the others.
struct BigTiming {
  const CheckArgs& a;
  const MemoryTileInput<>& input;
  const IndexFile& index;
  const std::vector<OdSite>& sites;
  OdQueryOptions qo;
  std::uint64_t memory = 32ull << 30;
  std::vector<PathLength> reference;

  void same(const std::vector<PathLength>& got, const std::string& what) {
    if (reference.empty()) {
      reference = got;
      std::printf("     %s: the reference (--skip cpu-queue)\n", what.c_str());
    } else {
      check(got == reference, what + (a.cpu_queue ? "" : " (= the first matrix timed)"));
    }
  }
};

void time_cpu_queries(BigTiming& b) {
  const CheckArgs& a = b.a;
  if (a.cpu_queue) {
    OdQueryStats sc;
    double qc = 0;
    b.reference = query(b.input, &b.index, b.sites, b.qo, Device::Cpu, 0, b.memory, &sc, &qc);
    std::printf("od-matrix K %llu index cpu queue (%u threads): %.2f s (sites %.2f, queries %.2f), %llu tile solves, batch %llu\n",
                static_cast<unsigned long long>(a.k_sites), a.threads, qc, sc.seconds_sites, sc.seconds_queries,
                static_cast<unsigned long long>(sc.tile_solves), static_cast<unsigned long long>(sc.batch_sources));
  }
  if (a.cpu_rounds) {
    OdQueryStats sr;
    double qr = 0;
    const auto r = query(b.input, &b.index, b.sites, b.qo, Device::Cpu, 0, b.memory, &sr, &qr, OdExchange::Rounds);
    std::printf("od-matrix K %llu index cpu rounds (%u threads): %.2f s (queries %.2f), %llu tile solves, %llu rounds, batch %llu\n",
                static_cast<unsigned long long>(a.k_sites), a.threads, qr, sr.seconds_queries,
                static_cast<unsigned long long>(sr.tile_solves), static_cast<unsigned long long>(sr.rounds),
                static_cast<unsigned long long>(sr.batch_sources));
    b.same(r, "big: index, rounds on the CPU = queue");
  }
}

void time_gpu_queries(BigTiming& b) {
  const CheckArgs& a = b.a;
  for (double window : a.windows) {
    OdQueryStats sr;
    double qr = 0;
    b.qo.round_window = window;
    const auto r = query(b.input, &b.index, b.sites, b.qo, Device::Cuda, 0, b.memory, &sr, &qr, OdExchange::Auto);
    b.qo.round_window = OdQueryOptions{}.round_window;
    std::printf("od-matrix K %llu index cuda %s window %.2f: %.2f s (queries %.2f, kernels %.2f s), %llu tile solves, %llu rounds, max %llu active, "
                "batch %llu, %llu uploads\n",
                static_cast<unsigned long long>(a.k_sites), sr.exchange.c_str(), window, qr, sr.seconds_queries, sr.kernel_ms / 1000,
                static_cast<unsigned long long>(sr.tile_solves), static_cast<unsigned long long>(sr.rounds),
                static_cast<unsigned long long>(sr.max_active), static_cast<unsigned long long>(sr.batch_sources),
                static_cast<unsigned long long>(sr.gpu_uploads));
    b.same(r, "big: index on the GPU (" + sr.exchange + ", window " + std::to_string(window) + ") = CPU");
  }
  if (a.gpu_queue) {
    OdQueryStats sg;
    double qg = 0;
    const auto g = query(b.input, &b.index, b.sites, b.qo, Device::Cuda, 0, b.memory, &sg, &qg);
    std::printf("od-matrix K %llu index cuda queue: %.2f s (queries %.2f, kernels %.2f s), %llu tile solves, %llu rounds, %llu uploads\n",
                static_cast<unsigned long long>(a.k_sites), qg, sg.seconds_queries, sg.kernel_ms / 1000,
                static_cast<unsigned long long>(sg.tile_solves), static_cast<unsigned long long>(sg.rounds),
                static_cast<unsigned long long>(sg.gpu_uploads));
    b.same(g, "big: index on the GPU (queue) = CPU");
  }
}

// Part 2: the index build and the query every way, timed on a smooth synthetic terrain of side^2 cells.
void time_big_terrain(const CheckArgs& a, std::mt19937_64& rng, const std::string& dir, bool gpu) {
  const std::uint64_t side = a.side;
  std::vector<double> values(side * side);
  for (std::uint64_t y = 0; y < side; ++y)
    for (std::uint64_t x = 0; x < side; ++x)
      values[y * side + x] = 2.0 + std::sin(x * 0.013) * std::cos(y * 0.011) + 0.5 * std::sin((x + 2 * y) * 0.071) +
                             static_cast<double>(rng() % 100) / 400.0;
  MemoryTileInput input(values, side, side, a.tile, MemoryTileInput<>::Absent::Never);
  WeightParams params;
  params.scale = 1e6;
  std::vector<OdSite> sites;
  std::mt19937_64 srng(11);
  for (std::uint64_t i = 0; i < a.k_sites; ++i) sites.push_back(OdSite{{srng() % (side * side)}, "site"});
  double t_gpu = 0, t_cpu = 0;
  if (gpu) build(input, dir + "/big.tzi", params, Connectivity::Eight, Device::Cuda, a.threads, &t_gpu);
  else build(input, dir + "/big.tzi", params, Connectivity::Eight, Device::Cpu, a.threads, &t_cpu);
  std::printf("index build %llu^2 t %u: %s %.2f s\n", static_cast<unsigned long long>(side), a.tile, gpu ? "cuda" : "cpu",
              gpu ? t_gpu : t_cpu);
  MemoryBudget budget(1ull << 30);
  auto index = IndexFile::open(dir + "/big.tzi", budget);
  BigTiming b{a, input, *index, sites, OdQueryOptions{}, 32ull << 30, {}};
  b.qo.params = params;
  b.qo.threads = a.threads;
  time_cpu_queries(b);
  if (gpu) time_gpu_queries(b);
  if (!a.no_index) {
    OdQueryStats sx;
    double qx = 0;
    const auto x = query(input, nullptr, sites, b.qo, Device::Cpu, 0, b.memory, &sx, &qx);
    std::printf("od-matrix K %llu no index (batched, %u threads): %.2f s, %llu in-tile solves, batch %llu\n",
                static_cast<unsigned long long>(a.k_sites), a.threads, qx, static_cast<unsigned long long>(sx.exchange_solves),
                static_cast<unsigned long long>(sx.batch_sources));
    b.same(x, "big: no index = index");
  }
}

}  // namespace
}  // namespace terrazo

int main(int argc, char** argv) {
  using namespace terrazo;
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // one line at a time, also into a file
  CheckArgs a;
  if (!parse_args(argc, argv, a)) return 2;
  const bool gpu = cuda_device().available;
  std::printf("device: %s\n", gpu ? cuda_device().name.c_str() : ("none: " + cuda_device().reason).c_str());
  const std::string dir = a.scratch + "/od_gpu_check_" + std::to_string(getpid());
  if (std::system(("mkdir -p " + dir).c_str()) != 0) return 2;
  std::mt19937_64 rng(20261126);
  // 1. Random rasters against the oracle and CPU = GPU.
  for (int round = 0; round < (a.random ? 12 : 0); ++round) check_random_round(rng, round, dir, gpu);
  // 2. Timing on a smooth synthetic terrain.
  if (a.side > 0) time_big_terrain(a, rng, dir, gpu);
  std::system(("rm -rf " + dir).c_str());
  std::printf("%s: %d failures\n", failures ? "FAILED" : "PASSED", failures);
  return failures ? 1 : 0;
}
