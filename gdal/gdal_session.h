// gdal/gdal_session.h: GDAL set up once per process, and its errors turned into terrazo::Error.
//
// ensure_gdal() registers the drivers and installs a silent error handler, so GDAL never prints
// to the terminal: each thread's last GDAL error message stays readable (CPLGetLastErrorMsg) and
// gdal_failure() folds it into the one-line Error terrazo reports. Every io/ function that calls
// GDAL calls ensure_gdal() first.
#pragma once
#include <string>

#include "core/error.h"

namespace terrazo {

void ensure_gdal();

// Clears the calling thread's last GDAL error (before a call whose failure we want to explain).
void reset_gdal_error();
// True when the calling thread's last GDAL error since reset_gdal_error() was a failure.
bool gdal_failed();
// Error("<what>: <GDAL's last message>"), or "<what>" alone when GDAL gave none.
Error gdal_failure(const std::string& what);

}  // namespace terrazo
