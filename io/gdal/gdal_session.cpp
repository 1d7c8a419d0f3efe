#include "io/gdal/gdal_session.h"

#include <cpl_error.h>
#include <gdal.h>

#include <algorithm>
#include <mutex>
#include <vector>

namespace terrazo {

namespace {

// Keeps nothing but what CPLError already records per thread; prints nothing.
void silent_handler(CPLErr, CPLErrorNum, const char*) {}

// The cache limits pushed and not yet popped, innermost last; GDAL's default once GDAL is loaded.
std::mutex cache_mutex;
std::vector<std::uint64_t> cache_limits;
bool gdal_loaded = false;
GIntBig gdal_default_cache = 0;

}  // namespace

void ensure_gdal() {
  static std::once_flag once;
  std::call_once(once, [] {
    CPLSetErrorHandler(silent_handler);
    GDALAllRegister();
    std::lock_guard<std::mutex> lock(cache_mutex);
    gdal_default_cache = GDALGetCacheMax64();
    if (!cache_limits.empty()) GDALSetCacheMax64(static_cast<GIntBig>(cache_limits.back()));
    gdal_loaded = true;
  });
}

void push_gdal_cache_limit(std::uint64_t bytes) {
  std::lock_guard<std::mutex> lock(cache_mutex);
  cache_limits.push_back(bytes);
  if (gdal_loaded) GDALSetCacheMax64(static_cast<GIntBig>(bytes));
}

void pop_gdal_cache_limit() {
  std::lock_guard<std::mutex> lock(cache_mutex);
  if (cache_limits.empty()) return;
  cache_limits.pop_back();
  if (gdal_loaded)
    GDALSetCacheMax64(cache_limits.empty() ? gdal_default_cache : static_cast<GIntBig>(cache_limits.back()));
}

std::uint64_t gdal_cache_limit() {
  {
    std::lock_guard<std::mutex> lock(cache_mutex);
    if (!cache_limits.empty()) return cache_limits.back();
  }
  ensure_gdal();
  return static_cast<std::uint64_t>(std::max<GIntBig>(GDALGetCacheMax64(), 0));
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

GdalErrorTrap::GdalErrorTrap() {
  ensure_gdal();
  CPLPushErrorHandlerEx(&GdalErrorTrap::handler, this);
}

GdalErrorTrap::~GdalErrorTrap() { CPLPopErrorHandler(); }

void CPL_STDCALL GdalErrorTrap::handler(CPLErr type, CPLErrorNum, const char* message) {
  if (type != CE_Warning && type != CE_Failure && type != CE_Fatal) return;  // CE_Debug, CE_None
  auto* trap = static_cast<GdalErrorTrap*>(CPLGetErrorHandlerUserData());
  if (!trap) return;
  if (trap->count_++ == 0) {
    trap->first_ = message ? message : "";
    trap->first_is_warning_ = type == CE_Warning;
  }
}

void GdalErrorTrap::check(const std::string& what) const {
  if (count_ == 0) return;
  std::string message = first_;
  for (char& c : message)
    if (c == '\n' || c == '\r') c = ' ';
  while (!message.empty() && message.back() == ' ') message.pop_back();
  std::string text = what + ": GDAL " + (first_is_warning_ ? "warning" : "error") + ": " + message;
  if (count_ > 1) text += " (and " + std::to_string(count_ - 1) + " more)";
  throw Error(text);
}

void GdalErrorTrap::clear() {
  count_ = 0;
  first_.clear();
}

}  // namespace terrazo
