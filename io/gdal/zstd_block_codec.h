// io/gdal/zstd_block_codec.h: one TIFF block compressed with ZSTD as libtiff's codec compresses it, on
// a compression context kept from block to block.
//
// libtiff's ZSTD codec (tif_zstd.c) compresses a tile with ZSTD_initCStream(level), then
// ZSTD_compressStream until the input is taken, then ZSTD_endStream until it returns 0; the tile's
// bytes are everything those calls output. This class makes the same calls on the same system
// libzstd, so the bytes are the same (tests/test_geotiff_block_writer.cpp compares them with
// libtiff's on random blocks of every size, level and cell width), but on one context that lives as
// long as the encoder thread: going through libtiff costs a one-tile TIFF in memory per block, whose
// ZSTD context (about 1.1 MiB at level 1) and write buffer are allocated and freed for every block.
// glibc returns such a freed heap top to the kernel (MADV_DONTNEED) and the next block faults fresh
// zeroed pages in again: 256 times per 16.8 M-cell cost raster, about 290 MB of page clearing
// (docs/benchmarks.md "Block encoders keep their ZSTD context").
//
// Threads: one ZstdBlockCodec per thread (a context is not shared).
#pragma once
#include <cstdint>
#include <vector>

namespace terrazo {

class ZstdBlockCodec {
 public:
  ZstdBlockCodec();
  ~ZstdBlockCodec();
  ZstdBlockCodec(const ZstdBlockCodec&) = delete;
  ZstdBlockCodec& operator=(const ZstdBlockCodec&) = delete;

  // *out = the ZSTD frame libtiff writes for `bytes` bytes at `data` at compression `level` (>= 1).
  // Throws Error when libzstd fails (out of memory).
  void compress(const std::uint8_t* data, std::uint64_t bytes, int level, std::vector<std::uint8_t>* out);

 private:
  void* stream_ = nullptr;  // ZSTD_CStream*
};

}  // namespace terrazo
