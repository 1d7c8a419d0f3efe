// io/gdal/srtm_hgt_reader.cpp: open_srtm_hgt (io/gdal/srtm_hgt_reader.h).
#include "io/gdal/srtm_hgt_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <limits>
#include <vector>

#include "kernels/common/error.h"
#include "io/store/cell_values.h"

namespace terrazo {

const char* const kSrtmWgs84Wkt =
    "GEOGCS[\"WGS 84\",DATUM[\"WGS_1984\",SPHEROID[\"WGS 84\",6378137,298.257223563,AUTHORITY[\"EPSG\",\"7030\"]],"
    "AUTHORITY[\"EPSG\",\"6326\"]],PRIMEM[\"Greenwich\",0,AUTHORITY[\"EPSG\",\"8901\"]],UNIT[\"degree\","
    "0.0174532925199433,AUTHORITY[\"EPSG\",\"9122\"]],AXIS[\"Latitude\",NORTH],AXIS[\"Longitude\",EAST],"
    "AUTHORITY[\"EPSG\",\"4326\"]]";

namespace {

// The south-west corner named by `path`'s file name ([NS]dd[EW]ddd.hgt, any case), or false.
bool corner_of(const std::string& path, int* lat, int* lon) {
  const auto slash = path.find_last_of('/');
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  if (name.size() != 11) return false;
  auto up = [&](std::size_t i) { return static_cast<char>(std::toupper(static_cast<unsigned char>(name[i]))); };
  auto digits = [&](std::size_t from, std::size_t n, int* out) {
    int v = 0;
    for (std::size_t i = from; i < from + n; ++i) {
      if (!std::isdigit(static_cast<unsigned char>(name[i]))) return false;
      v = v * 10 + (name[i] - '0');
    }
    *out = v;
    return true;
  };
  if ((up(0) != 'N' && up(0) != 'S') || (up(3) != 'E' && up(3) != 'W')) return false;
  if (up(7) != '.' || up(8) != 'H' || up(9) != 'G' || up(10) != 'T') return false;
  if (!digits(1, 2, lat) || !digits(4, 3, lon)) return false;
  if (up(0) == 'S') *lat = -*lat;
  if (up(3) == 'W') *lon = -*lon;
  return true;
}

class SrtmHgtReader : public RasterReader {
 public:
  SrtmHgtReader(const std::string& path, int fd, std::uint64_t side, int lat, int lon)
      : path_(path), fd_(fd), rule_(CellType::Int16, true, -32768.0) {
    info_.width = info_.height = side;
    info_.type = CellType::Int16;
    info_.has_nodata = true;
    info_.nodata = -32768.0;
    info_.has_geotransform = true;
    // GDAL's SRTMHGT driver, operation for operation (the tests compare the doubles bit for bit).
    const double n = static_cast<double>(side - 1);
    info_.geotransform = {lon - 0.5 / n, 1.0 / n, 0.0, lat + 1 + 0.5 / n, 0.0, -1.0 / n};
    info_.crs_wkt = kSrtmWgs84Wkt;
  }
  ~SrtmHgtReader() override { ::close(fd_); }

  const RasterInfo& info() const override { return info_; }
  std::uint64_t bytes_read() const override { return bytes_read_; }
  std::string format() const override { return "SRTMHGT"; }

  void read_window(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h, double* out) override {
    std::vector<std::int16_t> row(w);
    for (std::uint32_t r = 0; r < h; ++r) {
      read_row(x0, y0 + r, w, row.data());
      cells_to_doubles(row.data(), w, rule_, out + static_cast<std::uint64_t>(r) * w);
    }
  }

  bool read_window_cells(std::uint64_t x0, std::uint64_t y0, std::uint32_t w, std::uint32_t h, void* out,
                         std::uint64_t line_cells) override {
    if (line_cells < w) throw Error("internal error: rows of " + std::to_string(line_cells) + " cells for a window " +
                                    std::to_string(w) + " wide of '" + path_ + "'");
    for (std::uint32_t r = 0; r < h; ++r)
      read_row(x0, y0 + r, w, static_cast<std::int16_t*>(out) + static_cast<std::uint64_t>(r) * line_cells);
    return true;
  }

 private:
  // Cells [x0, x0 + w) of row y in native byte order.
  void read_row(std::uint64_t x0, std::uint64_t y, std::uint32_t w, std::int16_t* out) {
    if (w == 0 || x0 + w > info_.width || y >= info_.height)
      throw Error("window of " + std::to_string(w) + " cells at (" + std::to_string(x0) + ", " + std::to_string(y) +
                  ") is outside the " + std::to_string(info_.width) + " x " + std::to_string(info_.height) +
                  " cells of '" + path_ + "'");
    const std::size_t bytes = static_cast<std::size_t>(w) * 2;
    const off_t at = static_cast<off_t>((y * info_.width + x0) * 2);
    std::size_t done = 0;
    while (done < bytes) {
      const ssize_t got = ::pread(fd_, reinterpret_cast<char*>(out) + done, bytes - done, at + static_cast<off_t>(done));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0)
        throw Error("cannot read row " + std::to_string(y) + " of '" + path_ + "': " +
                    (got < 0 ? std::strerror(errno) : "the file is shorter than its size said"));
      done += static_cast<std::size_t>(got);
    }
    for (std::uint32_t i = 0; i < w; ++i) {  // big-endian on disk
      const auto v = static_cast<std::uint16_t>(out[i]);
      out[i] = static_cast<std::int16_t>(static_cast<std::uint16_t>((v >> 8) | (v << 8)));
    }
    bytes_read_ += bytes;
  }

  std::string path_;
  int fd_;
  RasterInfo info_;
  NodataRule rule_;
  std::uint64_t bytes_read_ = 0;
};

}  // namespace

std::unique_ptr<RasterReader> open_srtm_hgt(const std::string& path) {
  int lat = 0, lon = 0;
  if (!corner_of(path, &lat, &lon) || lat < -90 || lat > 89 || lon < -180 || lon > 179) return nullptr;
  struct stat st;
  if (::stat((path + ".aux.xml").c_str(), &st) == 0) return nullptr;  // PAM may say otherwise: GDAL's business
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return nullptr;  // GDAL reports why
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return nullptr;
  }
  std::uint64_t side = 0;
  for (const std::uint64_t n : {std::uint64_t{1201}, std::uint64_t{3601}})
    if (static_cast<std::uint64_t>(st.st_size) == n * n * 2) side = n;
  if (side == 0) {
    ::close(fd);
    return nullptr;
  }
  return std::make_unique<SrtmHgtReader>(path, fd, side, lat, lon);
}

}  // namespace terrazo
