// io/gdal/zstd_block_codec.cpp: libtiff's ZSTD calls on a kept context (io/gdal/zstd_block_codec.h).
#include "io/gdal/zstd_block_codec.h"

#include <zstd.h>

#include <string>

#include "kernels/common/error.h"

namespace terrazo {

namespace {

ZSTD_CStream* as_stream(void* stream) { return static_cast<ZSTD_CStream*>(stream); }

void check(std::size_t code, const char* what) {
  if (ZSTD_isError(code)) throw Error(std::string("cannot compress a GeoTIFF block (libzstd, ") + what + ": " + ZSTD_getErrorName(code) + ")");
}

}  // namespace

ZstdBlockCodec::ZstdBlockCodec() : stream_(ZSTD_createCStream()) {
  if (!stream_) throw Error("cannot compress a GeoTIFF block (libzstd: no memory for a compression context)");
}

ZstdBlockCodec::~ZstdBlockCodec() { ZSTD_freeCStream(as_stream(stream_)); }

void ZstdBlockCodec::compress(const std::uint8_t* data, std::uint64_t bytes, int level, std::vector<std::uint8_t>* out) {
  ZSTD_CStream* stream = as_stream(stream_);
  check(ZSTD_initCStream(stream, level), "init");
  // Room for the whole frame, so every call writes straight into *out; the bytes do not depend on
  // the output's room (libtiff's is its write buffer, flushed when full).
  out->resize(ZSTD_compressBound(bytes) + 64);
  ZSTD_outBuffer output{out->data(), out->size(), 0};
  auto room = [&] {  // a full output cannot happen with the bound's room; grow rather than trust it
    if (output.pos < output.size) return;
    out->resize(out->size() * 2);
    output.dst = out->data();
    output.size = out->size();
  };
  ZSTD_inBuffer input{data, bytes, 0};
  while (input.pos < input.size) {
    check(ZSTD_compressStream(stream, &output, &input), "compress");
    room();
  }
  for (;;) {
    const std::size_t left = ZSTD_endStream(stream, &output);
    check(left, "end");
    if (left == 0) break;
    room();
  }
  out->resize(output.pos);
}

}  // namespace terrazo
