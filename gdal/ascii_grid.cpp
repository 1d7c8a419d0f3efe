#include "gdal/ascii_grid.h"

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

#include "core/error.h"
#include "store/cell_values.h"
#include "gdal/gdal_session.h"

namespace terrazo {

namespace {

constexpr std::size_t kReadBuffer = 64 * 1024;

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && lower(s.substr(s.size() - suffix.size())) == suffix;
}

// White-space separated tokens of a gzip-compressed text file, read forward in 64 KiB chunks.
class GzipTokens {
 public:
  explicit GzipTokens(const std::string& path, std::size_t buffer_bytes = kReadBuffer)
      : path_(path), file_(path, std::ios::binary), buffer_(buffer_bytes) {
    if (!file_) throw Error("cannot open '" + path + "': " + std::strerror(errno));
    stream_.push(boost::iostreams::gzip_decompressor());
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
        if (!token.empty()) return true;
      } else {
        token.push_back(c);
        ++pos_;
      }
    }
  }

 private:
  bool refill() {
    if (eof_) return false;
    try {
      stream_.read(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
    } catch (const std::exception& e) {
      throw Error("cannot decompress '" + path_ + "' (is it a complete gzip file?): " + e.what());
    }
    len_ = static_cast<std::size_t>(stream_.gcount());
    pos_ = 0;
    if (len_ < buffer_.size()) eof_ = true;
    return len_ > 0;
  }

  std::string path_;
  std::ifstream file_;
  boost::iostreams::filtering_istream stream_;
  std::vector<char> buffer_;
  std::size_t pos_ = 0, len_ = 0;
  bool eof_ = false;
};

bool parse_number(const std::string& token, double* value) {
  if (token.empty()) return false;
  char* end = nullptr;
  errno = 0;
  *value = std::strtod(token.c_str(), &end);
  return end == token.c_str() + token.size();
}

bool looks_like_float(const std::string& token) {
  for (char c : token)
    if (c == '.' || c == 'e' || c == 'E' || c == 'n' || c == 'N' || c == 'i' || c == 'I') return true;
  return false;
}

const std::map<std::string, int>& header_keys() {
  static const std::map<std::string, int> keys = {{"ncols", 0},     {"nrows", 1},     {"xllcorner", 2},
                                                  {"xllcenter", 3}, {"yllcorner", 4}, {"yllcenter", 5},
                                                  {"cellsize", 6},  {"dx", 7},        {"dy", 8},
                                                  {"nodata_value", 9}};
  return keys;
}

std::string read_prj(const std::string& path) {
  std::string base = path.substr(0, path.size() - 3);  // without .gz
  const std::string stem = ends_with(base, ".asc") ? base.substr(0, base.size() - 4) : base;
  for (const std::string& candidate : {stem + ".prj", base + ".prj"}) {
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

class GzipAsciiGridReader : public RasterReader {
 public:
  explicit GzipAsciiGridReader(const std::string& path) : path_(path), rule_(CellType::Int32, false, 0.0) {
    GzipTokens tokens(path);
    parse_header_and_scan(tokens);
    info_.crs_wkt = read_prj(path);
    rule_ = NodataRule(info_);
    data_ = std::make_unique<GzipTokens>(path);
    skip_header(*data_);
  }

  const RasterInfo& info() const override { return info_; }
  std::uint64_t bytes_read() const override { return bytes_read_; }
  std::uint64_t resident_bytes(std::uint32_t rows) const override {
    return info_.width * rows * sizeof(double) + 2 * kReadBuffer + (256u << 10);
  }
  std::string format() const override { return "AAIGrid+gzip"; }

  void read_window(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h, double* out) override {
    if (x0 + w > info_.width || y0 + h > info_.height || w == 0 || h == 0)
      throw Error("window " + std::to_string(w) + "x" + std::to_string(h) + " at (" + std::to_string(x0) + ", " +
                  std::to_string(y0) + ") is outside the " + std::to_string(info_.width) + " x " +
                  std::to_string(info_.height) + " cells of '" + path_ + "'");
    if (y0 < first_row_)
      throw Error("'" + path_ + "' is a gzip-compressed ASCII grid, read in one forward pass: row " +
                  std::to_string(y0) + " was already passed (windows must come top to bottom)");
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

  // Pass 1: header, then every number (count, type).
  void parse_header_and_scan(GzipTokens& tokens) {
    std::map<int, double> values;
    std::string token, nodata_text;
    bool have_token = tokens.next(token);
    while (have_token) {
      const auto key = header_keys().find(lower(token));
      if (key == header_keys().end()) break;
      std::string value_text;
      double value;
      if (!tokens.next(value_text) || !parse_number(value_text, &value))
        bad("header key '" + token + "' has no numeric value");
      values[key->second] = value;
      if (key->second == 9) nodata_text = value_text;
      have_token = tokens.next(token);
      ++header_tokens_;
    }
    if (!values.count(0) || !values.count(1)) bad("ncols and nrows are required");
    if (!(values[0] >= 1 && values[1] >= 1 && values[0] == std::floor(values[0]) && values[1] == std::floor(values[1])))
      bad("ncols and nrows must be positive integers");
    info_.width = static_cast<std::uint64_t>(values[0]);
    info_.height = static_cast<std::uint64_t>(values[1]);
    double dx, dy;
    if (values.count(6)) {
      dx = dy = values[6];
    } else if (values.count(7) && values.count(8)) {
      dx = values[7];
      dy = values[8];
    } else {
      bad("cellsize (or dx and dy) is required");
    }
    if (!(values.count(2) || values.count(3)) || !(values.count(4) || values.count(5)))
      bad("xllcorner/xllcenter and yllcorner/yllcenter are required");
    const double west = values.count(2) ? values[2] : values[3] - dx / 2;
    const double south = values.count(4) ? values[4] : values[5] - dy / 2;
    info_.has_geotransform = true;
    info_.geotransform = {west, dx, 0.0, south + dy * static_cast<double>(info_.height), 0.0, -dy};
    bool is_float = false, beyond_int32 = false;
    if (values.count(9)) {
      info_.has_nodata = true;
      info_.nodata = values[9];
      is_float = looks_like_float(nodata_text);
    }
    // The numbers: count them and decide the type.
    const std::uint64_t expected = info_.width * info_.height;
    std::uint64_t count = 0;
    while (have_token) {
      ++count;
      if (count > expected) bad("more than ncols x nrows = " + std::to_string(expected) + " values");
      if (!is_float) {
        if (looks_like_float(token)) {
          is_float = true;
        } else if (token.size() >= 10) {
          double value;
          if (!parse_number(token, &value)) bad("'" + token + "' is not a number");
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

  void skip_header(GzipTokens& tokens) {
    std::string token;
    for (std::uint64_t i = 0; i < 2 * header_tokens_; ++i) tokens.next(token);
  }

  void parse_row(std::vector<double>& row) {
    row.resize(info_.width);
    std::string token;
    const std::uint64_t y = first_row_ + rows_.size();
    for (std::uint64_t x = 0; x < info_.width; ++x) {
      double value;
      if (!data_->next(token)) bad("it ends at row " + std::to_string(y));
      if (!parse_number(token, &value)) bad("'" + token + "' at row " + std::to_string(y) + " is not a number");
      if (info_.type == CellType::Float32 && std::isfinite(value)) {
        if (std::fabs(value) > FLT_MAX) bad("value " + token + " does not fit Float32");
        value = static_cast<double>(static_cast<float>(value));
      }
      row[x] = rule_.is_nodata(value) ? std::numeric_limits<double>::quiet_NaN() : value;
    }
  }

  std::string path_;
  RasterInfo info_;
  NodataRule rule_;
  std::uint64_t header_tokens_ = 0;
  std::unique_ptr<GzipTokens> data_;
  std::deque<std::vector<double>> rows_;  // rows [first_row_, first_row_ + rows_.size())
  std::uint64_t first_row_ = 0;
  std::uint64_t bytes_read_ = 0;
};

}  // namespace

bool is_gzip_ascii_grid(const std::string& path) {
  if (ends_with(path, ".asc.gz")) return true;
  if (!ends_with(path, ".gz")) return false;
  try {
    GzipTokens tokens(path, 256);  // the first line only: a damaged tail is reported by the reader
    std::string token;
    return tokens.next(token) && header_keys().count(lower(token)) > 0;
  } catch (const Error&) {
    return false;
  }
}

std::unique_ptr<RasterReader> open_gzip_ascii_grid(const std::string& path) {
  return std::make_unique<GzipAsciiGridReader>(path);
}

}  // namespace terrazo
