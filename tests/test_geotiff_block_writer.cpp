// tests/test_geotiff_block_writer.cpp: GeoTiffWriter's block writer (io/gdal/tiff_block_writer.h)
// against GDAL's own RasterIO path (GeoTiffOptions::gdal_encoder), suite GeoTiffBlockWriter: every
// cell type and codec the block writer takes, windows of random shapes in random order (pieces of
// blocks, blocks never written), NaN cells; both files read back through GDAL must hold the same
// cells, the expected ones, with the same georeferencing and nodata; the block writer's file is the
// same bytes for any thread count; values a type cannot hold and nodata without a nodata value are
// refused with nothing left under the final name; the writer's own ZSTD and uncompressed blocks
// (io/gdal/zstd_block_codec.h) are libtiff's bytes.
#include <gtest/gtest.h>

#include <gdal.h>
#include <sys/stat.h>
#include <tiffio.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/common/error.h"
#include "io/gdal/gdal_raster.h"
#include "io/gdal/gdal_session.h"
#include "io/gdal/geotiff_options.h"
#include "io/gdal/tiff_block_writer.h"
#include "io/gdal/zstd_block_codec.h"
#include "tests/support/sssp_reference.h"
#include "tests/support/test_support.h"

namespace terrazo {
namespace {

struct Window {
  std::uint64_t x0, y0;
  std::uint32_t w, h;
};

// Splits a w x h raster into windows of random sizes (rows of random heights, each cut into random
// widths), shuffled; some windows are left out (dropped) when `drop` is set.
std::vector<Window> random_windows(std::uint64_t width, std::uint64_t height, std::mt19937_64& rng, bool drop) {
  std::vector<Window> windows;
  std::uniform_int_distribution<std::uint32_t> side(1, 97);
  for (std::uint64_t y = 0; y < height;) {
    const std::uint32_t h = static_cast<std::uint32_t>(std::min<std::uint64_t>(side(rng), height - y));
    for (std::uint64_t x = 0; x < width;) {
      const std::uint32_t w = static_cast<std::uint32_t>(std::min<std::uint64_t>(side(rng), width - x));
      if (!drop || rng() % 5 != 0) windows.push_back({x, y, w, h});
      x += w;
    }
    y += h;
  }
  std::shuffle(windows.begin(), windows.end(), rng);
  return windows;
}

double nodata_of(CellType type) {
  switch (type) {
    case CellType::UInt8: return 255;
    case CellType::UInt16: return 65535;
    case CellType::UInt32: return 4294967295.0;
    default: return -9999;
  }
}

// Cells a type can hold (integers for integer types), NaN for about 1 in 10.
std::vector<double> random_cells(CellType type, std::uint64_t count, std::mt19937_64& rng) {
  std::vector<double> cells(count);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (double& c : cells) {
    if (unit(rng) < 0.1) {
      c = std::numeric_limits<double>::quiet_NaN();
      continue;
    }
    switch (type) {
      case CellType::UInt8: c = std::floor(unit(rng) * 254); break;  // 255 is the nodata value
      case CellType::Int16: c = std::floor(unit(rng) * 60000) - 30000; break;
      case CellType::UInt16: c = std::floor(unit(rng) * 65000); break;
      case CellType::Int32: c = std::floor(unit(rng) * 4e9) - 2e9; break;
      case CellType::UInt32: c = std::floor(unit(rng) * 4e9); break;
      case CellType::Float32: c = static_cast<float>(unit(rng) * 2000 - 500); break;
      case CellType::Float64: c = unit(rng) * 2000 - 500 + unit(rng) * 1e-9; break;
    }
    if (c == nodata_of(type)) c += 1;  // a valid cell, not the nodata value
  }
  return cells;
}

RasterInfo georef() { return testing::georef("", 500000.0, 4100000.0, 30.0, -30.0); }

void write(const std::string& path, CellType type, std::uint64_t width, std::uint64_t height,
           const std::vector<double>& cells, const std::vector<Window>& windows, const GeoTiffOptions& options) {
  GeoTiffWriter writer(path, width, height, type, georef(), true, nodata_of(type), 64, options);
  std::vector<double> window;
  std::vector<std::uint8_t> bytes;
  for (const Window& w : windows) {
    window.resize(static_cast<std::size_t>(w.w) * w.h);
    bytes.resize(window.size());
    for (std::uint32_t y = 0; y < w.h; ++y)
      for (std::uint32_t x = 0; x < w.w; ++x) {
        const double v = cells[(w.y0 + y) * width + w.x0 + x];
        window[static_cast<std::size_t>(y) * w.w + x] = v;
        bytes[static_cast<std::size_t>(y) * w.w + x] = std::isnan(v) ? 255 : static_cast<std::uint8_t>(v);
      }
    // Byte and UInt32 rasters through both entry points: the typed one for every other window.
    if (type == CellType::UInt8 && (w.x0 + w.y0) % 2 == 0) {
      writer.write_window_u8(w.x0, w.y0, w.w, w.h, bytes.data());
    } else if (type == CellType::UInt32 && (w.x0 + w.y0) % 2 == 0) {
      std::vector<std::uint32_t> u32(window.size());
      for (std::size_t i = 0; i < window.size(); ++i)
        u32[i] = std::isnan(window[i]) ? 4294967295u : static_cast<std::uint32_t>(window[i]);
      writer.write_window_u32(w.x0, w.y0, w.w, w.h, u32.data());
    } else {
      writer.write_window(w.x0, w.y0, w.w, w.h, window.data());
    }
  }
  writer.finish();
}

std::vector<double> read_back(const std::string& path, RasterInfo* info) {
  auto reader = RasterReader::open(path);
  *info = reader->info();
  std::vector<double> cells(info->cells());
  reader->read_window(0, 0, static_cast<std::uint32_t>(info->width), static_cast<std::uint32_t>(info->height), cells.data());
  return cells;
}

void expect_same_cells(const std::vector<double>& a, const std::vector<double>& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  std::uint64_t differ = 0, first = 0;
  for (std::uint64_t i = 0; i < a.size(); ++i) {
    const bool same = (std::isnan(a[i]) && std::isnan(b[i])) || a[i] == b[i];
    if (!same && differ++ == 0) first = i;
  }
  EXPECT_EQ(differ, 0u) << what << ": first difference at cell " << first << ": " << a[first] << " vs " << b[first];
}

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

bool exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

struct Codec {
  const char* name;
  std::vector<std::string> creation;
};

TEST(GeoTiffBlockWriter, SameCellsAsGdalForEveryTypeAndCodec) {
  ensure_gdal();
  testing::TempDir dir;
  const std::vector<CellType> types = {CellType::UInt8, CellType::Int16,   CellType::UInt16, CellType::Int32,
                                       CellType::UInt32, CellType::Float32, CellType::Float64};
  const std::vector<Codec> codecs = {{"default", {}},
                                     {"none", {"COMPRESS=NONE"}},
                                     {"lzw", {"COMPRESS=LZW"}},
                                     {"deflate9", {"COMPRESS=DEFLATE", "ZLEVEL=9"}},
                                     {"zstd_p1", {"COMPRESS=ZSTD", "ZSTD_LEVEL=3", "PREDICTOR=1"}},
                                     {"deflate_p2", {"COMPRESS=DEFLATE", "PREDICTOR=2"}}};
  std::mt19937_64 rng(20261124);
  int cases = 0;
  for (CellType type : types) {
    for (const Codec& codec : codecs) {
      const std::uint64_t width = 150 + rng() % 120, height = 90 + rng() % 110;  // edges cut blocks of 64
      const std::vector<double> cells = random_cells(type, width * height, rng);
      const bool drop = cases % 3 == 0;  // some rasters leave windows (and whole blocks) unwritten
      const std::vector<Window> windows = random_windows(width, height, rng, drop);
      std::vector<double> expected(width * height, std::numeric_limits<double>::quiet_NaN());
      for (const Window& w : windows)
        for (std::uint32_t y = 0; y < w.h; ++y)
          for (std::uint32_t x = 0; x < w.w; ++x) expected[(w.y0 + y) * width + w.x0 + x] = cells[(w.y0 + y) * width + w.x0 + x];
      const std::string what = to_string(type) + std::string(" ") + codec.name;
      GeoTiffOptions block_options, gdal_options;
      block_options.creation = gdal_options.creation = codec.creation;
      block_options.threads = 3;
      gdal_options.gdal_encoder = true;
      const std::string ours = dir.file(std::string("block_") + std::to_string(cases) + ".tif");
      const std::string theirs = dir.file(std::string("gdal_") + std::to_string(cases) + ".tif");
      ASSERT_NO_THROW(write(ours, type, width, height, cells, windows, block_options)) << what;
      ASSERT_NO_THROW(write(theirs, type, width, height, cells, windows, gdal_options)) << what;
      RasterInfo a, b;
      const std::vector<double> ours_cells = read_back(ours, &a), theirs_cells = read_back(theirs, &b);
      expect_same_cells(ours_cells, expected, what + " (block writer vs expected)");
      expect_same_cells(theirs_cells, expected, what + " (GDAL vs expected)");
      EXPECT_EQ(a.type, type) << what;
      EXPECT_EQ(a.type, b.type) << what;
      EXPECT_EQ(a.has_nodata, b.has_nodata) << what;
      EXPECT_EQ(a.nodata, b.nodata) << what;
      EXPECT_EQ(a.geotransform, b.geotransform) << what;
      EXPECT_EQ(a.crs_wkt, b.crs_wkt) << what;
      ++cases;
    }
  }
  EXPECT_EQ(cases, 42);
}

TEST(GeoTiffBlockWriter, SameBytesForAnyThreadCount) {
  ensure_gdal();
  testing::TempDir dir;
  std::mt19937_64 rng(7);
  const std::uint64_t width = 333, height = 257;
  const std::vector<double> cells = random_cells(CellType::Float64, width * height, rng);
  const std::vector<Window> windows = random_windows(width, height, rng, false);
  std::string first;
  for (unsigned threads : {1u, 2u, 5u, 16u}) {
    GeoTiffOptions options;
    options.threads = threads;
    const std::string path = dir.file("t" + std::to_string(threads) + ".tif");
    write(path, CellType::Float64, width, height, cells, windows, options);
    const std::string bytes = file_bytes(path);
    if (first.empty()) first = bytes;
    EXPECT_EQ(bytes, first) << threads << " threads";
  }
}

// Whole blocks handed over (take_block / write_block, clump's labels) give the file that windows
// of the same cells give, byte for byte; a block of the wrong size, or one begun through a
// window, is refused.
TEST(GeoTiffBlockWriter, WholeBlocksHandedOverAreTheWindowsBytes) {
  ensure_gdal();
  testing::TempDir dir;
  std::mt19937_64 rng(31);
  const std::uint32_t b = 64;
  for (int round = 0; round < 4; ++round) {
    const std::uint64_t width = 150 + rng() % 120, height = 90 + rng() % 110;  // edges cut blocks
    std::vector<std::uint32_t> cells(width * height);
    for (auto& c : cells) c = rng() % 4 == 0 ? 0u : static_cast<std::uint32_t>(rng() % 1000);
    GeoTiffOptions options;
    options.threads = 1 + round;
    const std::string by_window = dir.file("w" + std::to_string(round) + ".tif");
    const std::string by_block = dir.file("b" + std::to_string(round) + ".tif");
    const std::uint64_t across = (width + b - 1) / b, down = (height + b - 1) / b;
    {
      GeoTiffWriter writer(by_window, width, height, CellType::UInt32, georef(), true, 0.0, b, options);
      std::vector<std::uint32_t> window;
      for (std::uint64_t by = 0; by < down; ++by)
        for (std::uint64_t bx = 0; bx < across; ++bx) {
          const auto w = static_cast<std::uint32_t>(std::min<std::uint64_t>(b, width - bx * b));
          const auto h = static_cast<std::uint32_t>(std::min<std::uint64_t>(b, height - by * b));
          window.assign(static_cast<std::size_t>(w) * h, 0);
          for (std::uint32_t y = 0; y < h; ++y)
            for (std::uint32_t x = 0; x < w; ++x) window[y * w + x] = cells[(by * b + y) * width + bx * b + x];
          writer.write_window_u32(bx * b, by * b, w, h, window.data());
        }
      writer.finish();
    }
    {
      GeoTiffWriter writer(by_block, width, height, CellType::UInt32, georef(), true, 0.0, b, options);
      ASSERT_TRUE(writer.takes_blocks());
      for (std::uint64_t by = 0; by < down; ++by)
        for (std::uint64_t bx = 0; bx < across; ++bx) {
          std::vector<std::uint8_t> block = writer.take_block();
          ASSERT_EQ(block.size(), 4ull * b * b);
          auto* out = reinterpret_cast<std::uint32_t*>(block.data());
          for (std::uint32_t y = 0; y < b; ++y)
            for (std::uint32_t x = 0; x < b; ++x) {
              const std::uint64_t cx = bx * b + x, cy = by * b + y;
              out[y * b + x] = cx < width && cy < height ? cells[cy * width + cx] : 0u;
            }
          writer.write_block(bx, by, std::move(block));
        }
      writer.finish();
    }
    EXPECT_EQ(file_bytes(by_block), file_bytes(by_window)) << "round " << round;
  }
  GeoTiffWriter writer(dir.file("bad.tif"), 100, 100, CellType::UInt32, georef(), true, 0.0, b, GeoTiffOptions{});
  EXPECT_THROW(writer.write_block(0, 0, std::vector<std::uint8_t>(4ull * b * b - 4)), Error);
  const std::vector<std::uint32_t> part(10 * 10, 1u);
  writer.write_window_u32(0, 0, 10, 10, part.data());
  EXPECT_THROW(writer.write_block(0, 0, writer.take_block()), Error);
}

TEST(GeoTiffBlockWriter, RefusesValuesTheTypeCannotHoldAndLeavesNothing) {
  ensure_gdal();
  testing::TempDir dir;
  const std::string path = dir.file("bad.tif");
  std::vector<double> cells(200 * 130, 7.0);
  cells[131 * 1 + 100 * 200] = 70000.0;  // beyond UInt16
  try {
    write(path, CellType::UInt16, 200, 130, cells, {{0, 0, 200, 130}}, GeoTiffOptions{});
    ADD_FAILURE() << "a value beyond UInt16 was written";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("does not fit"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(exists(path));
  EXPECT_TRUE(testing::entries_of(dir).empty());

  // Nodata in a band without a nodata value.
  const std::string no_nodata = dir.file("no_nodata.tif");
  try {
    GeoTiffWriter writer(no_nodata, 100, 100, CellType::Int16, georef(), false, 0.0, 64, GeoTiffOptions{});
    std::vector<double> window(100 * 100, 1.0);
    window[5050] = std::numeric_limits<double>::quiet_NaN();
    writer.write_window(0, 0, 100, 100, window.data());
    writer.finish();
    ADD_FAILURE() << "nodata written to a band without a nodata value";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no nodata value"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("(50, 50)"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(exists(no_nodata));
}


// The blocks the writer's threads encode without libtiff (ZSTD on a kept context, no compression)
// are the bytes libtiff's codec writes for the same tile: random blocks of every cell width, several
// sizes and ZSTD levels, smooth (compressible) and random (incompressible: the frame outgrows the
// block) cells, floating-point predictor or none, one codec reused across all of them in a shuffled
// order and a fresh one for each, so nothing of a previous block leaks into the next.
TEST(GeoTiffBlockWriter, OwnZstdAndUncompressedBlocksAreLibtiffsBytes) {
  std::mt19937_64 rng(20261126);
  ZstdBlockCodec kept;
  struct Case {
    TiffBlockFormat format;
    std::vector<std::uint8_t> cells;
  };
  std::vector<Case> cases;
  for (const std::uint16_t bits : {std::uint16_t{8}, std::uint16_t{16}, std::uint16_t{32}, std::uint16_t{64}})
    for (const std::uint32_t block : {16u, 64u, 256u})
      for (const std::uint16_t compression : {std::uint16_t{COMPRESSION_ZSTD}, std::uint16_t{COMPRESSION_NONE}})
        for (const int level : {1, 3, 9})
          for (const bool smooth : {true, false}) {
            if (compression == COMPRESSION_NONE && level != 1) continue;
            Case c;
            c.format.block = block;
            c.format.bits_per_sample = bits;
            c.format.sample_format = bits >= 32 && rng() % 2 ? SAMPLEFORMAT_IEEEFP : SAMPLEFORMAT_UINT;
            c.format.compression = compression;
            c.format.predictor = c.format.sample_format == SAMPLEFORMAT_IEEEFP && compression == COMPRESSION_ZSTD && rng() % 2
                                     ? PREDICTOR_FLOATINGPOINT
                                     : PREDICTOR_NONE;
            c.format.level = level;
            c.cells.resize(c.format.block_bytes());
            std::uint64_t walk = rng();
            for (std::size_t i = 0; i < c.cells.size(); ++i) {
              if (smooth) {
                if (i % (bits / 8) == 0 && rng() % 16 == 0) walk += rng() % 5;
                c.cells[i] = static_cast<std::uint8_t>(walk >> (8 * (i % (bits / 8))));
              } else {
                c.cells[i] = static_cast<std::uint8_t>(rng());
              }
            }
            cases.push_back(std::move(c));
          }
  std::shuffle(cases.begin(), cases.end(), rng);
  int compared = 0;
  for (int pass = 0; pass < 2; ++pass)  // twice through the kept codec: the second pass after all others
    for (const Case& c : cases) {
      const std::string what = std::to_string(c.format.bits_per_sample) + " bits, block " + std::to_string(c.format.block) +
                               ", compression " + std::to_string(c.format.compression) + ", level " +
                               std::to_string(c.format.level) + ", predictor " + std::to_string(c.format.predictor);
      const std::vector<std::uint8_t> theirs = encode_tiff_block(c.format, c.cells, false);
      ZstdBlockCodec fresh;
      const std::vector<std::uint8_t> ours_kept = encode_tiff_block(c.format, c.cells, true, &kept);
      const std::vector<std::uint8_t> ours_fresh = encode_tiff_block(c.format, c.cells, true, &fresh);
      ASSERT_FALSE(theirs.empty()) << what;
      EXPECT_TRUE(ours_kept == theirs) << what << ": " << ours_kept.size() << " bytes against libtiff's " << theirs.size();
      EXPECT_TRUE(ours_fresh == theirs) << what;
      if (c.format.compression == COMPRESSION_NONE) {
        EXPECT_EQ(theirs, c.cells) << what;
      }
      ++compared;
    }
  EXPECT_EQ(compared, 2 * static_cast<int>(cases.size()));
  EXPECT_EQ(cases.size(), 96u);  // 4 widths x 3 sizes x (3 ZSTD levels + none) x smooth or random
}

// The floating-point predictor applied by the block writer gives the bytes libtiff's gives
// (encode_tiff_block with and without own_predictor), for Float32 and Float64 blocks with NaN,
// infinities, signed zeros and runs, under ZSTD and DEFLATE.
TEST(GeoTiffBlockWriter, OwnFloatingPointPredictorMatchesLibtiff) {
  std::mt19937_64 rng(20261126);
  int compared = 0;
  for (const std::uint16_t bits : {std::uint16_t{32}, std::uint16_t{64}})
    for (const std::uint16_t compression : {std::uint16_t{COMPRESSION_ZSTD}, std::uint16_t{COMPRESSION_ADOBE_DEFLATE}})
      for (const std::uint32_t block : {16u, 64u}) {
        TiffBlockFormat format;
        format.block = block;
        format.bits_per_sample = bits;
        format.sample_format = SAMPLEFORMAT_IEEEFP;
        format.compression = compression;
        format.predictor = PREDICTOR_FLOATINGPOINT;
        format.level = 1;
        std::vector<std::uint8_t> cells(format.block_bytes());
        const std::size_t n = static_cast<std::size_t>(block) * block;
        for (std::size_t i = 0; i < n; ++i) {
          const std::uint64_t r = rng();
          double v = (r % 7 == 0)   ? std::numeric_limits<double>::quiet_NaN()
                     : (r % 11 == 0) ? -0.0
                     : (r % 13 == 0) ? std::numeric_limits<double>::infinity()
                     : (r % 5 == 0)  ? 1234.5  // runs of one value
                                     : static_cast<double>(r % 1000003) / 7.0 - 5e4;
          if (bits == 64) {
            std::memcpy(&cells[i * 8], &v, 8);
          } else {
            const float f = static_cast<float>(v);
            std::memcpy(&cells[i * 4], &f, 4);
          }
        }
        const std::vector<std::uint8_t> ours = encode_tiff_block(format, cells, true);
        const std::vector<std::uint8_t> theirs = encode_tiff_block(format, cells, false);
        EXPECT_FALSE(ours.empty());
        EXPECT_EQ(ours, theirs) << bits << " bits, compression " << compression << ", block " << block;
        TiffBlockFormat plain = format;  // the predictor did apply: without it the bytes differ
        plain.predictor = PREDICTOR_NONE;
        EXPECT_NE(encode_tiff_block(plain, cells, true), ours);
        ++compared;
      }
  EXPECT_EQ(compared, 8);
}

}  // namespace
}  // namespace terrazo
