// io/gdal/gdal_session.h: GDAL set up once per process, and its errors turned into terrazo::Error.
//
// ensure_gdal() registers the drivers and installs a silent error handler, so GDAL never prints
// to the terminal: each thread's last GDAL error message stays readable (CPLGetLastErrorMsg) and
// gdal_failure() folds it into the one-line Error terrazo reports. Every io/ function that calls
// GDAL calls ensure_gdal() first.
#pragma once
#include <cstdint>
#include <string>

#include <cpl_error.h>

#include "kernels/common/error.h"

namespace terrazo {

void ensure_gdal();

// GDAL's block-cache limit as terrazo sets it (GdalCacheLimit, io/gdal/gdal_raster.h), kept here so that
// setting it does not load GDAL: the innermost limit is handed to GDAL when ensure_gdal() first runs,
// and at once when GDAL is already loaded (docs/architecture.md "GDAL loaded on demand").
void push_gdal_cache_limit(std::uint64_t bytes);
void pop_gdal_cache_limit();
// The limit in force: the innermost pushed one, else GDAL's own default (which loads GDAL).
std::uint64_t gdal_cache_limit();

// Clears the calling thread's last GDAL error (before a call whose failure we want to explain).
void reset_gdal_error();
// True when the calling thread's last GDAL error since reset_gdal_error() was a failure.
bool gdal_failed();
// Error("<what>: <GDAL's last message>"), or "<what>" alone when GDAL gave none.
Error gdal_failure(const std::string& what);

// While alive, records every GDAL error and warning raised on the calling thread
// (CPLPushErrorHandlerEx; debug messages aside) instead of letting GDAL carry on quietly: GDAL
// reads a truncated GeoTIFF with warnings only and hands back garbage cells, so terrazo treats a
// warning during open or read as an error of its own (docs/reliability.md "Strict readers").
//
//   GdalErrorTrap trap(path);
//   GDALRasterIO(...);
//   trap.check("cannot read window ... of '" + path + "'");  // throws if GDAL said anything
//
// Traps nest (an inner one sees the messages first and passes nothing on).
class GdalErrorTrap {
 public:
  GdalErrorTrap();
  ~GdalErrorTrap();
  GdalErrorTrap(const GdalErrorTrap&) = delete;
  GdalErrorTrap& operator=(const GdalErrorTrap&) = delete;
  bool raised() const { return count_ > 0; }
  // The first message raised (empty when none).
  const std::string& first_message() const { return first_; }
  // Throws Error("<what>: GDAL <error|warning>: <the first message>") when anything was raised.
  void check(const std::string& what) const;
  // Forgets what was raised so far.
  void clear();

 private:
  static void CPL_STDCALL handler(CPLErr type, CPLErrorNum number, const char* message);
  std::string first_;
  bool first_is_warning_ = false;
  unsigned count_ = 0;
};

}  // namespace terrazo
