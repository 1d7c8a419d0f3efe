// engine/commands/output_paths.h: up-front checks of a subcommand's INPUT and OUTPUT paths, so that the common
// mistakes get one clear line (what is wrong, what to do) before any work starts.
//
//   check_input_file(input);               // exists, is a regular file, is readable
//   check_output_file(output, {input});    // its directory exists and is writable, not an input
//
// Both throw IoError (exit 1) naming the path, except an output that is one of `inputs`: a
// UsageError (exit 2), as check_distinct_paths. Whether an input is a raster at all is checked by
// the io layer when it opens it.
#pragma once
#include <string>
#include <vector>

namespace terrazo {

void check_input_file(const std::string& path);
void check_output_file(const std::string& path, const std::vector<std::string>& inputs = {});

// The files of a run, in order: each of `inputs` as check_input_file, then each of `outputs` as
// check_output_file against the inputs and the outputs before it; an empty path is one not given.
void check_run_files(const std::vector<std::string>& inputs, const std::vector<std::string>& outputs);

// One path of a run, with the name the user gave it by ("OUTPUT", "--backlink", "INPUT", ...).
struct NamedPath {
  std::string role;
  std::string path;  // empty: not given (skipped)
};

// Every output must be distinct from every other output and from every input, compared after
// resolving links: an output is the real path of its directory plus its name (publication renames
// onto that name), an input that too and, when it exists, the real path of the file itself (a link
// named as input is read through). Throws UsageError (exit 2) naming both roles and the path;
// called by each command before any work: the run functions of sssp, mst, path, clump, import,
// export, gen, index, corridor, network, and the commands od-matrix and render
// (docs/reliability.md "Distinct output paths").
void check_distinct_paths(const std::vector<NamedPath>& inputs, const std::vector<NamedPath>& outputs);

// Lowercase extension with its dot (".tif"), or "" when the name has none.
std::string file_extension(const std::string& path);

}  // namespace terrazo
