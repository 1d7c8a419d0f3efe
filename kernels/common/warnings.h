// kernels/common/warnings.h: the library's warnings (input it reads but that may not be what was meant, such
// as the first band of a multi-band raster). One process-wide sink: by default a line
// "terrazo: warning: ..." on stderr; tests (and embedders) can replace it.
#pragma once
#include <functional>
#include <string>

namespace terrazo {

using WarningSink = std::function<void(const std::string&)>;

// Reports `text` (one line, no trailing newline) to the sink.
void warn(const std::string& text);
// Replaces the sink (an empty one restores stderr); returns the previous one.
WarningSink set_warning_sink(WarningSink sink);

}  // namespace terrazo
