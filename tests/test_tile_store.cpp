// Tests of io/store/tile_store.h: Morton and Z-order index math, write/read round trips on odd sizes and
// every cell type, absent tiles, and damaged files (corrupt header, index or tile, truncated,
// foreign, empty, wrong version), which must give terrazo::Error, never a crash or a wrong read.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "kernels/common/error.h"
#include "kernels/common/memory_budget.h"
#include "kernels/common/progress.h"
#include "io/store/tile_store.h"
#include "io/store/tile_store_retile.h"
#include "tests/support/test_support.h"

using namespace terrazo;
using terrazo::testing::TempDir;
using terrazo::testing::partial_files_of;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

std::vector<unsigned char> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<unsigned char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_bytes(const std::string& path, const std::vector<unsigned char>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

bool file_exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

// A raster held in memory as doubles (NaN = nodata), with values the given type can hold.
struct Raster {
  RasterInfo info;
  std::vector<double> cells;
  double at(std::uint64_t x, std::uint64_t y) const { return cells[y * info.width + x]; }
};

Raster make_raster(std::uint64_t width, std::uint64_t height, CellType type, bool has_nodata, double nodata,
                   double hole_share, std::uint32_t seed) {
  Raster r;
  r.info.width = width;
  r.info.height = height;
  r.info.type = type;
  r.info.has_nodata = has_nodata;
  r.info.nodata = nodata;
  r.info.has_geotransform = true;
  r.info.geotransform = {500000.0, 30.0, 0.0, 4100000.0, 0.0, -30.0};
  r.info.crs_wkt = "LOCAL_CS[\"terrazo test\",UNIT[\"metre\",1]]";
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  r.cells.resize(width * height);
  for (double& v : r.cells) {
    if (unit(rng) < hole_share) {
      v = kNaN;
      continue;
    }
    switch (type) {
      case CellType::UInt8: v = std::floor(unit(rng) * 250.0); break;  // 255 may be the nodata value
      case CellType::Int16: v = std::floor(unit(rng) * 20000.0) - 5000.0; break;
      case CellType::UInt16: v = std::floor(unit(rng) * 60000.0); break;
      case CellType::Int32: v = std::floor(unit(rng) * 4.0e9) - 2.0e9; break;
      case CellType::UInt32: v = std::floor(unit(rng) * 4.0e9); break;
      case CellType::Float32: v = static_cast<float>(unit(rng) * 8000.0 - 400.0); break;
      case CellType::Float64: v = unit(rng) * 8000.0 - 400.0; break;
    }
  }
  return r;
}

// Writes every tile of `r` (shuffled order) from doubles; returns the grid.
TileGrid write_store(const Raster& r, std::uint32_t tile, const std::string& path, std::uint32_t seed = 1) {
  TileStoreWriter writer(path, r.info, tile);
  const TileGrid grid = writer.grid();
  std::vector<std::pair<std::uint32_t, std::uint32_t>> order;
  for (std::uint32_t ty = 0; ty < grid.tiles_y(); ++ty)
    for (std::uint32_t tx = 0; tx < grid.tiles_x(); ++tx) order.emplace_back(tx, ty);
  std::shuffle(order.begin(), order.end(), std::mt19937(seed));
  std::vector<double> buffer(static_cast<std::size_t>(tile) * tile);
  for (auto [tx, ty] : order) {
    for (std::uint32_t row = 0; row < tile; ++row)
      for (std::uint32_t col = 0; col < tile; ++col) {
        const std::uint64_t x = static_cast<std::uint64_t>(tx) * tile + col, y = static_cast<std::uint64_t>(ty) * tile + row;
        // Padding cells get arbitrary values: the writer must ignore them.
        buffer[row * tile + col] = (x < r.info.width && y < r.info.height) ? r.at(x, y) : 12345.0;
      }
    writer.write_tile(tx, ty, buffer.data());
  }
  writer.finish();
  return grid;
}

void expect_same_values(const Raster& r, const TileStore& store) {
  const std::uint32_t t = store.tile();
  std::vector<double> tile(static_cast<std::size_t>(t) * t);
  std::uint64_t mismatches = 0;
  for (std::uint32_t ty = 0; ty < store.grid().tiles_y(); ++ty)
    for (std::uint32_t tx = 0; tx < store.grid().tiles_x(); ++tx) {
      store.read_tile(tx, ty, tile.data());
      for (std::uint32_t row = 0; row < t; ++row)
        for (std::uint32_t col = 0; col < t; ++col) {
          const std::uint64_t x = static_cast<std::uint64_t>(tx) * t + col, y = static_cast<std::uint64_t>(ty) * t + row;
          const double got = tile[row * t + col];
          if (x >= r.info.width || y >= r.info.height) {
            mismatches += !std::isnan(got);  // padding reads as nodata
            continue;
          }
          const double want = r.at(x, y);
          mismatches += std::isnan(want) ? !std::isnan(got) : !(got == want);
        }
    }
  EXPECT_EQ(mismatches, 0u);
}

}  // namespace

// ---- Morton and Z-order math -------------------------------------------------------------------

TEST(Morton, KnownCodes) {
  EXPECT_EQ(morton_encode(0, 0), 0u);
  EXPECT_EQ(morton_encode(1, 0), 1u);
  EXPECT_EQ(morton_encode(0, 1), 2u);
  EXPECT_EQ(morton_encode(1, 1), 3u);
  EXPECT_EQ(morton_encode(2, 0), 4u);
  EXPECT_EQ(morton_encode(3, 5), 0b100111u);  // x=011, y=101 -> y2 x2 y1 x1 y0 x0 = 1 0 0 1 1 1
  EXPECT_EQ(morton_encode(0xFFFFFFFFu, 0), 0x5555555555555555ull);
  EXPECT_EQ(morton_encode(0, 0xFFFFFFFFu), 0xAAAAAAAAAAAAAAAAull);
  EXPECT_EQ(morton_encode(0xFFFFFFFFu, 0xFFFFFFFFu), ~0ull);
}

TEST(Morton, RoundTrips) {
  std::mt19937_64 rng(42);
  for (int i = 0; i < 100000; ++i) {
    const auto x = static_cast<std::uint32_t>(rng()), y = static_cast<std::uint32_t>(rng());
    std::uint32_t dx = 0, dy = 0;
    morton_decode(morton_encode(x, y), &dx, &dy);
    ASSERT_EQ(dx, x);
    ASSERT_EQ(dy, y);
    const std::uint64_t code = rng();
    morton_decode(code, &dx, &dy);
    ASSERT_EQ(morton_encode(dx, dy), code);
  }
}

TEST(Morton, OrderMatchesNaiveBitInterleave) {
  for (std::uint32_t y = 0; y < 64; ++y)
    for (std::uint32_t x = 0; x < 64; ++x) {
      std::uint64_t naive = 0;
      for (int b = 0; b < 32; ++b)
        naive |= (static_cast<std::uint64_t>((x >> b) & 1u) << (2 * b)) | (static_cast<std::uint64_t>((y >> b) & 1u) << (2 * b + 1));
      ASSERT_EQ(morton_encode(x, y), naive);
    }
}

TEST(ZOrder, IsSortedPermutationAndRanksAgree) {
  const std::vector<std::pair<std::uint64_t, std::uint64_t>> shapes = {
      {1, 1}, {1, 7}, {7, 1}, {5, 3}, {13, 9}, {16, 16}, {33, 2}, {2, 33}, {1, 100}, {64, 63}};
  for (auto [nx, ny] : shapes) {
    const TileGrid grid{nx, ny, 1};
    const std::vector<std::uint64_t> order = grid.z_order();
    ASSERT_EQ(order.size(), nx * ny) << nx << "x" << ny;
    std::set<std::uint64_t> seen(order.begin(), order.end());
    EXPECT_EQ(seen.size(), order.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
      const auto tx = static_cast<std::uint32_t>(order[i] % nx), ty = static_cast<std::uint32_t>(order[i] / nx);
      ASSERT_LT(order[i], nx * ny);
      ASSERT_EQ(grid.z_rank(tx, ty), i) << nx << "x" << ny << " tile " << tx << "," << ty;
      if (i > 0) {
        const auto px = static_cast<std::uint32_t>(order[i - 1] % nx), py = static_cast<std::uint32_t>(order[i - 1] / nx);
        ASSERT_LT(morton_encode(px, py), morton_encode(tx, ty));
      }
    }
  }
}

TEST(ZOrder, AlignedGroupsAreContiguous) {
  // Every aligned 2^k x 2^k group of tiles (clipped to the grid) occupies consecutive slots.
  for (auto [nx, ny] : std::vector<std::pair<std::uint64_t, std::uint64_t>>{{16, 16}, {13, 9}, {40, 3}, {5, 37}}) {
    const TileGrid grid{nx * 64, ny * 64 - 1, 64};
    ASSERT_EQ(grid.tiles_x(), nx);
    ASSERT_EQ(grid.tiles_y(), ny);
    for (std::uint64_t size = 2; size <= 64; size *= 2)
      for (std::uint64_t gy = 0; gy < ny; gy += size)
        for (std::uint64_t gx = 0; gx < nx; gx += size) {
          std::vector<std::uint64_t> ranks;
          for (std::uint64_t y = gy; y < std::min(gy + size, ny); ++y)
            for (std::uint64_t x = gx; x < std::min(gx + size, nx); ++x)
              ranks.push_back(grid.z_rank(static_cast<std::uint32_t>(x), static_cast<std::uint32_t>(y)));
          std::sort(ranks.begin(), ranks.end());
          ASSERT_EQ(ranks.back() - ranks.front() + 1, ranks.size())
              << "group of " << size << " at " << gx << "," << gy << " in " << nx << "x" << ny;
        }
  }
}

TEST(ZOrder, RankOfHugeElongatedGrid) {
  // 1 x 2^31 tiles: computed without any list, and equal to the row-major index for a single row.
  const TileGrid grid{(1ull << 31) * 16, 16, 16};
  EXPECT_EQ(grid.z_rank(0, 0), 0u);
  EXPECT_EQ(grid.z_rank(12345, 0), 12345u);
  EXPECT_EQ(grid.z_rank(0x7FFFFFFFu, 0), 0x7FFFFFFFull);
}

// ---- round trips -----------------------------------------------------------------------------

struct RoundTripCase {
  std::uint64_t width, height;
  std::uint32_t tile;
  CellType type;
  bool has_nodata;
  double nodata;
  double holes;
};

class TileStoreRoundTrip : public ::testing::TestWithParam<RoundTripCase> {};

TEST_P(TileStoreRoundTrip, ValuesNodataAndGeoreferencingSurvive) {
  const RoundTripCase c = GetParam();
  TempDir dir;
  const std::string path = dir.file("r.tzs");
  const Raster r = make_raster(c.width, c.height, c.type, c.has_nodata, c.nodata, c.holes,
                               static_cast<std::uint32_t>(c.width * 31 + c.height));
  write_store(r, c.tile, path);
  EXPECT_TRUE(partial_files_of(path).empty());
  ASSERT_TRUE(TileStore::looks_like_tile_store(path));

  auto store = TileStore::open(path);
  const RasterInfo& info = store->info();
  EXPECT_EQ(info.width, c.width);
  EXPECT_EQ(info.height, c.height);
  EXPECT_EQ(info.type, c.type);
  EXPECT_EQ(info.has_nodata, c.has_nodata);
  if (c.has_nodata) {
    if (std::isnan(c.nodata)) EXPECT_TRUE(std::isnan(info.nodata));
    else EXPECT_EQ(info.nodata, c.nodata);
  }
  EXPECT_TRUE(info.has_geotransform);
  EXPECT_EQ(info.geotransform, r.info.geotransform);
  EXPECT_EQ(info.crs_wkt, r.info.crs_wkt);
  EXPECT_EQ(store->tile(), c.tile);
  expect_same_values(r, *store);

  // Statistics recorded by the writer equal those of the data.
  std::uint64_t valid = 0;
  double lo = INFINITY, hi = -INFINITY;
  for (double v : r.cells)
    if (!std::isnan(v)) {
      ++valid;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  EXPECT_TRUE(info.has_stats);
  EXPECT_EQ(info.valid_cells, valid);
  if (valid) {
    EXPECT_EQ(info.min, lo);
    EXPECT_EQ(info.max, hi);
  }

  // Present tiles are exactly those with a valid cell.
  std::uint64_t present = 0;
  const std::uint32_t t = c.tile;
  for (std::uint32_t ty = 0; ty < store->grid().tiles_y(); ++ty)
    for (std::uint32_t tx = 0; tx < store->grid().tiles_x(); ++tx) {
      bool any = false;
      for (std::uint64_t y = static_cast<std::uint64_t>(ty) * t; y < std::min<std::uint64_t>((ty + 1ull) * t, c.height); ++y)
        for (std::uint64_t x = static_cast<std::uint64_t>(tx) * t; x < std::min<std::uint64_t>((tx + 1ull) * t, c.width); ++x)
          any = any || !std::isnan(r.at(x, y));
      EXPECT_EQ(store->tile_present(tx, ty), any) << tx << "," << ty;
      present += any;
    }
  EXPECT_EQ(store->present_tiles(), present);
  EXPECT_GT(store->bytes_read(), 0u);
}

INSTANTIATE_TEST_SUITE_P(
    OddSizesAndTypes, TileStoreRoundTrip,
    ::testing::Values(RoundTripCase{1, 1, 1, CellType::Float32, true, -9999.0, 0.0},
                      RoundTripCase{1, 1, 256, CellType::Int16, true, -32768.0, 0.0},
                      RoundTripCase{1, 517, 16, CellType::Float32, false, 0.0, 0.1},
                      RoundTripCase{517, 1, 16, CellType::Int32, true, -9999.0, 0.1},
                      RoundTripCase{1000, 3, 16, CellType::Float64, true, kNaN, 0.2},
                      RoundTripCase{3, 1000, 8, CellType::UInt16, true, 65535.0, 0.05},
                      RoundTripCase{37, 23, 8, CellType::UInt8, true, 255.0, 0.3},
                      RoundTripCase{37, 23, 8, CellType::UInt8, false, 0.0, 0.0},
                      RoundTripCase{100, 60, 32, CellType::UInt32, true, 0.0, 0.1},
                      RoundTripCase{129, 255, 64, CellType::Float32, true, -9999.0, 0.5},
                      RoundTripCase{256, 256, 16, CellType::Int16, true, -9999.0, 0.0},
                      RoundTripCase{300, 200, 256, CellType::Float32, true, kNaN, 0.9}));

TEST(TileStore, RawTilesKeepTheStoredTypeAndPadWithNodata) {
  TempDir dir;
  const Raster r = make_raster(21, 13, CellType::Int16, true, -9999.0, 0.2, 7);
  write_store(r, 16, dir.file("a.tzs"));
  auto store = TileStore::open(dir.file("a.tzs"));
  std::vector<std::int16_t> raw(16 * 16);
  store->read_tile_raw(1, 0, raw.data());
  for (std::uint32_t row = 0; row < 16; ++row)
    for (std::uint32_t col = 0; col < 16; ++col) {
      const std::uint64_t x = 16 + col, y = row;
      const double want = (x < 21 && y < 13) ? r.at(x, y) : kNaN;
      ASSERT_EQ(raw[row * 16 + col], std::isnan(want) ? -9999 : static_cast<std::int16_t>(want));
    }
}

TEST(TileStore, AbsentTilesAreNotStoredAndReadAsNodata) {
  TempDir dir;
  Raster r = make_raster(64, 64, CellType::Float32, true, -9999.0, 0.0, 3);
  // Only tile (1, 2) of the 4 x 4 tiles of 16 holds data.
  for (std::uint64_t y = 0; y < 64; ++y)
    for (std::uint64_t x = 0; x < 64; ++x)
      if (!(x / 16 == 1 && y / 16 == 2)) r.cells[y * 64 + x] = kNaN;
  write_store(r, 16, dir.file("sparse.tzs"));
  auto store = TileStore::open(dir.file("sparse.tzs"));
  EXPECT_EQ(store->present_tiles(), 1u);
  EXPECT_TRUE(store->tile_present(1, 2));
  EXPECT_FALSE(store->tile_present(0, 0));
  EXPECT_FALSE(store->tile_present(9, 9));
  std::vector<double> tile(256);
  store->read_tile(3, 3, tile.data());
  for (double v : tile) EXPECT_TRUE(std::isnan(v));
  std::vector<float> raw(256);
  store->read_tile_raw(3, 3, raw.data());
  for (float v : raw) EXPECT_EQ(v, -9999.0f);
  expect_same_values(r, *store);
  EXPECT_EQ(store->info().valid_cells, 256u);
}

TEST(TileStore, RewrittenTileTakesTheLastContents) {
  TempDir dir;
  RasterInfo info;
  info.width = 20;
  info.height = 20;
  info.type = CellType::Float32;
  TileStoreWriter writer(dir.file("w.tzs"), info, 16);
  std::vector<double> ones(256, 1.0), nodata(256, kNaN), twos(256, 2.0);
  writer.write_tile(0, 0, ones.data());
  writer.write_tile(1, 1, ones.data());
  writer.write_tile(1, 1, nodata.data());  // becomes absent
  writer.write_tile(0, 0, twos.data());
  writer.set_stats(2.0, 2.0, 256);
  writer.finish();
  auto store = TileStore::open(dir.file("w.tzs"));
  EXPECT_EQ(store->present_tiles(), 1u);
  EXPECT_FALSE(store->tile_present(1, 1));
  std::vector<double> tile(256);
  store->read_tile(0, 0, tile.data());
  EXPECT_EQ(tile[0], 2.0);
  EXPECT_EQ(store->info().min, 2.0);
  EXPECT_EQ(store->info().valid_cells, 256u);
}

TEST(TileStoreWriter, UnfinishedWriterLeavesNothing) {
  TempDir dir;
  RasterInfo info;
  info.width = 10;
  info.height = 10;
  {
    TileStoreWriter writer(dir.file("x.tzs"), info, 16);
    std::vector<double> cells(256, 5.0);
    writer.write_tile(0, 0, cells.data());
    EXPECT_EQ(partial_files_of(dir.file("x.tzs")).size(), 1u);
  }
  EXPECT_TRUE(partial_files_of(dir.file("x.tzs")).empty());
  EXPECT_FALSE(file_exists(dir.file("x.tzs")));
}

TEST(TileStoreWriter, RejectsBadArguments) {
  TempDir dir;
  RasterInfo info;
  info.width = 10;
  info.height = 10;
  EXPECT_THROW(TileStoreWriter(dir.file("a.tzs"), info, 100), UsageError);
  EXPECT_THROW(TileStoreWriter(dir.file("a.tzs"), info, 0), UsageError);
  info.width = 0;
  EXPECT_THROW(TileStoreWriter(dir.file("a.tzs"), info, 16), UsageError);
  info.width = 10;
  TileStoreWriter writer(dir.file("a.tzs"), info, 16);
  std::vector<double> cells(256, 1.0);
  EXPECT_THROW(writer.write_tile(1, 0, cells.data()), Error);
  // An integer raster without nodata cannot store NaN; values out of range are refused.
  info.type = CellType::UInt8;
  TileStoreWriter bytes(dir.file("b.tzs"), info, 16);
  cells[3] = kNaN;
  EXPECT_THROW(bytes.write_tile(0, 0, cells.data()), Error);
  cells[3] = 256.0;
  EXPECT_THROW(bytes.write_tile(0, 0, cells.data()), Error);
  cells[3] = -1.0;
  EXPECT_THROW(bytes.write_tile(0, 0, cells.data()), Error);
}

// ---- damaged files -------------------------------------------------------------------------

class DamagedStore : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.file("good.tzs");
    raster_ = make_raster(50, 40, CellType::Float32, true, -9999.0, 0.1, 11);
    write_store(raster_, 16, path_);
    bytes_ = read_bytes(path_);
  }
  std::string damaged(const std::vector<unsigned char>& bytes) {
    const std::string path = dir_.file("damaged" + std::to_string(counter_++) + ".tzs");
    write_bytes(path, bytes);
    return path;
  }
  std::uint64_t u64_at(std::size_t offset) const {
    std::uint64_t v;
    std::memcpy(&v, bytes_.data() + offset, 8);
    return v;
  }
  // Expects open() to throw Error whose message names the file and contains `words`.
  void expect_open_error(const std::string& path, const std::string& words) {
    try {
      TileStore::open(path);
      ADD_FAILURE() << "opening " << path << " did not fail";
    } catch (const Error& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find(path), std::string::npos) << message;
      EXPECT_NE(message.find(words), std::string::npos) << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    }
  }
  TempDir dir_;
  std::string path_;
  Raster raster_;
  std::vector<unsigned char> bytes_;
  int counter_ = 0;
  // Header record offsets (docs/tile_store_format.md).
  static constexpr std::size_t kIndexOffsetField = 16 + 120, kDataOffsetField = 16 + 128;
};

TEST_F(DamagedStore, GoodFileOpens) {
  auto store = TileStore::open(path_);
  expect_same_values(raster_, *store);
}

TEST_F(DamagedStore, CorruptHeaderByteIsAnError) {
  for (std::size_t offset : {16u, 20u, 40u, 100u, 150u}) {
    auto bytes = bytes_;
    bytes[offset] ^= 0x40;
    expect_open_error(damaged(bytes), "header checksum");
  }
}

TEST_F(DamagedStore, CorruptIndexIsAnError) {
  const std::uint64_t index_offset = u64_at(kIndexOffsetField);
  auto bytes = bytes_;
  bytes[index_offset + 3] ^= 0x01;
  expect_open_error(damaged(bytes), "index checksum");
}

TEST_F(DamagedStore, CorruptTileIsAnErrorOnRead) {
  const std::uint64_t data_offset = u64_at(kDataOffsetField);
  auto bytes = bytes_;
  bytes[data_offset + 17] ^= 0x10;  // slot 0 holds tile (0, 0), which has valid cells
  const std::string path = damaged(bytes);
  auto store = TileStore::open(path);
  std::vector<double> tile(256);
  store->read_tile(1, 0, tile.data());
  try {
    store->read_tile(0, 0, tile.data());
    ADD_FAILURE() << "corrupt tile was read";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("tile (0, 0) checksum"), std::string::npos) << e.what();
  }
}

TEST_F(DamagedStore, TruncatedFileIsAnError) {
  for (std::size_t keep : {bytes_.size() - 1, bytes_.size() / 2, std::size_t{300}, std::size_t{100}, std::size_t{12}}) {
    auto bytes = bytes_;
    bytes.resize(keep);
    expect_open_error(damaged(bytes), keep >= 300 ? "truncated" : "");
  }
}

TEST_F(DamagedStore, ForeignFilesAreErrors) {
  expect_open_error(damaged({}), "is empty");
  const std::string text = "ncols 10\nnrows 10\n";
  expect_open_error(damaged(std::vector<unsigned char>(text.begin(), text.end())), "not a terrazo tile store");
  expect_open_error(std::string(TERRAZO_DATASETS) + "/real/nz_elev.tif", "not a terrazo tile store");
  EXPECT_FALSE(TileStore::looks_like_tile_store(std::string(TERRAZO_DATASETS) + "/real/nz_elev.tif"));
  EXPECT_FALSE(TileStore::looks_like_tile_store(dir_.file("missing.tzs")));
  EXPECT_THROW(TileStore::open(dir_.file("missing.tzs")), Error);
  EXPECT_THROW(TileStore::open(dir_.path()), Error);  // a directory
}

TEST_F(DamagedStore, OtherVersionIsAnError) {
  auto bytes = bytes_;
  bytes[8] = 2;
  expect_open_error(damaged(bytes), "format version 2");
}

TEST_F(DamagedStore, RandomByteFlipsNeverReadWrongValues) {
  // Any single flipped byte either fails open/read with Error or leaves the values intact
  // (a flip inside an absent tile's hole or in alignment padding changes nothing).
  std::mt19937 rng(5);
  for (int trial = 0; trial < 200; ++trial) {
    auto bytes = bytes_;
    const std::size_t offset = rng() % bytes.size();
    bytes[offset] ^= static_cast<unsigned char>(1u << (rng() % 8));
    const std::string path = damaged(bytes);
    try {
      auto store = TileStore::open(path);
      expect_same_values(raster_, *store);
    } catch (const Error&) {
    }
    std::remove(path.c_str());
  }
}

// ---- Retiling a store (io/store/tile_store_retile.h) ----------------------------------------------

namespace {

// Retiles the store at `from` into tiles of `tile` at `to` on `threads` threads, statistics from the
// source's header, as run_import does.
void retile(const std::string& from, const std::string& to, std::uint32_t tile, unsigned threads, MemoryBudget& budget) {
  auto source = TileStore::open(from);
  TileStoreWriter writer(to, source->info(), tile);
  retile_tile_store(*source, writer, threads, budget, Progress::silent());
  if (source->info().has_stats) writer.set_stats(source->info().min, source->info().max, source->info().valid_cells);
  writer.finish();
}

}  // namespace

TEST(TileStoreRetile, EqualsTheStoreWrittenDirectlyAtTheNewTileByteForByte) {
  struct Case {
    std::uint64_t width, height;
    CellType type;
    bool has_nodata;
    double nodata, holes;
  };
  // Edges that are not multiples of any tile, a one-column raster, mostly-nodata rasters (absent
  // tiles and units), integer types with a nodata value and floats with NaN holes.
  const Case cases[] = {{203, 157, CellType::Float32, false, 0.0, 0.1},  {203, 157, CellType::UInt8, true, 255.0, 0.3},
                        {130, 61, CellType::Int16, true, -9999.0, 0.97}, {1, 300, CellType::Float64, true, -1.0, 0.5},
                        {64, 64, CellType::UInt16, false, 0.0, 0.0},     {97, 200, CellType::Int32, true, 0.0, 0.99}};
  TempDir dir;
  std::uint32_t seed = 3;
  for (const Case& c : cases) {
    const Raster r = make_raster(c.width, c.height, c.type, c.has_nodata, c.nodata, c.holes, seed++);
    for (std::uint32_t from_tile : {8u, 32u}) {
      const std::string from = dir.file("from.tzs");
      write_store(r, from_tile, from, seed);
      for (std::uint32_t to_tile : {2u, 16u, 256u}) {
        const std::string direct = dir.file("direct.tzs");
        write_store(r, to_tile, direct, seed + 1);
        {
          const unsigned threads = from_tile == 8 ? 1u : 3u;
          SCOPED_TRACE(std::to_string(c.width) + "x" + std::to_string(c.height) + " " + to_string(c.type) + " tile " +
                       std::to_string(from_tile) + " -> " + std::to_string(to_tile) + ", " + std::to_string(threads) + " threads");
          MemoryBudget budget(64ull << 20);
          const std::string to = dir.file("to.tzs");
          retile(from, to, to_tile, threads, budget);
          EXPECT_EQ(budget.reserved(), 0u);
          const auto want = read_bytes(direct), got = read_bytes(to);
          ASSERT_EQ(got.size(), want.size());
          EXPECT_TRUE(got == want);
          auto store = TileStore::open(to);
          expect_same_values(r, *store);
          std::remove(to.c_str());
        }
        std::remove(direct.c_str());
      }
      std::remove(from.c_str());
    }
  }
}

TEST(TileStoreRetile, ABudgetForOneUnitStillRetilesAndACorruptTileLeavesNothing) {
  TempDir dir;
  const Raster r = make_raster(150, 150, CellType::Float32, false, 0.0, 0.05, 9);
  write_store(r, 64, dir.file("from.tzs"));
  write_store(r, 16, dir.file("direct.tzs"));
  {
    // 64^2 float cells and one 16^2 tile each: 16 KiB + 1 KiB + 1 KiB a thread; room for one thread.
    MemoryBudget budget(20u << 10);
    retile(dir.file("from.tzs"), dir.file("to.tzs"), 16, 4, budget);
    EXPECT_TRUE(read_bytes(dir.file("to.tzs")) == read_bytes(dir.file("direct.tzs")));
  }
  // Flip a byte in the last tile's slot: the retile reads it, fails, and leaves no output.
  std::vector<unsigned char> bytes = read_bytes(dir.file("from.tzs"));
  bytes[bytes.size() - 100] ^= 0x5A;
  write_bytes(dir.file("bad.tzs"), bytes);
  MemoryBudget budget(64ull << 20);
  EXPECT_THROW(retile(dir.file("bad.tzs"), dir.file("out.tzs"), 16, 3, budget), Error);
  EXPECT_FALSE(file_exists(dir.file("out.tzs")));
  EXPECT_TRUE(partial_files_of(dir.file("out.tzs")).empty());
  EXPECT_EQ(budget.reserved(), 0u);
}
