// api/output_paths.h: up-front checks of a subcommand's INPUT and OUTPUT paths, so that the common
// mistakes get one clear line (what is wrong, what to do) before any work starts.
//
//   check_input_file(input);               // exists, is a regular file, is readable
//   check_output_file(output, {input});    // its directory exists and is writable, not an input
//
// Both throw terrazo::Error (exit 1) naming the path. Whether an input is a raster at all is
// checked by the io layer when it opens it.
#pragma once
#include <string>
#include <vector>

namespace terrazo {

void check_input_file(const std::string& path);
void check_output_file(const std::string& path, const std::vector<std::string>& inputs = {});

// Lowercase extension with its dot (".tif"), or "" when the name has none.
std::string file_extension(const std::string& path);

}  // namespace terrazo
