#include "io/gdal/ascii_grid.h"

#include <ogr_spatialref.h>

#include <boost/iostreams/device/file.hpp>
#include <boost/iostreams/filter/gzip.hpp>
#include <boost/iostreams/filtering_stream.hpp>
#include <cctype>
#include <cerrno>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <vector>

#include "kernels/common/error.h"
#include "kernels/common/text_case.h"
#include "io/store/cell_values.h"
#include "io/gdal/gdal_session.h"

namespace terrazo {

namespace {

constexpr std::size_t kReadBuffer = 64 * 1024;

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && to_lower(s.substr(s.size() - suffix.size())) == suffix;
}

// White-space separated tokens of a text file, plain or gzip-compressed, read forward in 64 KiB
// chunks, each with the line and column (1-based) where it starts.
class TextTokens {
 public:
  TextTokens(const std::string& path, bool gzip, std::size_t buffer_bytes = kReadBuffer)
      : path_(path), gzip_(gzip), file_(path, std::ios::binary), buffer_(buffer_bytes) {
    if (!file_) throw IoError("cannot open '" + path + "': " + std::strerror(errno));
    if (gzip) stream_.push(boost::iostreams::gzip_decompressor());
    stream_.push(file_);
    stream_.exceptions(std::ios::badbit);
  }

  // Next token into `token`; false at the end of the text.
  bool next(std::string& token) {
    token.clear();
    for (;;) {
      if (pos_ == len_ && !refill()) return !token.empty();
      const char c = buffer_[pos_];
      if (std::isspace(static_cast<unsigned char>(c))) {
        ++pos_;
        if (c == '\n') {
          ++line_;
          column_ = 1;
        } else {
          ++column_;
        }
        if (!token.empty()) return true;
      } else {
        if (token.empty()) {
          token_line_ = line_;
          token_column_ = column_;
        }
        token.push_back(c);
        ++pos_;
        ++column_;
      }
    }
  }
  // Where the last token returned by next() starts: "line L, column C".
  std::string where() const {
    return "line " + std::to_string(token_line_) + ", column " + std::to_string(token_column_);
  }

 private:
  bool refill() {
    if (eof_) return false;
    try {
      stream_.read(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
    } catch (const std::exception& e) {
      throw IoError("cannot " + std::string(gzip_ ? "decompress" : "read") + " '" + path_ + "'" +
                  (gzip_ ? " (is it a complete gzip file?)" : "") + ": " + e.what());
    }
    len_ = static_cast<std::size_t>(stream_.gcount());
    pos_ = 0;
    if (len_ < buffer_.size()) eof_ = true;
    return len_ > 0;
  }

  std::string path_;
  bool gzip_;
  std::ifstream file_;
  boost::iostreams::filtering_istream stream_;
  std::vector<char> buffer_;
  std::size_t pos_ = 0, len_ = 0;
  bool eof_ = false;
  std::uint64_t line_ = 1, column_ = 1, token_line_ = 0, token_column_ = 0;
};

// A decimal number and nothing else: [+-] digits [. digits] [e|E [+-] digits], at least one digit
// before the exponent. NaN, Inf, hexadecimal and words are not numbers here, though strtod takes
// them (a cell of "nan" or "x" is a damaged file, not a value).
bool parse_number(const std::string& token, double* value) {
  std::size_t i = 0;
  const std::size_t n = token.size();
  if (i < n && (token[i] == '+' || token[i] == '-')) ++i;
  std::size_t digits = 0;
  while (i < n && std::isdigit(static_cast<unsigned char>(token[i]))) ++i, ++digits;
  if (i < n && token[i] == '.') {
    ++i;
    while (i < n && std::isdigit(static_cast<unsigned char>(token[i]))) ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < n && (token[i] == 'e' || token[i] == 'E')) {
    ++i;
    if (i < n && (token[i] == '+' || token[i] == '-')) ++i;
    std::size_t exponent_digits = 0;
    while (i < n && std::isdigit(static_cast<unsigned char>(token[i]))) ++i, ++exponent_digits;
    if (exponent_digits == 0) return false;
  }
  if (i != n) return false;
  *value = std::strtod(token.c_str(), nullptr);
  return std::isfinite(*value);
}

bool looks_like_float(const std::string& token) {
  for (char c : token)
    if (c == '.' || c == 'e' || c == 'E') return true;
  return false;
}

enum HeaderKey { kNcols, kNrows, kXllcorner, kXllcenter, kYllcorner, kYllcenter, kCellsize, kDx, kDy, kNodata };

const std::map<std::string, int>& header_keys() {
  static const std::map<std::string, int> keys = {
      {"ncols", kNcols},         {"nrows", kNrows},         {"xllcorner", kXllcorner}, {"xllcenter", kXllcenter},
      {"yllcorner", kYllcorner}, {"yllcenter", kYllcenter}, {"cellsize", kCellsize},   {"dx", kDx},
      {"dy", kDy},               {"nodata_value", kNodata}};
  return keys;
}

// `path` without its .gz and .asc suffixes, for the .prj beside it.
std::string read_prj(const std::string& path, bool gzip) {
  std::string base = gzip ? path.substr(0, path.size() - 3) : path;  // without .gz
  const std::string stem = ends_with(base, ".asc") ? base.substr(0, base.size() - 4) : base;
  for (const std::string& candidate : {stem + ".prj", stem + ".PRJ", base + ".prj"}) {
    std::ifstream in(candidate);
    if (!in) continue;
    std::vector<std::string> lines;
    std::string line;
    while (std::getline(in, line)) lines.push_back(line);
    std::vector<char*> pointers;
    for (std::string& l : lines) pointers.push_back(l.data());
    pointers.push_back(nullptr);
    ensure_gdal();
    OGRSpatialReference srs;
    std::string text;
    for (const std::string& l : lines) text += l + "\n";
    if (srs.importFromESRI(pointers.data()) != OGRERR_NONE && srs.SetFromUserInput(text.c_str()) != OGRERR_NONE)
      throw Error("cannot read the CRS in '" + candidate + "': not an ESRI .prj or WKT");
    char* wkt = nullptr;
    srs.exportToWkt(&wkt);
    std::string result = wkt ? wkt : "";
    CPLFree(wkt);
    return result;
  }
  return "";
}

class AsciiGridReader : public RasterReader {
 public:
  AsciiGridReader(const std::string& path, bool gzip) : path_(path), gzip_(gzip), rule_(CellType::Int32, false, 0.0) {
    TextTokens tokens(path, gzip);
    parse_header_and_scan(tokens);
    info_.crs_wkt = read_prj(path, gzip);
    rule_ = NodataRule(info_);
    rewind();
  }

  const RasterInfo& info() const override { return info_; }
  std::uint64_t bytes_read() const override { return bytes_read_; }
  std::uint64_t resident_bytes(std::uint32_t rows) const override {
    return info_.width * rows * sizeof(double) + 2 * kReadBuffer + (256u << 10);
  }
  std::string format() const override { return gzip_ ? "AAIGrid+gzip" : "AAIGrid"; }

  void read_window(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h, double* out) override {
    if (x0 + w > info_.width || y0 + h > info_.height || w == 0 || h == 0)
      throw Error("window " + std::to_string(w) + "x" + std::to_string(h) + " at (" + std::to_string(x0) + ", " +
                  std::to_string(y0) + ") is outside the " + std::to_string(info_.width) + " x " +
                  std::to_string(info_.height) + " cells of '" + path_ + "'");
    if (y0 < first_row_) rewind();  // a row already passed: parse again from the top
    while (first_row_ < y0 && !rows_.empty()) {
      rows_.pop_front();
      ++first_row_;
    }
    std::vector<double> row;
    while (first_row_ + rows_.size() < y0 + h) {
      parse_row(row);
      if (first_row_ + rows_.size() < y0) {
        ++first_row_;  // a row above the window: parsed and dropped
        continue;
      }
      rows_.push_back(std::move(row));
      row = std::vector<double>();
    }
    for (std::uint32_t r = 0; r < h; ++r) {
      const std::vector<double>& src = rows_[y0 + r - first_row_];
      std::copy(src.begin() + static_cast<std::ptrdiff_t>(x0), src.begin() + static_cast<std::ptrdiff_t>(x0 + w),
                out + static_cast<std::uint64_t>(r) * w);
    }
    bytes_read_ += static_cast<std::uint64_t>(w) * h * cell_type_size(info_.type);
  }

 private:
  [[noreturn]] void bad(const std::string& what) const {
    throw Error("'" + path_ + "' is not a valid ESRI ASCII grid: " + what);
  }

  // Pass 1: header, then every number (count, type). Every token is checked here, so a damaged
  // file is an Error at open, before any output exists.
  void parse_header_and_scan(TextTokens& tokens) {
    std::string token;
    bool have_token = tokens.next(token);
    AsciiHeader header = read_header(tokens, token, have_token);
    apply_header(header);
    const bool nodata_is_float = header.values.count(kNodata) && looks_like_float(header.nodata_text);
    scan_values(tokens, token, have_token, nodata_is_float);
  }

  // The header's keys and values, in the order read, and nodata's text (its type hint).
  struct AsciiHeader {
    std::map<int, double> values;
    std::string nodata_text;
  };

  // Reads the header keys from `token` on; leaves `token` at the first token that is not a key
  // (have_token false: the file ended).
  AsciiHeader read_header(TextTokens& tokens, std::string& token, bool& have_token) {
    AsciiHeader header;
    std::map<int, double>& values = header.values;
    while (have_token) {
      const auto key = header_keys().find(to_lower(token));
      if (key == header_keys().end()) break;
      const std::string name = token;
      std::string value_text;
      double value;
      if (!tokens.next(value_text) || !parse_number(value_text, &value))
        bad("header key '" + name + "' has no numeric value" +
            (value_text.empty() ? std::string() : " ('" + value_text + "' at " + tokens.where() + ")"));
      if (values.count(key->second)) bad("header key '" + name + "' appears twice (" + tokens.where() + ")");
      values[key->second] = value;
      if (key->second == kNodata) header.nodata_text = value_text;
      have_token = tokens.next(token);
      ++header_tokens_;
    }
    return header;
  }

  // Checks the header (required keys, sizes, cell size) and fills the size, the geotransform and
  // the nodata of info_.
  void apply_header(AsciiHeader& header) {
    std::map<int, double>& values = header.values;
    auto require = [&](std::initializer_list<int> any_of, const char* names) {
      for (int k : any_of)
        if (values.count(k)) return;
      bad(std::string("header key ") + names + " is missing");
    };
    require({kNcols}, "'ncols'");
    require({kNrows}, "'nrows'");
    require({kXllcorner, kXllcenter}, "'xllcorner' (or 'xllcenter')");
    require({kYllcorner, kYllcenter}, "'yllcorner' (or 'yllcenter')");
    if (!values.count(kCellsize) && !(values.count(kDx) && values.count(kDy)))
      bad("header key 'cellsize' (or 'dx' and 'dy') is missing");
    for (int k : {kNcols, kNrows})
      if (!(values[k] >= 1 && values[k] == std::floor(values[k]) && values[k] < 9.0e18))
        bad(std::string(k == kNcols ? "ncols" : "nrows") + " must be a positive integer, not " +
            std::to_string(values[k]));
    info_.width = static_cast<std::uint64_t>(values[kNcols]);
    info_.height = static_cast<std::uint64_t>(values[kNrows]);
    if (info_.width > (std::uint64_t{1} << 40) / info_.height) bad("ncols x nrows is beyond 2^40 cells");
    double dx, dy;
    if (values.count(kCellsize)) {
      dx = dy = values[kCellsize];
      if (!(dx > 0)) bad("cellsize must be positive, not " + std::to_string(dx));
    } else {
      dx = values[kDx];
      dy = values[kDy];
      if (!(dx > 0) || !(dy > 0)) bad("dx and dy must be positive");
    }
    const double west = values.count(kXllcorner) ? values[kXllcorner] : values[kXllcenter] - dx / 2;
    const double south = values.count(kYllcorner) ? values[kYllcorner] : values[kYllcenter] - dy / 2;
    info_.has_geotransform = true;
    info_.geotransform = {west, dx, 0.0, south + dy * static_cast<double>(info_.height), 0.0, -dy};
    if (values.count(kNodata)) {
      info_.has_nodata = true;
      info_.nodata = values[kNodata];
    }
  }

  // The numbers from `token` on: checks each, counts them (ncols x nrows exactly) and decides the
  // type (Float32 when one is written as a float, nodata included; else Int32 or, beyond it, Float64).
  void scan_values(TextTokens& tokens, std::string& token, bool have_token, bool is_float) {
    bool beyond_int32 = false;
    const std::uint64_t expected = info_.width * info_.height;
    std::uint64_t count = 0;
    while (have_token) {
      ++count;
      if (count > expected)
        bad("value '" + token + "' at " + tokens.where() + " is one more than ncols x nrows = " +
            std::to_string(expected));
      double value;
      if (!parse_number(token, &value))
        bad("'" + token + "' at " + tokens.where() + " is not a number (row " + std::to_string((count - 1) / info_.width) +
            ", column " + std::to_string((count - 1) % info_.width) + " of the grid)");
      if (!is_float) {
        if (looks_like_float(token)) {
          is_float = true;
        } else {
          beyond_int32 = beyond_int32 || value < INT_MIN || value > INT_MAX;
        }
      }
      have_token = tokens.next(token);
    }
    if (count < expected)
      bad("it holds " + std::to_string(count) + " values, ncols x nrows = " + std::to_string(expected) +
          " (truncated?)");
    info_.type = is_float ? CellType::Float32 : (beyond_int32 ? CellType::Float64 : CellType::Int32);
  }

  // Pass 2 starts (again) at the first cell.
  void rewind() {
    data_.reset();
    data_ = std::make_unique<TextTokens>(path_, gzip_);
    std::string token;
    for (std::uint64_t i = 0; i < 2 * header_tokens_; ++i) data_->next(token);
    rows_.clear();
    first_row_ = 0;
  }

  void parse_row(std::vector<double>& row) {
    row.resize(info_.width);
    std::string token;
    const std::uint64_t y = first_row_ + rows_.size();
    for (std::uint64_t x = 0; x < info_.width; ++x) {
      double value;
      if (!data_->next(token)) bad("it ends at row " + std::to_string(y) + " (changed since it was opened?)");
      if (!parse_number(token, &value)) bad("'" + token + "' at " + data_->where() + " is not a number");
      if (info_.type == CellType::Float32) {
        if (std::fabs(value) > FLT_MAX) bad("value " + token + " at " + data_->where() + " does not fit Float32");
        value = static_cast<double>(static_cast<float>(value));
      }
      row[x] = rule_.is_nodata(value) ? std::numeric_limits<double>::quiet_NaN() : value;
    }
  }

  std::string path_;
  bool gzip_;
  RasterInfo info_;
  NodataRule rule_;
  std::uint64_t header_tokens_ = 0;
  std::unique_ptr<TextTokens> data_;
  std::deque<std::vector<double>> rows_;  // rows [first_row_, first_row_ + rows_.size())
  std::uint64_t first_row_ = 0;
  std::uint64_t bytes_read_ = 0;
};

// The first token of the (decompressed) text is a header key.
bool starts_like_ascii_grid(const std::string& path, bool gzip) {
  try {
    TextTokens tokens(path, gzip, 256);  // the first line only: a damaged tail is reported by the reader
    std::string token;
    return tokens.next(token) && header_keys().count(to_lower(token)) > 0;
  } catch (const Error&) {
    return false;
  }
}

}  // namespace

bool is_ascii_grid(const std::string& path, bool* gzip) {
  *gzip = ends_with(path, ".gz");
  if (ends_with(path, ".asc.gz") || ends_with(path, ".asc")) return true;
  return starts_like_ascii_grid(path, *gzip);
}

std::unique_ptr<RasterReader> open_ascii_grid(const std::string& path, bool gzip) {
  return std::make_unique<AsciiGridReader>(path, gzip);
}

}  // namespace terrazo
