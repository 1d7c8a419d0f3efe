#include "gdal/gdal_session.h"

#include <cpl_error.h>
#include <gdal.h>

#include <mutex>

namespace terrazo {

namespace {

// Keeps nothing but what CPLError already records per thread; prints nothing.
void silent_handler(CPLErr, CPLErrorNum, const char*) {}

}  // namespace

void ensure_gdal() {
  static std::once_flag once;
  std::call_once(once, [] {
    CPLSetErrorHandler(silent_handler);
    GDALAllRegister();
  });
}

void reset_gdal_error() { CPLErrorReset(); }

bool gdal_failed() {
  const CPLErr type = CPLGetLastErrorType();
  return type == CE_Failure || type == CE_Fatal;
}

Error gdal_failure(const std::string& what) {
  std::string message = CPLGetLastErrorMsg();
  // GDAL messages sometimes end in a newline or span lines; terrazo errors are one line.
  for (char& c : message)
    if (c == '\n' || c == '\r') c = ' ';
  while (!message.empty() && message.back() == ' ') message.pop_back();
  return Error(message.empty() ? what : what + ": " + message);
}

}  // namespace terrazo
