// engine/commands/output_options.cpp: --co and --ot (engine/commands/output_options.h).
#include "engine/commands/output_options.h"

#include <cctype>

#include "kernels/common/error.h"

namespace terrazo {

GeoTiffOptions parse_geotiff_options(ArgParser& args, const CommonOptions& common) {
  GeoTiffOptions options;
  options.threads = common.threads;
  for (const std::string& text : args.values("--co")) {
    validate_geotiff_creation_option(text);
    options.creation.push_back(text);
  }
  return options;
}

CellType parse_float_output_type(const std::string& text) {
  std::string lower;
  for (char c : text) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "float64") return CellType::Float64;
  if (lower == "float32") return CellType::Float32;
  throw UsageError("invalid --ot '" + text + "': expected Float32 or Float64 (the cost raster is floating point)");
}

}  // namespace terrazo
