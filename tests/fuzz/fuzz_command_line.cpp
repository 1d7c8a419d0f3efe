// tests/fuzz/fuzz_command_line.cpp: the option parsers (engine/commands/<cmd>_command.cpp parse_*_options) on
// any argument lists: the first byte picks the command, the rest is split into arguments at NUL
// and newline bytes. Parsers read no file (--tmpdir checks that a directory exists).
#include "engine/commands/export_command.h"
#include "engine/commands/gen_command.h"
#include "engine/commands/index_command.h"
#include "engine/commands/import_command.h"
#include "engine/commands/info_command.h"
#include "engine/commands/mst_command.h"
#include "engine/commands/network_command.h"
#include "engine/commands/od_matrix_command.h"
#include "engine/commands/path_command.h"
#include "engine/commands/sssp_command.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace terrazo;
  if (size < 1) return 0;
  std::vector<std::string> args(1);
  for (std::size_t i = 1; i < size; ++i) {
    if (data[i] == 0 || data[i] == '\n') {
      args.emplace_back();
    } else {
      args.back() += static_cast<char>(data[i]);
    }
  }
  if (args.size() == 1 && args[0].empty()) args.clear();
  fuzz::accept_clear_errors([&] {
    switch (data[0] % 10) {
      case 0: parse_import_options(args); break;
      case 1: parse_info_options(args); break;
      case 2: parse_export_options(args); break;
      case 3: parse_gen_options(args); break;
      case 4: parse_mst_options(args); break;
      case 5: parse_sssp_options(args); break;
      case 6: parse_path_options(args); break;
      case 7: parse_index_options(args); break;
      case 8: parse_od_matrix_options(args); break;
      default: parse_network_options(args); break;
    }
  });
  return 0;
}
