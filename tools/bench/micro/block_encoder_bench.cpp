// tools/bench/micro/block_encoder_bench.cpp: the block writer's ZSTD blocks, through libtiff's codec (a
// one-tile TIFF in memory per block, the writer's path before io/gdal/zstd_block_codec.h) and on a
// kept libzstd context (the writer's path now), on the same blocks; checks that both give the same
// bytes and prints milliseconds per block (docs/benchmarks.md "Kept encoder contexts, parallel tile
// loads and best-of-3 rounds").
//
// Usage: terrazo_block_encoder_bench [BLOCKS [SIDE [LEVEL]]]   (default 256 blocks of 256 x 256, level 1)
// The cells are smooth Float64 terrain-like values (a random walk), PREDICTOR=3, as sssp's cost raster.
#include <tiffio.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "io/gdal/tiff_block_writer.h"
#include "io/gdal/zstd_block_codec.h"

int main(int argc, char** argv) {
  using namespace terrazo;
  const int blocks = argc > 1 ? std::atoi(argv[1]) : 256;
  TiffBlockFormat format;
  format.block = argc > 2 ? static_cast<std::uint32_t>(std::atoi(argv[2])) : 256;
  format.level = argc > 3 ? std::atoi(argv[3]) : 1;
  format.bits_per_sample = 64;
  format.sample_format = SAMPLEFORMAT_IEEEFP;
  format.compression = COMPRESSION_ZSTD;
  format.predictor = PREDICTOR_FLOATINGPOINT;
  if (blocks < 1 || format.block < 16 || format.level < 1) {
    std::fprintf(stderr, "usage: %s [BLOCKS [SIDE [LEVEL]]]\n", argv[0]);
    return 2;
  }
  std::vector<std::uint8_t> cells(format.block_bytes());
  std::mt19937_64 rng(1);
  double v = 1000;
  for (std::size_t i = 0; i < cells.size() / 8; ++i) {
    v += static_cast<double>(rng() % 1000) / 10.0;
    std::memcpy(&cells[i * 8], &v, 8);
  }
  ZstdBlockCodec kept;
  std::vector<std::uint8_t> first[2];
  double seconds[2] = {0, 0};
  std::size_t bytes[2] = {0, 0};
  for (int way = 0; way < 2; ++way) {  // 0: through libtiff, 1: on the kept context
    const auto start = std::chrono::steady_clock::now();
    for (int b = 0; b < blocks; ++b) {
      std::vector<std::uint8_t> encoded = encode_tiff_block(format, cells, true, way ? &kept : nullptr);
      bytes[way] += encoded.size();
      if (b == 0) first[way] = std::move(encoded);
    }
    seconds[way] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  const bool same = first[0] == first[1] && bytes[0] == bytes[1];
  std::printf("%d blocks of %u x %u Float64, ZSTD level %d, PREDICTOR=3\n", blocks, format.block, format.block,
              format.level);
  std::printf("through libtiff:  %.3f s, %.3f ms a block, %zu bytes\n", seconds[0], 1e3 * seconds[0] / blocks, bytes[0]);
  std::printf("kept context:     %.3f s, %.3f ms a block, %zu bytes\n", seconds[1], 1e3 * seconds[1] / blocks, bytes[1]);
  std::printf("same bytes: %s; ratio %.2fx\n", same ? "yes" : "NO", seconds[0] / seconds[1]);
  return same ? 0 : 1;
}
