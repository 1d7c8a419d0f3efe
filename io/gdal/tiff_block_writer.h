// io/gdal/tiff_block_writer.h: the blocks of a tiled GeoTIFF encoded on several threads and written in
// order, for GeoTiffWriter's fast path (io/gdal/gdal_raster.h).
//
// GDAL creates the file (size, type, georeferencing, nodata, creation options, SPARSE_OK so no block
// is written yet) and closes it; TiffBlockWriter then reopens it with libtiff (the library GDAL's
// GTiff driver itself links) and appends each block with TIFFWriteRawTile after encoding it on a
// worker thread: libtiff's own predictor and codec run on a one-block TIFF in memory, the way GTiff's
// NUM_THREADS compression does it, so the bytes are what GDAL would have written, and any GeoTIFF
// reader decodes them. What this buys over GDAL's RasterIO path: no block cache between the caller
// and the encoder, every worker encoding all the time (not only when the cache flushes), and one
// write per block from the calling threads. Blocks reach the file in the order they were submitted,
// so the file's bytes do not depend on the thread count or timing.
//
// Codecs: NONE, LZW, DEFLATE, ZSTD with PREDICTOR 1, 2 or 3 (fast_path_codec() says whether a set of
// creation options qualifies; others stay on GDAL's path).
// Memory: at most `in_flight` blocks are held, each as its cells (doubles at most) and its encoded
// bytes; all writers together hold at most GDAL's cache limit (GdalCacheLimit reserves it), one block
// each at least. The encoder threads' own memory (scratch, codec state, one recycled buffer each) is
// claimed from the same limit: a writer runs as many threads as fit (one at least), so a small
// --memory gets fewer encoders instead of a broken promise.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "io/store/raster_info.h"

namespace terrazo {

struct TiffMessages;

struct TiffBlockFormat {
  std::uint32_t block = 256;         // tile width and height
  std::uint16_t bits_per_sample = 8;
  std::uint16_t sample_format = 1;   // SAMPLEFORMAT_UINT (1), INT (2), IEEEFP (3)
  std::uint16_t compression = 1;     // COMPRESSION_NONE, _LZW, _ADOBE_DEFLATE, _ZSTD
  std::uint16_t predictor = 1;       // 1 none, 2 horizontal, 3 floating point
  int level = -1;                    // ZSTD_LEVEL or ZLEVEL; -1: the codec's default
  std::uint64_t block_bytes() const { return static_cast<std::uint64_t>(block) * block * (bits_per_sample / 8); }
};

// The bytes one more encoder thread of a writer of `block` x `block` blocks takes from GDAL's cache
// limit (its state and two blocks in flight, as doubles at most): what a command plans for the
// encoders beside the cache's minimum, so that a larger budget runs an encoder on every core.
std::uint64_t block_encoder_thread_bytes(std::uint32_t block);

// True when `options` (GTiff creation options, upper-case keys) name a codec and options the fast
// path encodes exactly as GTiff would; fills *format's compression, predictor and level.
bool fast_path_codec(const std::vector<std::pair<std::string, std::string>>& options, TiffBlockFormat* format);
// fast_path_codec, then `block` and the sample size and format of `type`'s cells: the whole format of
// GeoTiffWriter's block writer for one output, or false when GDAL's path must write it.
bool block_writer_format(CellType type, std::uint32_t block,
                         const std::vector<std::pair<std::string, std::string>>& options, TiffBlockFormat* format);

// libtiff's floating-point predictor (PREDICTOR=3) of `rows` rows of `width` samples of
// `sample_bytes` bytes each (one sample per pixel, little-endian host): `out` gets the bytes libtiff
// hands its codec. The block writer applies it itself (libtiff's version copies every row on the heap).
void predict_floating_point(const std::uint8_t* in, std::uint8_t* out, std::uint32_t width, std::uint32_t rows,
                            std::uint32_t sample_bytes);
// One block encoded as the writer's threads encode it: the bytes libtiff writes as tile 0 of a
// one-tile TIFF with `format`'s tags. own_predictor false leaves PREDICTOR=3 to libtiff; without a
// `zstd` codec every block goes through libtiff, with one ZSTD and no compression skip it as the
// writer's threads do (io/gdal/zstd_block_codec.h; the tests compare all of these).
class ZstdBlockCodec;
std::vector<std::uint8_t> encode_tiff_block(const TiffBlockFormat& format, const std::vector<std::uint8_t>& cells,
                                            bool own_predictor, ZstdBlockCodec* zstd = nullptr);

class TiffBlockWriter {
 public:
  // Opens the tiled TIFF at `path` (created by GDAL, no block written) for appending blocks.
  // Checks that its layout matches `format`. threads 0: all cores.
  TiffBlockWriter(const std::string& path, const TiffBlockFormat& format, unsigned threads, unsigned in_flight);
  ~TiffBlockWriter();  // an unfinished writer stops its threads and closes the file (the caller discards it)
  TiffBlockWriter(const TiffBlockWriter&) = delete;
  TiffBlockWriter& operator=(const TiffBlockWriter&) = delete;

  std::uint64_t blocks_across() const { return across_; }
  std::uint64_t blocks_down() const { return down_; }
  // Turns a block of doubles into a block of the file's type (block x block cells each); may throw
  // (a value the type cannot hold). Runs on the worker threads, several blocks at once.
  using Converter = std::function<void(const double* in, std::uint8_t* out, std::uint64_t bx, std::uint64_t by)>;
  void set_converter(Converter convert) { convert_ = std::move(convert); }

  // A buffer of `bytes` for the next submit (recycled from earlier blocks).
  std::vector<std::uint8_t> take_buffer(std::uint64_t bytes);
  // Block (bx, by): block x block cells, row-major, native byte order, of the file's type, or doubles
  // that the converter turns into it (`doubles`); cells beyond the raster's edge are padding. Each
  // block once. Waits while `in_flight` blocks are held. Throws the first conversion, encoding or
  // write error.
  void submit(std::uint64_t bx, std::uint64_t by, std::vector<std::uint8_t> cells, bool doubles);
  // Block (bx, by) already encoded as the workers encode it (encode_tiff_block with own_predictor
  // and a ZstdBlockCodec: another rank's block, docs/distributed.md); written in submit order too.
  void submit_encoded(std::uint64_t bx, std::uint64_t by, std::vector<std::uint8_t> encoded);
  // Seconds submit() waited for room (the encoders were behind) and the workers spent converting
  // and encoding, summed over threads: where a slow output's time goes.
  double seconds_waiting() const { return seconds_waiting_; }
  double seconds_encoding() const { return seconds_encoding_; }
  unsigned encoder_threads() const { return encoder_threads_; }
  // Writes `fill` (one block) for every block never submitted, then closes the file.
  void finish(const std::vector<std::uint8_t>& fill);

 private:
  struct Job {
    std::uint64_t sequence = 0, tile = 0;
    std::vector<std::uint8_t> cells, encoded;
    bool doubles = false;
    bool encoded_already = false;  // submit_encoded: `encoded` is set, nothing to encode
  };
  void enqueue(std::uint64_t bx, std::uint64_t by, Job job);
  void worker_main();
  void write_ready_locked();  // writes the encoded blocks that are next in sequence
  void stop_workers();
  std::uint64_t held_bytes_per_block() const;
  std::uint64_t thread_state_bytes() const;  // one encoder thread's own memory (claimed while it runs)

  std::string path_;
  TiffBlockFormat format_;
  Converter convert_;
  void* tif_ = nullptr;  // TIFF*
  std::unique_ptr<TiffMessages> messages_;  // libtiff's, for tif_ (io/gdal/tiff_messages.h)
  std::uint64_t across_ = 0, down_ = 0;
  std::vector<bool> written_;
  unsigned in_flight_limit_;
  std::uint64_t claimed_ = 0;  // this writer's share of the fixed claims (its threads)

  std::mutex mutex_;
  std::condition_variable work_ready_, room_;
  std::vector<Job> queue_;                  // submitted, not yet taken by a worker (FIFO by sequence)
  std::size_t queue_head_ = 0;
  std::map<std::uint64_t, Job> encoded_;    // done, waiting for their turn to be written
  std::vector<std::vector<std::uint8_t>> spare_;
  std::uint64_t next_sequence_ = 0, next_to_write_ = 0;
  std::atomic<unsigned> held_{0};    // submitted, not yet written
  bool stopping_ = false;
  std::exception_ptr error_;         // the first failure (under mutex_)
  std::atomic<bool> failed_{false};  // error_ is set
  std::vector<std::thread> workers_;
  double seconds_waiting_ = 0, seconds_encoding_ = 0;
  unsigned encoder_threads_ = 0;
};

}  // namespace terrazo
