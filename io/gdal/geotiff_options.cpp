// io/gdal/geotiff_options.cpp: terrazo's GTiff creation options and the --co checks (io/gdal/geotiff_options.h).
#include "io/gdal/geotiff_options.h"

#include <cpl_string.h>
#include <gdal.h>
#include <tiffio.h>

#include <algorithm>
#include <cctype>
#include <cstring>

#include "kernels/common/error.h"
#include "kernels/common/text_case.h"
#include "io/gdal/gdal_session.h"

namespace terrazo {

namespace {

bool is_layout_key(const std::string& key) { return key == "TILED" || key == "BLOCKXSIZE" || key == "BLOCKYSIZE"; }

// libtiff applies a predictor inside these codecs only.
bool codec_takes_predictor(const std::string& compress) {
  return compress == "DEFLATE" || compress == "LZW" || compress == "ZSTD" || compress == "LZMA";
}

std::string one_line(std::string message) {
  for (char& c : message)
    if (c == '\n' || c == '\r') c = ' ';
  while (!message.empty() && (message.back() == ' ' || message.back() == '.')) message.pop_back();
  return message;
}

// "KEY=VALUE" -> (KEY upper-cased, VALUE); UsageError without '=' or with an empty or odd key.
std::pair<std::string, std::string> split_option(const std::string& text) {
  const std::size_t eq = text.find('=');
  const std::string key = eq == std::string::npos ? std::string() : text.substr(0, eq);
  const bool key_ok = !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
  if (eq == std::string::npos || !key_ok)
    throw UsageError("invalid --co '" + text + "': expected KEY=VALUE, e.g. COMPRESS=DEFLATE");
  return {to_upper(key), text.substr(eq + 1)};
}

// The level terrazo sets with its default codec ("" key: the codec's own default).
struct CodecLevel {
  const char* key;
  const char* value;
};
CodecLevel default_level(const std::string& compress) {
  if (compress == "ZSTD") return {"ZSTD_LEVEL", "1"};
  return {"", ""};
}

}  // namespace

std::string default_geotiff_compress() {
  // GTiff offers ZSTD exactly when its libtiff has the codec (GeoTiffOptions.DefaultCompressMatchesGdal).
  static const std::string codec = TIFFIsCODECConfigured(COMPRESSION_ZSTD) ? "ZSTD" : "DEFLATE";
  return codec;
}

void validate_geotiff_creation_option(const std::string& text) {
  const auto [key, value] = split_option(text);
  if (is_layout_key(key))
    throw UsageError("invalid --co '" + text + "': the block layout is terrazo's (tiled, the tile size" +
                     std::string("; export: --block)"));
  if (key == "PREDICTOR" && value != "1" && value != "2" && value != "3")
    throw UsageError("invalid --co '" + text + "': PREDICTOR is 1 (none), 2 (horizontal) or 3 (floating point)");
  ensure_gdal();
  GDALDriverH driver = GDALGetDriverByName("GTiff");
  if (!driver) throw Error("GDAL was built without its GTiff driver");
  CPLStringList list;
  list.SetNameValue(key.c_str(), value.c_str());
  GdalErrorTrap trap;
  const bool valid = GDALValidateCreationOptions(driver, list.List()) != FALSE;
  if (!valid || trap.raised()) {
    const std::string reason = trap.first_message().empty() ? "GTiff does not accept it" : one_line(trap.first_message());
    throw UsageError("invalid --co '" + text + "': " + reason);
  }
}

std::vector<std::pair<std::string, std::string>> geotiff_creation_options(CellType type, std::uint32_t block,
                                                                          const GeoTiffOptions& options,
                                                                          const std::string& path) {
  std::vector<std::pair<std::string, std::string>> out;
  auto set = [&](const std::string& key, const std::string& value) {
    for (auto& kv : out)
      if (kv.first == key) {
        kv.second = value;
        return;
      }
    out.emplace_back(key, value);
  };
  auto drop = [&](const std::string& key) {
    out.erase(std::remove_if(out.begin(), out.end(), [&](const auto& kv) { return kv.first == key; }), out.end());
  };
  const bool is_float = !cell_type_is_integer(type);
  const std::string block_text = std::to_string(block);
  set("TILED", "YES");
  set("BLOCKXSIZE", block_text);
  set("BLOCKYSIZE", block_text);
  const std::string codec = default_geotiff_compress();
  const CodecLevel level = default_level(codec);
  set("COMPRESS", codec);
  if (level.key[0] != '\0') set(level.key, level.value);
  // Horizontal differencing helps DEM-like data: integer (2) or floating-point (3) predictor.
  set("PREDICTOR", options.predictor ? std::to_string(options.predictor)
                                     : is_float ? "3" : (type == CellType::UInt8 ? "1" : "2"));
  set("BIGTIFF", "IF_SAFER");
  if (options.threads != 1) set("NUM_THREADS", options.threads == 0 ? "ALL_CPUS" : std::to_string(options.threads));

  bool predictor_given = false;
  for (const std::string& text : options.creation) {
    const auto [key, value] = split_option(text);
    if (key == "COMPRESS" && to_upper(value) != codec) {
      if (level.key[0] != '\0') drop(level.key);
      if (!predictor_given && !codec_takes_predictor(to_upper(value))) drop("PREDICTOR");
    }
    if (key == "PREDICTOR") {
      predictor_given = true;
      if (value == "3" && !is_float)
        throw UsageError("invalid --co '" + text + "' for '" + path + "': the floating-point predictor needs " +
                         "Float32 or Float64 cells, and this raster is " + to_string(type));
    }
    set(key, value);
  }
  return out;
}

}  // namespace terrazo
