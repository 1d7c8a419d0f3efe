// tests/fuzz/fuzz_ascii_grid.cpp: the ESRI ASCII grid reader (io/gdal/ascii_grid.h), plain and gzip.
// The first byte picks the form: 0 plain text; 1 the text gzip-compressed (the parser behind the
// decompressor); 2 the bytes as they are in a .asc.gz (damaged gzip streams). Then every window of
// up to 1 M cells is read, 64 rows at a time.
#include <zlib.h>

#include "io/gdal/ascii_grid.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

std::vector<std::uint8_t> gzip(const std::uint8_t* data, std::size_t size) {
  z_stream z{};
  if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) std::abort();
  std::vector<std::uint8_t> out(deflateBound(&z, static_cast<uLong>(size)) + 32);
  z.next_in = const_cast<Bytef*>(data);
  z.avail_in = static_cast<uInt>(size);
  z.next_out = out.data();
  z.avail_out = static_cast<uInt>(out.size());
  if (deflate(&z, Z_FINISH) != Z_STREAM_END) std::abort();
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace terrazo;
  if (size < 1) return 0;
  const int form = data[0] % 3;
  std::string path;
  if (form == 0) {
    path = fuzz::write_file("input.asc", data + 1, size - 1);
  } else if (form == 1) {
    const std::vector<std::uint8_t> packed = gzip(data + 1, size - 1);
    path = fuzz::write_file("input.asc.gz", packed.data(), packed.size());
  } else {
    path = fuzz::write_file("input.asc.gz", data + 1, size - 1);
  }
  fuzz::accept_clear_errors([&] {
    auto reader = open_ascii_grid(path, form != 0);
    const RasterInfo& info = reader->info();
    if (info.width * info.height > (1u << 20)) return;
    const std::uint32_t rows = 64;
    std::vector<double> window(static_cast<std::size_t>(info.width) * rows);
    for (std::uint64_t y = 0; y < info.height; y += rows)
      reader->read_window(0, y, static_cast<std::uint32_t>(info.width),
                          static_cast<std::uint32_t>(std::min<std::uint64_t>(rows, info.height - y)), window.data());
  });
  return 0;
}
