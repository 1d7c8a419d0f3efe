// io/gdal/tiff_block_writer.cpp: blocks of a tiled TIFF encoded on worker threads, written in order
// (io/gdal/tiff_block_writer.h).
#include "io/gdal/tiff_block_writer.h"

#include <tiffio.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "kernels/common/error.h"
#include "kernels/common/text_case.h"
#include "io/gdal/gdal_session.h"
#include "io/gdal/tiff_messages.h"
#include "io/gdal/zstd_block_codec.h"

namespace terrazo {

namespace {

// ---- a one-block TIFF in memory: libtiff's predictor and codec, no file ------------------------

struct MemoryFile {
  std::vector<std::uint8_t>* data;
  std::uint64_t pos = 0;
};

tmsize_t memory_read(thandle_t handle, void* buffer, tmsize_t size) {
  auto* m = static_cast<MemoryFile*>(handle);
  if (m->pos >= m->data->size()) return 0;
  const auto n = static_cast<tmsize_t>(std::min<std::uint64_t>(static_cast<std::uint64_t>(size), m->data->size() - m->pos));
  std::memcpy(buffer, m->data->data() + m->pos, static_cast<std::size_t>(n));
  m->pos += static_cast<std::uint64_t>(n);
  return n;
}

tmsize_t memory_write(thandle_t handle, void* buffer, tmsize_t size) {
  auto* m = static_cast<MemoryFile*>(handle);
  const std::uint64_t end = m->pos + static_cast<std::uint64_t>(size);
  if (end > m->data->size()) m->data->resize(end);
  std::memcpy(m->data->data() + m->pos, buffer, static_cast<std::size_t>(size));
  m->pos = end;
  return size;
}

toff_t memory_seek(thandle_t handle, toff_t offset, int whence) {
  auto* m = static_cast<MemoryFile*>(handle);
  if (whence == SEEK_SET) m->pos = offset;
  else if (whence == SEEK_CUR) m->pos += offset;
  else m->pos = m->data->size() + offset;
  return m->pos;
}

int memory_close(thandle_t) { return 0; }
toff_t memory_size(thandle_t handle) { return static_cast<MemoryFile*>(handle)->data->size(); }
int memory_map(thandle_t, void**, toff_t*) { return 0; }
void memory_unmap(thandle_t, void*, toff_t) {}

}  // namespace

// libtiff's floating-point predictor (PREDICTOR=3, fpDiff in libtiff's tif_predict.c) for one sample per pixel on a little-endian host, row by row: the row's bytes regrouped by
// significance (the most significant byte of every sample first, then the next, ...), then each
// byte minus the byte before it in that order (mod 256; the row's first byte kept). libtiff does
// the same with a byte loop and a heap copy per row; here the planes are cut from whole samples and
// the differences run over a row buffer, bit for bit the same bytes (TiffBlockWriter test).
void predict_floating_point(const std::uint8_t* in, std::uint8_t* out, std::uint32_t width, std::uint32_t rows,
                            std::uint32_t sample_bytes) {
  const std::size_t row_bytes = static_cast<std::size_t>(width) * sample_bytes;
  std::vector<std::uint8_t> planes(row_bytes);
  for (std::uint32_t r = 0; r < rows; ++r) {
    const std::uint8_t* src = in + r * row_bytes;
    std::uint8_t* dst = out + r * row_bytes;
    if (sample_bytes == 8) {
      for (std::uint32_t x = 0; x < width; ++x) {
        std::uint64_t v;
        std::memcpy(&v, src + static_cast<std::size_t>(x) * 8, 8);
        for (std::uint32_t b = 0; b < 8; ++b)  // byte b (little-endian) to plane 7 - b
          planes[static_cast<std::size_t>(7 - b) * width + x] = static_cast<std::uint8_t>(v >> (8 * b));
      }
    } else if (sample_bytes == 4) {
      for (std::uint32_t x = 0; x < width; ++x) {
        std::uint32_t v;
        std::memcpy(&v, src + static_cast<std::size_t>(x) * 4, 4);
        for (std::uint32_t b = 0; b < 4; ++b)
          planes[static_cast<std::size_t>(3 - b) * width + x] = static_cast<std::uint8_t>(v >> (8 * b));
      }
    } else {
      for (std::uint32_t x = 0; x < width; ++x)
        for (std::uint32_t b = 0; b < sample_bytes; ++b)
          planes[static_cast<std::size_t>(sample_bytes - 1 - b) * width + x] = src[static_cast<std::size_t>(x) * sample_bytes + b];
    }
    dst[0] = planes[0];
    for (std::size_t i = 1; i < row_bytes; ++i) dst[i] = static_cast<std::uint8_t>(planes[i] - planes[i - 1]);
  }
}

namespace {

// Encodes one block as libtiff writes tile 0 of a file with `format`'s tags; the tile's bytes go to
// *out. `scratch` holds the memory file (reused). With a `zstd` codec, ZSTD at an explicit level
// without PREDICTOR=2 goes straight to libzstd on that kept context (io/gdal/zstd_block_codec.h: the
// same calls as libtiff's codec, so the same bytes), and COMPRESSION_NONE is the block's bytes as
// they are (libtiff's dump mode); everything else goes through a one-tile TIFF in memory. With
// own_predictor, PREDICTOR=3 is applied here
// into *predicted (predict_floating_point) and libtiff sees PREDICTOR=1: the same codec input
// (libtiff's predictor hands the codec the whole predicted tile in one call, as TIFFWriteEncodedTile
// does without one), so the same bytes.
void encode_block(const TiffBlockFormat& format, const std::vector<std::uint8_t>& cells,
                  std::vector<std::uint8_t>* predicted, std::vector<std::uint8_t>* scratch, std::vector<std::uint8_t>* out,
                  ZstdBlockCodec* zstd, bool own_predictor = true) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  const bool predict_here = own_predictor && format.predictor == PREDICTOR_FLOATINGPOINT &&
                            format.sample_format == SAMPLEFORMAT_IEEEFP && cells.size() == format.block_bytes();
#else
  const bool predict_here = false;
#endif
  const std::uint8_t* data = cells.data();
  if (predict_here) {
    predicted->resize(cells.size());
    predict_floating_point(cells.data(), predicted->data(), format.block, format.block, format.bits_per_sample / 8);
    data = predicted->data();
  }
  if (zstd && cells.size() == format.block_bytes() && (format.predictor == PREDICTOR_NONE || predict_here)) {
    if (format.compression == COMPRESSION_NONE) {
      out->assign(data, data + cells.size());
      return;
    }
    if (format.compression == COMPRESSION_ZSTD && format.level >= 1) {
      zstd->compress(data, cells.size(), format.level, out);
      return;
    }
  }
  scratch->clear();
  MemoryFile file{scratch, 0};
  TiffMessages messages;
  TIFF* tif = tiff_client_open("terrazo block", "wm", &file, memory_read, memory_write, memory_seek, memory_close,
                               memory_size, memory_map, memory_unmap, &messages);
  if (!tif) throw Error("cannot start a GeoTIFF block encoder (libtiff" + messages.reason() + ")");
  bool ok = TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, format.block) && TIFFSetField(tif, TIFFTAG_IMAGELENGTH, format.block) &&
            TIFFSetField(tif, TIFFTAG_TILEWIDTH, format.block) && TIFFSetField(tif, TIFFTAG_TILELENGTH, format.block) &&
            TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, format.bits_per_sample) &&
            TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, 1) && TIFFSetField(tif, TIFFTAG_SAMPLEFORMAT, format.sample_format) &&
            TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG) &&
            TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK) &&
            TIFFSetField(tif, TIFFTAG_COMPRESSION, format.compression);
  if (ok && format.predictor != PREDICTOR_NONE && !predict_here) ok = TIFFSetField(tif, TIFFTAG_PREDICTOR, format.predictor);
  if (ok && format.level >= 0) {
    if (format.compression == COMPRESSION_ZSTD) ok = TIFFSetField(tif, TIFFTAG_ZSTD_LEVEL, format.level);
    if (format.compression == COMPRESSION_ADOBE_DEFLATE) ok = TIFFSetField(tif, TIFFTAG_ZIPQUALITY, format.level);
  }
  const auto bytes = static_cast<tmsize_t>(format.block_bytes());
  // libtiff reads the buffer and leaves it as it is (native byte order, no bit reversal here).
  if (ok) ok = TIFFWriteEncodedTile(tif, 0, const_cast<std::uint8_t*>(data), bytes) == bytes;
  std::uint64_t* offsets = nullptr;
  std::uint64_t* counts = nullptr;
  if (ok) ok = TIFFGetField(tif, TIFFTAG_TILEOFFSETS, &offsets) && TIFFGetField(tif, TIFFTAG_TILEBYTECOUNTS, &counts);
  if (ok) ok = offsets[0] + counts[0] <= scratch->size();
  if (ok) out->assign(scratch->begin() + static_cast<std::ptrdiff_t>(offsets[0]),
                      scratch->begin() + static_cast<std::ptrdiff_t>(offsets[0] + counts[0]));
  TIFFClose(tif);
  if (!ok)
    throw Error("cannot encode a GeoTIFF block (libtiff, compression " + std::to_string(format.compression) +
                messages.reason() + ")");
}

// ---- one byte budget for the blocks all writers hold: GDAL's cache limit (GdalCacheLimit) ----------

std::mutex held_mutex;
std::condition_variable held_room;
std::uint64_t held_bytes = 0;     // blocks in flight, all writers
std::uint64_t claimed_bytes = 0;  // the writers' fixed needs: encoder threads and their spare buffers

// What one encoder thread keeps between blocks besides the jobs it works on: its typed block and
// encoding scratch (the predicted block of PREDICTOR=3 stands in for libtiff's working copy of the
// block, which libtiff no longer makes with the predictor applied here), the codec's state (a ZSTD or DEFLATE context) and its allocator arena's slack
// (about 2.5 MiB per thread measured at 256 x 256 Float64 blocks, docs/reliability.md "Budget"),
// plus one recycled cell buffer.
constexpr std::uint64_t kCodecStateBytes = 3ull << 19;  // 1.5 MiB

std::uint64_t held_bytes_limit() { return gdal_cache_limit(); }

}  // namespace

std::uint64_t block_encoder_thread_bytes(std::uint32_t block) {
  const std::uint64_t doubles = static_cast<std::uint64_t>(block) * block * 8;
  return 3 * doubles + kCodecStateBytes + 2 * (2 * doubles);  // thread_state_bytes + 2 x held_bytes_per_block
}

bool block_writer_format(CellType type, std::uint32_t block,
                         const std::vector<std::pair<std::string, std::string>>& options, TiffBlockFormat* format) {
  if (!fast_path_codec(options, format)) return false;
  format->block = block;
  format->bits_per_sample = static_cast<std::uint16_t>(8 * cell_type_size(type));
  const bool is_unsigned = type == CellType::UInt8 || type == CellType::UInt16 || type == CellType::UInt32;
  format->sample_format = !cell_type_is_integer(type) ? SAMPLEFORMAT_IEEEFP : is_unsigned ? SAMPLEFORMAT_UINT : SAMPLEFORMAT_INT;
  return true;
}

bool fast_path_codec(const std::vector<std::pair<std::string, std::string>>& options, TiffBlockFormat* format) {
  std::string compress = "NONE", predictor = "1", zstd_level, zlevel;
  for (const auto& [key_text, value] : options) {
    const std::string key = to_upper(key_text);
    if (key == "COMPRESS") compress = to_upper(value);
    else if (key == "PREDICTOR") predictor = value;
    else if (key == "ZSTD_LEVEL") zstd_level = value;
    else if (key == "ZLEVEL") zlevel = value;
    else if (key != "TILED" && key != "BLOCKXSIZE" && key != "BLOCKYSIZE" && key != "BIGTIFF" && key != "NUM_THREADS" &&
             key != "TFW" && key != "SPARSE_OK" && key != "GEOTIFF_VERSION")
      return false;  // an option that may change what is written: GDAL's own path
  }
  if (compress == "NONE") format->compression = COMPRESSION_NONE;
  else if (compress == "LZW") format->compression = COMPRESSION_LZW;
  else if (compress == "DEFLATE") format->compression = COMPRESSION_ADOBE_DEFLATE;
  else if (compress == "ZSTD") format->compression = COMPRESSION_ZSTD;
  else return false;
  if (predictor != "1" && predictor != "2" && predictor != "3") return false;
  format->predictor = static_cast<std::uint16_t>(format->compression == COMPRESSION_NONE ? 1 : predictor[0] - '0');
  format->level = -1;
  const std::string& level = format->compression == COMPRESSION_ZSTD ? zstd_level
                             : format->compression == COMPRESSION_ADOBE_DEFLATE ? zlevel : std::string();
  if (!level.empty()) {
    char* end = nullptr;
    const long parsed = std::strtol(level.c_str(), &end, 10);
    if (*end != '\0' || parsed < 1 || parsed > 22) return false;
    format->level = static_cast<int>(parsed);
  }
  return true;
}

TiffBlockWriter::TiffBlockWriter(const std::string& path, const TiffBlockFormat& format, unsigned threads,
                                 unsigned in_flight)
    : path_(path), format_(format), in_flight_limit_(std::max(1u, in_flight)) {
  messages_ = std::make_unique<TiffMessages>();
  TIFF* tif = tiff_open(path, "r+", messages_.get());
  if (!tif) throw Error("cannot reopen '" + path + "' to write its blocks (libtiff" + messages_->reason() + ")");
  tif_ = tif;
  const auto [width, height, tile_width, tile_height, bits, compression] = read_tile_layout(tif);
  std::uint16_t predictor = PREDICTOR_NONE;
  // The predictor tag exists only for codecs that take one (libtiff reports 0 otherwise).
  if (compression != COMPRESSION_NONE) TIFFGetFieldDefaulted(tif, TIFFTAG_PREDICTOR, &predictor);
  if (!TIFFIsTiled(tif) || tile_width != format.block || tile_height != format.block || bits != format.bits_per_sample ||
      compression != format.compression || predictor != format.predictor || TIFFIsByteSwapped(tif)) {
    TIFFClose(tif);
    tif_ = nullptr;
    throw Error("internal error: '" + path + "' is not laid out as its block writer expects (tiles " +
                std::to_string(tile_width) + "x" + std::to_string(tile_height) + ", " + std::to_string(bits) +
                " bits, compression " + std::to_string(compression) + ", predictor " + std::to_string(predictor) + ")");
  }
  across_ = (width + format.block - 1) / format.block;
  down_ = (height + format.block - 1) / format.block;
  written_.assign(across_ * down_, false);
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  {
    // Encoder threads cost memory of their own: run as many as GDAL's cache limit (reserved from the
    // budget by GdalCacheLimit) holds beside the other writers' threads and one block in flight each,
    // at least one. At the default budgets that is every core; at --memory 64M a few.
    std::lock_guard<std::mutex> lock(held_mutex);
    const std::uint64_t limit = held_bytes_limit();
    const std::uint64_t taken = claimed_bytes + held_bytes;
    const std::uint64_t room = limit > taken ? limit - taken : 0;
    const std::uint64_t affordable = room / (thread_state_bytes() + held_bytes_per_block());
    threads = static_cast<unsigned>(std::max<std::uint64_t>(1, std::min<std::uint64_t>(threads, affordable)));
    in_flight_limit_ = std::min(in_flight_limit_, 2 * threads + 2);
    claimed_ = static_cast<std::uint64_t>(threads) * thread_state_bytes();
    claimed_bytes += claimed_;
  }
  encoder_threads_ = threads;
  for (unsigned i = 0; i < threads; ++i) workers_.emplace_back([this] { worker_main(); });
}

std::uint64_t TiffBlockWriter::thread_state_bytes() const {
  return 2 * format_.block_bytes() + kCodecStateBytes + static_cast<std::uint64_t>(format_.block) * format_.block * 8;
}

TiffBlockWriter::~TiffBlockWriter() {
  failed_ = true;  // abandoned: the workers drop what is left instead of encoding and writing it
  stop_workers();
  {
    std::lock_guard<std::mutex> lock(held_mutex);
    held_bytes -= std::min<std::uint64_t>(held_bytes, static_cast<std::uint64_t>(held_.load()) * held_bytes_per_block());
    claimed_bytes -= std::min(claimed_bytes, claimed_);
  }
  held_room.notify_all();
  if (tif_) TIFFClose(static_cast<TIFF*>(tif_));
}

void TiffBlockWriter::stop_workers() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  work_ready_.notify_all();
  for (std::thread& worker : workers_) worker.join();
  workers_.clear();
}

std::vector<std::uint8_t> TiffBlockWriter::take_buffer(std::uint64_t bytes) {
  std::vector<std::uint8_t> buffer;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!spare_.empty()) {
      buffer = std::move(spare_.back());
      spare_.pop_back();
    }
  }
  buffer.resize(bytes);
  return buffer;
}

std::uint64_t TiffBlockWriter::held_bytes_per_block() const {
  // A block of doubles (the largest a job holds) and its encoded copy.
  return static_cast<std::uint64_t>(format_.block) * format_.block * 8 + format_.block_bytes();
}

void TiffBlockWriter::submit(std::uint64_t bx, std::uint64_t by, std::vector<std::uint8_t> cells, bool doubles) {
  const std::uint64_t cells_bytes = doubles ? static_cast<std::uint64_t>(format_.block) * format_.block * 8 : format_.block_bytes();
  if (bx >= across_ || by >= down_ || cells.size() != cells_bytes || (doubles && !convert_))
    throw Error("internal error: block (" + std::to_string(bx) + ", " + std::to_string(by) + ") of '" + path_ + "'");
  Job job;
  job.cells = std::move(cells);
  job.doubles = doubles;
  enqueue(bx, by, std::move(job));
}

void TiffBlockWriter::submit_encoded(std::uint64_t bx, std::uint64_t by, std::vector<std::uint8_t> encoded) {
  if (bx >= across_ || by >= down_)
    throw Error("internal error: encoded block (" + std::to_string(bx) + ", " + std::to_string(by) + ") of '" + path_ + "'");
  Job job;
  job.encoded = std::move(encoded);
  job.encoded_already = true;
  enqueue(bx, by, std::move(job));
}

void TiffBlockWriter::enqueue(std::uint64_t bx, std::uint64_t by, Job job) {
  const std::uint64_t bytes = held_bytes_per_block();
  const auto waiting_since = std::chrono::steady_clock::now();
  {
    // The shared byte budget first (one block always goes through, so every writer progresses).
    std::unique_lock<std::mutex> lock(held_mutex);
    held_room.wait(lock, [&] { return held_ == 0 || failed_ || claimed_bytes + held_bytes + bytes <= held_bytes_limit(); });
    held_bytes += bytes;
  }
  std::unique_lock<std::mutex> lock(mutex_);
  room_.wait(lock, [&] { return held_ < in_flight_limit_ || error_; });
  seconds_waiting_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - waiting_since).count();
  if (error_) {
    std::lock_guard<std::mutex> held(held_mutex);
    held_bytes -= bytes;
    std::rethrow_exception(error_);
  }
  const std::uint64_t tile = by * across_ + bx;
  if (written_[tile]) throw Error("internal error: block " + std::to_string(tile) + " of '" + path_ + "' written twice");
  written_[tile] = true;
  job.sequence = next_sequence_++;
  job.tile = tile;
  queue_.push_back(std::move(job));
  ++held_;
  work_ready_.notify_one();
}

void TiffBlockWriter::worker_main() {
  std::vector<std::uint8_t> scratch, typed, predicted;
  ZstdBlockCodec zstd;
  double encoding = 0;
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    work_ready_.wait(lock, [&] { return stopping_ || queue_head_ < queue_.size(); });
    if (queue_head_ >= queue_.size()) {  // stopping, nothing left
      seconds_encoding_ += encoding;
      return;
    }
    Job job = std::move(queue_[queue_head_++]);
    if (queue_head_ == queue_.size()) {
      queue_.clear();
      queue_head_ = 0;
    }
    lock.unlock();
    std::exception_ptr failed;
    try {
      if (!failed_ && !job.encoded_already) {
        const auto start = std::chrono::steady_clock::now();
        if (job.doubles) {
          typed.resize(format_.block_bytes());
          convert_(reinterpret_cast<const double*>(job.cells.data()), typed.data(), job.tile % across_, job.tile / across_);
          encode_block(format_, typed, &predicted, &scratch, &job.encoded, &zstd);
        } else {
          encode_block(format_, job.cells, &predicted, &scratch, &job.encoded, &zstd);
        }
        encoding += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      }
    } catch (...) {
      failed = std::current_exception();
    }
    lock.lock();
    if (failed && !error_) {
      error_ = failed;
      failed_ = true;
    }
    encoded_.emplace(job.sequence, std::move(job));
    write_ready_locked();
  }
}

void TiffBlockWriter::write_ready_locked() {
  unsigned released = 0;
  for (auto next = encoded_.find(next_to_write_); next != encoded_.end(); next = encoded_.find(next_to_write_)) {
    Job& job = next->second;
    if (!failed_) {
      const auto size = static_cast<tmsize_t>(job.encoded.size());
      if (TIFFWriteRawTile(static_cast<TIFF*>(tif_), static_cast<std::uint32_t>(job.tile), job.encoded.data(), size) != size)
      {
        error_ = std::make_exception_ptr(Error("cannot write a block of '" + path_ + "' (disk full?)"));
        failed_ = true;
      }
    }
    // Kept for take_buffer up to the blocks in flight: a buffer is made only when none is spare, so
    // keeping them holds no more than the most blocks ever in flight (no new peak), and saves
    // mapping and faulting a fresh block buffer for every block.
    if (spare_.size() < in_flight_limit_) spare_.push_back(std::move(job.cells));
    encoded_.erase(next);
    ++next_to_write_;
    --held_;
    ++released;
  }
  if (released == 0) return;
  {
    std::lock_guard<std::mutex> held(held_mutex);
    held_bytes -= std::min<std::uint64_t>(held_bytes, static_cast<std::uint64_t>(released) * held_bytes_per_block());
  }
  held_room.notify_all();
  room_.notify_all();
}

void TiffBlockWriter::finish(const std::vector<std::uint8_t>& fill) {
  {
    std::unique_lock<std::mutex> lock(mutex_);
    room_.wait(lock, [&] { return held_ == 0; });
  }
  stop_workers();
  if (error_) std::rethrow_exception(error_);
  TIFF* tif = static_cast<TIFF*>(tif_);
  std::vector<std::uint8_t> cells = fill, scratch, encoded, predicted;
  ZstdBlockCodec zstd;
  bool encoded_fill = false;
  for (std::uint64_t tile = 0; tile < written_.size(); ++tile) {
    if (written_[tile]) continue;
    if (!encoded_fill) {
      encode_block(format_, cells, &predicted, &scratch, &encoded, &zstd);
      encoded_fill = true;
    }
    const auto size = static_cast<tmsize_t>(encoded.size());
    if (TIFFWriteRawTile(tif, static_cast<std::uint32_t>(tile), encoded.data(), size) != size)
      throw Error("cannot write a block of '" + path_ + "' (disk full?)");
  }
  const bool flushed = TIFFFlush(tif) == 1;
  TIFFClose(tif);
  tif_ = nullptr;
  if (!flushed) throw Error("cannot finish writing '" + path_ + "' (disk full?)");
}

std::vector<std::uint8_t> encode_tiff_block(const TiffBlockFormat& format, const std::vector<std::uint8_t>& cells,
                                            bool own_predictor, ZstdBlockCodec* zstd) {
  std::vector<std::uint8_t> predicted, scratch, out;
  encode_block(format, cells, &predicted, &scratch, &out, zstd, own_predictor);
  return out;
}

}  // namespace terrazo
