// tests/test_command_line.cpp: the option parser (engine/commands/command_line.h), the --json writer
// (kernels/common/json_summary.h) that every subcommand shares, and every command's library entry point
// (engine/commands/<command>_command.h) parsed in-process: defaults, good and bad values, one-line usage errors,
// and the exit-code class of each failure (UsageError: 2, Error: 1).
#include <gtest/gtest.h>

#include <cmath>

#include <string>
#include <vector>

#include "kernels/common/error.h"
#include "engine/commands/command_line.h"
#include "tests/support/test_support.h"
#include "engine/commands/export_command.h"
#include "engine/commands/gen_command.h"
#include "engine/commands/import_command.h"
#include "engine/commands/info_command.h"
#include "engine/commands/mst_command.h"
#include "engine/commands/path_command.h"
#include "engine/commands/sssp_command.h"
#include "engine/cost_models/step_lengths.h"
#include "engine/mst/phases.h"
#include "engine/raster_inputs/pipeline_input.h"
#include "kernels/common/device_choice.h"
#include "kernels/common/json_summary.h"
#include "kernels/common/progress.h"

using terrazo::ArgParser;
using terrazo::UsageError;
using terrazo::testing::contains;

namespace {

// The message of the UsageError that `f` throws, or "" if it throws none.
template <class F>
std::string usage_error(F&& f) {
  try {
    f();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(ArgParser, ValuesFlagsAndPositionals) {
  ArgParser args("x", {"--memory", "512M", "dem.tif", "--json", "--tile=128", "dem.tzs"});
  EXPECT_EQ(args.size_value("--memory"), 512ull << 20);
  EXPECT_TRUE(args.flag("--json"));
  EXPECT_FALSE(args.flag("--verify"));
  EXPECT_EQ(args.int_value("tile"), 128);
  EXPECT_EQ(args.positionals(2, 2, "INPUT OUTPUT"), (std::vector<std::string>{"dem.tif", "dem.tzs"}));
}

TEST(ArgParser, RepeatedFlagsAndLastWins) {
  ArgParser args("sssp", {"--source", "1,2", "--source=3,4", "--scale", "2", "--scale", "3", "in", "out"});
  EXPECT_EQ(args.values("--source"), (std::vector<std::string>{"1,2", "3,4"}));
  EXPECT_EQ(args.double_value("--scale"), 3.0);
  EXPECT_EQ(args.positionals(2, 2, "INPUT OUTPUT").size(), 2u);
}

TEST(ArgParser, NegativeNumbersAreValues) {
  ArgParser args("x", {"--offset", "-3.5", "--shift", "-7", "out.tif"});
  EXPECT_EQ(args.double_value("--offset"), -3.5);
  EXPECT_EQ(args.int_value("--shift"), -7);
  EXPECT_EQ(args.positionals(1, 1, "OUTPUT"), std::vector<std::string>{"out.tif"});
}

TEST(ArgParser, DoubleDashEndsFlags) {
  ArgParser args("info", {"--json", "--", "-odd-name.tif"});
  EXPECT_TRUE(args.flag("--json"));
  EXPECT_EQ(args.positionals(1, 1, "INPUT"), std::vector<std::string>{"-odd-name.tif"});
  ArgParser help_after("info", {"--", "--help"});
  EXPECT_FALSE(help_after.help_requested());
}

TEST(ArgParser, HelpAnywhere) {
  EXPECT_TRUE(ArgParser("mst", {"in.tif", "-h"}).help_requested());
  EXPECT_TRUE(ArgParser("mst", {"--help", "in.tif"}).help_requested());
  EXPECT_FALSE(ArgParser("mst", {"in.tif"}).help_requested());
}

TEST(ArgParser, UnknownFlagIsNamed) {
  ArgParser args("info", {"--bogus=3", "dem.tif"});
  const std::string message = usage_error([&] { args.positionals(1, 1, "INPUT"); });
  EXPECT_TRUE(contains(message, "unknown flag '--bogus'")) << message;
  ArgParser short_flag("info", {"-x", "dem.tif"});
  EXPECT_TRUE(contains(usage_error([&] { short_flag.positionals(1, 1, "INPUT"); }), "'-x'"));
}

TEST(ArgParser, PositionalCounts) {
  EXPECT_TRUE(contains(usage_error([] { ArgParser("export", {}).positionals(2, 2, "INPUT OUTPUT"); }),
                       "missing INPUT OUTPUT"));
  const std::string one = usage_error([] { ArgParser("export", {"a.tzs"}).positionals(2, 2, "INPUT OUTPUT"); });
  EXPECT_TRUE(contains(one, "INPUT OUTPUT") && contains(one, "'a.tzs'")) << one;
  const std::string three = usage_error([] { ArgParser("export", {"a", "b", "c"}).positionals(2, 2, "INPUT OUTPUT"); });
  EXPECT_TRUE(contains(three, "too many arguments") && contains(three, "'c'")) << three;
}

TEST(ArgParser, MissingValueIsNamed) {
  const std::string at_end = usage_error([] { ArgParser("import", {"in", "out", "--memory"}).value("--memory"); });
  EXPECT_TRUE(contains(at_end, "--memory needs a value")) << at_end;
  const std::string before_flag = usage_error([] { ArgParser("import", {"--memory", "--json"}).value("--memory"); });
  EXPECT_TRUE(contains(before_flag, "--memory needs a value")) << before_flag;
  const std::string with_value = usage_error([] { ArgParser("info", {"--json=yes"}).flag("--json"); });
  EXPECT_TRUE(contains(with_value, "--json takes no value")) << with_value;
}

TEST(ArgParser, MalformedNumbersNameFlagAndValue) {
  const std::string size = usage_error([] { ArgParser("x", {"--memory", "12X"}).size_value("--memory"); });
  EXPECT_TRUE(contains(size, "--memory") && contains(size, "12X")) << size;
  const std::string real = usage_error([] { ArgParser("x", {"--scale", "1.5e"}).double_value("--scale"); });
  EXPECT_TRUE(contains(real, "--scale") && contains(real, "1.5e")) << real;
  EXPECT_FALSE(usage_error([] { ArgParser("x", {"--scale", "nan"}).double_value("--scale"); }).empty());
  const std::string integer = usage_error([] { ArgParser("x", {"--threads", "2.5"}).int_value("--threads"); });
  EXPECT_TRUE(contains(integer, "--threads") && contains(integer, "2.5")) << integer;
  EXPECT_FALSE(usage_error([] { ArgParser("x", {"--n", "99999999999999999999"}).int_value("--n"); }).empty());
}

TEST(CommonOptions, DefaultsAndValues) {
  ArgParser none("mst", {"in", "out"});
  const auto defaults = terrazo::parse_common_options(none);
  EXPECT_EQ(defaults.memory_bytes, 1ull << 30);
  EXPECT_EQ(defaults.device, terrazo::DeviceRequest::Auto);
  EXPECT_EQ(defaults.threads, 0u);
  EXPECT_EQ(defaults.tile, 0u);
  EXPECT_FALSE(defaults.json);
  EXPECT_FALSE(defaults.quiet);

  ArgParser args("mst", {"--memory", "2G", "--gpu-memory", "512M", "--device", "cuda", "--threads", "3", "--tile",
                         "4096", "--tmpdir", "/tmp", "--json", "-q", "in", "out"});
  const auto options = terrazo::parse_common_options(args);
  EXPECT_EQ(options.memory_bytes, 2ull << 30);
  EXPECT_EQ(options.gpu_memory_bytes, 512ull << 20);
  EXPECT_EQ(options.device, terrazo::DeviceRequest::Cuda);
  EXPECT_EQ(options.threads, 3u);
  EXPECT_EQ(options.tile, 4096u);
  EXPECT_EQ(options.tmpdir, "/tmp");
  EXPECT_TRUE(options.json);
  EXPECT_TRUE(options.quiet);
  EXPECT_EQ(args.positionals(2, 2, "INPUT OUTPUT").size(), 2u);

  ArgParser long_quiet("mst", {"--quiet"});
  EXPECT_TRUE(terrazo::parse_common_options(long_quiet).quiet);
}

TEST(CommonOptions, ValidationNamesFlagAndValue) {
  auto message = [](std::vector<std::string> argv) {
    return usage_error([&] {
      ArgParser args("mst", argv);
      terrazo::parse_common_options(args);
    });
  };
  for (const char* tile : {"100", "8", "8192", "0", "-256", "abc"}) {
    const std::string m = message({"--tile", tile});
    EXPECT_TRUE(contains(m, "--tile") && contains(m, tile)) << tile << ": " << m;
  }
  for (const char* tile : {"16", "256", "4096"}) EXPECT_EQ(message({"--tile", tile}), "") << tile;
  const std::string device = message({"--device", "gpu"});
  EXPECT_TRUE(contains(device, "--device") && contains(device, "gpu") && contains(device, "auto, cpu or cuda"))
      << device;
  const std::string threads = message({"--threads", "-1"});
  EXPECT_TRUE(contains(threads, "--threads") && contains(threads, "-1")) << threads;
  EXPECT_EQ(message({"--threads", "0"}), "");
  const std::string memory = message({"--memory", "0"});
  EXPECT_TRUE(contains(memory, "--memory")) << memory;
  const std::string tmpdir = message({"--tmpdir", "/no/such/dir"});
  EXPECT_TRUE(contains(tmpdir, "--tmpdir") && contains(tmpdir, "/no/such/dir")) << tmpdir;
}

TEST(CommonOptions, WeightAndConnectivity) {
  EXPECT_EQ(terrazo::parse_weight_model("max"), terrazo::WeightModel::Max);
  EXPECT_EQ(terrazo::parse_weight_model("absdiff"), terrazo::WeightModel::AbsDiff);
  EXPECT_EQ(terrazo::parse_weight_model("friction"), terrazo::WeightModel::Friction);
  EXPECT_TRUE(contains(usage_error([] { terrazo::parse_weight_model("slope"); }), "--weight 'slope'"));
  EXPECT_EQ(terrazo::parse_connectivity("4"), terrazo::Connectivity::Four);
  EXPECT_EQ(terrazo::parse_connectivity("8"), terrazo::Connectivity::Eight);
  EXPECT_TRUE(contains(usage_error([] { terrazo::parse_connectivity("6"); }), "--connectivity '6'"));
}

TEST(JsonSummary, WritesOneObject) {
  terrazo::JsonObject phases;
  phases.add("block_local", 1.5).add("merge", 0.25);
  terrazo::JsonObject summary;
  summary.add("command", "mst")
      .add("edges", std::uint64_t{18446744073709551615ull})
      .add("offset", -3)
      .add("ok", true)
      .add("ratio", 0.1)
      .add("nan", std::nan(""))
      .add("phases", phases)
      .add("sizes", std::vector<int>{1, 2})
      .add("names", std::vector<std::string>{"a", "b"});
  EXPECT_EQ(summary.str(),
            "{\"command\":\"mst\",\"edges\":18446744073709551615,\"offset\":-3,\"ok\":true,\"ratio\":0.1,"
            "\"nan\":null,\"phases\":{\"block_local\":1.5,\"merge\":0.25},\"sizes\":[1,2],\"names\":[\"a\",\"b\"]}");
}

TEST(JsonSummary, EscapesAndReplaces) {
  EXPECT_EQ(terrazo::json_quote("a\"b\\c\n\t\x01"), "\"a\\\"b\\\\c\\n\\t\\u0001\"");
  EXPECT_EQ(terrazo::json_number(3.0), "3");
  EXPECT_EQ(terrazo::json_number(1e300), "1e+300");
  terrazo::JsonObject object;
  object.add("x", 1).add("y", 2).add("x", "again");
  EXPECT_EQ(object.str(), "{\"x\":\"again\",\"y\":2}");
  EXPECT_EQ(terrazo::JsonObject().str(), "{}");
}

namespace {

using Args = std::vector<std::string>;

// The message of the UsageError `parse(args)` throws (checked to be one line), or "" if none.
template <class Parse>
std::string parse_error(Parse parse, const Args& args) {
  const std::string message = usage_error([&] { parse(args); });
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  return message;
}

}  // namespace

TEST(CommandLine, MstDefaultsAndValues) {
  const auto d = terrazo::parse_mst_options({"dem.tif", "edges.tif"});
  EXPECT_EQ(d.mst.input, "dem.tif");
  EXPECT_EQ(d.mst.output, "edges.tif");
  EXPECT_EQ(d.mst.weight, terrazo::WeightModel::Max);
  EXPECT_EQ(d.mst.scale, 0.0);
  EXPECT_EQ(d.mst.connectivity, terrazo::Connectivity::Eight);
  EXPECT_EQ(d.mst.merge_mode, terrazo::MstMergeMode::Auto);
  EXPECT_EQ(d.common.memory_bytes, 1ull << 30);
  EXPECT_FALSE(d.common.json);
  const auto o = terrazo::parse_mst_options({"--weight", "friction", "--scale=250", "--connectivity", "4", "--memory",
                                             "64M", "--merge", "cpu-levels", "--json", "-q", "--edge-list", "t.bin",
                                             "dem.tzs", "-"});
  EXPECT_EQ(o.mst.weight, terrazo::WeightModel::Friction);
  EXPECT_EQ(o.mst.scale, 250.0);
  EXPECT_EQ(o.mst.connectivity, terrazo::Connectivity::Four);
  EXPECT_EQ(o.mst.merge_mode, terrazo::MstMergeMode::CpuLevels);
  EXPECT_EQ(o.mst.output, "");
  EXPECT_EQ(o.mst.edge_list, "t.bin");
  EXPECT_EQ(o.common.memory_bytes, 64ull << 20);
  EXPECT_TRUE(o.common.json && o.common.quiet);
  // A --scale far beyond 1e300 that is still a double is the weight rule's to judge, not the parser's.
  EXPECT_EQ(terrazo::parse_mst_options({"--scale", "1e305", "a", "b"}).mst.scale, 1e305);
  const auto parse = terrazo::parse_mst_options;
  EXPECT_TRUE(contains(parse_error(parse, {"--scale", "-3", "a", "b"}), "'-3'"));
  EXPECT_TRUE(contains(parse_error(parse, {"--scale", "0", "a", "b"}), "--scale '0'"));
  EXPECT_TRUE(contains(parse_error(parse, {"--scale", "1e400", "a", "b"}), "'1e400'"));
  EXPECT_TRUE(contains(parse_error(parse, {"--weight", "slope", "a", "b"}), "slope"));
  EXPECT_TRUE(contains(parse_error(parse, {"--merge", "gpu", "a", "b"}), "gpu"));
  EXPECT_TRUE(contains(parse_error(parse, {"a", "-"}), "nothing would be output"));
  EXPECT_TRUE(contains(parse_error(parse, {"a"}), "INPUT EDGES.tif"));
}

// An enum flag's names are one table (kernels/common/enum_names.h): every name parses to the value that
// prints as it, and any other text is refused naming the flag, the text and every name.
TEST(CommandLine, EnumFlagsParseTheirNamesAndListThemWhenRefused) {
  for (const char* name : {"cells", "map", "geodesic"})
    EXPECT_STREQ(terrazo::to_string(terrazo::parse_distance_mode(name)), name);
  for (const char* name : {"auto", "memory", "direct", "import"})
    EXPECT_STREQ(terrazo::to_string(terrazo::parse_input_mode(name)), name);
  for (const char* name : {"auto", "cpu", "cpu-levels", "cuda"})
    EXPECT_STREQ(terrazo::to_string(terrazo::parse_merge_mode(name)), name);
  for (const char* name : {"auto", "cpu", "cuda"})
    EXPECT_STREQ(terrazo::device_request_name(terrazo::parse_device_request(name)), name);
  EXPECT_EQ(usage_error([] { terrazo::parse_distance_mode("Map"); }),
            "invalid --distance 'Map': expected cells, map or geodesic");
  EXPECT_EQ(usage_error([] { terrazo::parse_merge_mode(""); }),
            "invalid --merge '': expected auto, cpu, cpu-levels or cuda");
  EXPECT_EQ(usage_error([] { terrazo::parse_input_mode("disk"); }),
            "invalid --input-mode 'disk': expected auto, memory, direct or import");
  // A switch qualifying another flag is refused without it.
  EXPECT_TRUE(contains(parse_error(terrazo::parse_sssp_options, {"--source", "1,1", "--skip-fingerprint-check", "a", "b"}),
                       "--skip-fingerprint-check applies to --index INDEX.tzi only"));
  EXPECT_TRUE(contains(parse_error(terrazo::parse_sssp_options, {"--source", "1,1", "--skip-empty-features", "a", "b"}),
                       "--skip-empty-features applies to --sources-file FILE only"));
}

TEST(CommandLine, SsspDefaultsAndValues) {
  const auto d = terrazo::parse_sssp_options({"--source", "3,4", "dem.tif", "cost.tif"});
  EXPECT_EQ(d.sssp.weight, terrazo::WeightModel::Friction);
  EXPECT_EQ(d.sssp.max_cost, -1.0);
  EXPECT_EQ(d.sssp.scale, 0.0);
  ASSERT_EQ(d.sssp.sources.size(), 1u);
  const auto o = terrazo::parse_sssp_options({"--source", "1,2", "--source=5,6", "--max-cost", "1e308", "--weight",
                                              "absdiff", "--backlink", "b.tif", "--allocation", "a.tif", "in", "-"});
  EXPECT_EQ(o.sssp.max_cost, 1e308);  // representable: accepted
  EXPECT_EQ(o.sssp.sources.size(), 2u);
  EXPECT_EQ(o.sssp.output, "");
  EXPECT_EQ(o.sssp.backlink, "b.tif");
  const auto parse = terrazo::parse_sssp_options;
  // Refused values are echoed as typed, not as 300 digits.
  const std::string huge = parse_error(parse, {"--source", "1,1", "--max-cost", "1e400", "a", "b"});
  EXPECT_TRUE(contains(huge, "--max-cost '1e400'")) << huge;
  EXPECT_LT(huge.size(), 100u) << huge;
  const std::string negative = parse_error(parse, {"--source", "1,1", "--max-cost", "-1e300", "a", "b"});
  EXPECT_TRUE(contains(negative, "'-1e300'")) << negative;
  EXPECT_LT(negative.size(), 100u) << negative;
  EXPECT_TRUE(contains(parse_error(parse, {"a", "b"}), "no source"));
  EXPECT_TRUE(contains(parse_error(parse, {"--source", "x,1", "a", "b"}), "x,1"));
  EXPECT_TRUE(contains(parse_error(parse, {"--map-coords", "--sources-file", "f.gpkg", "a", "b"}), "--map-coords"));
  EXPECT_TRUE(contains(parse_error(parse, {"--source", "1,1", "--connectivity", "6", "a", "b"}), "'6'"));
  EXPECT_TRUE(contains(parse_error(parse, {"--source", "1,1", "--device", "tpu", "a", "b"}), "tpu"));
}

TEST(CommandLine, PathImportExportInfoGen) {
  const auto p = terrazo::parse_path_options({"--backlink", "b.tif", "--cost", "c.tif", "--dest", "1,2", "p.geojson"});
  EXPECT_EQ(p.path.output, "p.geojson");
  EXPECT_EQ(p.path.dests.size(), 1u);
  EXPECT_TRUE(contains(parse_error(terrazo::parse_path_options, {"--cost", "c.tif", "--dest", "1,2", "p"}), "--backlink"));
  EXPECT_TRUE(contains(parse_error(terrazo::parse_path_options, {"--backlink", "b", "--cost", "c", "p"}), "--dest"));

  const auto i = terrazo::parse_import_options({"--tile", "128", "dem.tif", "dem.tzs"});
  EXPECT_EQ(i.import.tile, 128u);
  EXPECT_TRUE(contains(parse_error(terrazo::parse_import_options, {"dem.tif", "dem.tif"}), "GeoTIFF"));
  EXPECT_TRUE(contains(parse_error(terrazo::parse_import_options, {"--tile", "100", "a", "b.tzs"}), "'100'"));

  const auto e = terrazo::parse_export_options({"--block", "512", "dem.tzs", "dem.tif"});
  EXPECT_EQ(e.export_.block, 512u);
  EXPECT_TRUE(contains(parse_error(terrazo::parse_export_options, {"--block", "20", "a", "b.tif"}), "--block '20'"));
  EXPECT_TRUE(contains(parse_error(terrazo::parse_export_options, {"a", "b.tzs"}), ".tif"));

  EXPECT_EQ(terrazo::parse_info_options({"--json", "dem.tif"}).input, "dem.tif");
  EXPECT_TRUE(contains(parse_error(terrazo::parse_info_options, {}), "INPUT"));

  const auto g = terrazo::parse_gen_options({"--width", "64", "--height", "32", "--seed", "9", "--type", "int16", "g.tzs"});
  EXPECT_EQ(g.gen.terrain.width, 64u);
  EXPECT_EQ(g.gen.terrain.height, 32u);
  EXPECT_EQ(g.gen.terrain.seed, 9u);
  EXPECT_EQ(g.gen.terrain.type, terrazo::CellType::Int16);
  const auto gen = terrazo::parse_gen_options;
  EXPECT_TRUE(contains(parse_error(gen, {"--height", "8", "g.tzs"}), "--width"));
  EXPECT_TRUE(contains(parse_error(gen, {"--width", "0", "--height", "8", "g.tzs"}), "--width '0'"));
  EXPECT_TRUE(contains(parse_error(gen, {"--width", "8", "--height", "8", "--seed", "-1", "g.tzs"}), "--seed '-1'"));
  EXPECT_TRUE(contains(parse_error(gen, {"--width", "8", "--height", "8", "--relief", "-0.5", "g.tzs"}), "'-0.5'"));
  EXPECT_TRUE(contains(parse_error(gen, {"--width", "8", "--height", "8", "--nodata-holes", "1e300", "g.tzs"}),
                       "--nodata-holes '1e300'"));
}

TEST(CommandLine, HelpTextsStateTheWeightRule) {
  for (const char* usage : {terrazo::mst_usage(), terrazo::sssp_usage()}) {
    const std::string text = usage;
    EXPECT_TRUE(contains(text, "docs/weights.md")) << text;
    EXPECT_TRUE(contains(text, "1 when every weight is")) << text;
    EXPECT_TRUE(contains(text, "step_error_bound")) << text;
  }
  EXPECT_TRUE(contains(terrazo::mst_usage(), "2^31"));
  EXPECT_TRUE(contains(terrazo::sssp_usage(), "2^30"));
  for (const char* usage : {terrazo::mst_usage(), terrazo::sssp_usage(), terrazo::path_usage(), terrazo::import_usage(),
                            terrazo::export_usage(), terrazo::info_usage(), terrazo::gen_usage()}) {
    const std::string text = usage;
    EXPECT_EQ(text.rfind("Usage: terrazo ", 0), 0u) << text;
    std::size_t start = 0;
    for (std::size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1)
      EXPECT_LE(end - start, 110u) << text.substr(start, end - start);
  }
}

// The run functions: a missing input is a runtime error (exit 1), not a usage error; a refused weight
// choice is a usage error (exit 2); a good run gives a result whose JSON names the command.
TEST(CommandLine, RunFunctionsClassifyFailuresAndReturnResults) {
  terrazo::Progress progress;
  const auto missing = terrazo::parse_info_options({"/nonexistent/dem.tif"});
  const std::string dem = std::string(TERRAZO_DATASETS) + "/real/pysheds_dem.tif";
  const auto exit_class = [&](auto run, const auto& options) {
    try {
      run(options, progress);
    } catch (const UsageError&) {
      return 2;
    } catch (const terrazo::Error&) {
      return 1;
    }
    return 0;
  };
  EXPECT_EQ(exit_class(terrazo::run_info_command, missing), 1);
  EXPECT_EQ(exit_class(terrazo::run_sssp_command,
                       terrazo::parse_sssp_options({"--source", "1,1", "/nonexistent/dem.tif", "-", "--json"})),
            1);
  EXPECT_EQ(exit_class(terrazo::run_sssp_command,
                       terrazo::parse_sssp_options({"-q", "--source", "1,1", "--scale", "1e-9", dem, "-", "--json"})),
            2);
  const auto info = terrazo::run_info_command(terrazo::parse_info_options({dem}), progress);
  EXPECT_EQ(info.result.info.width, 367u);
  EXPECT_TRUE(contains(info.to_json(), "\"max\":298")) << info.to_json();
  EXPECT_TRUE(contains(info.summary(), "367 x 359")) << info.summary();
  const auto mst = terrazo::run_mst_command(
      terrazo::parse_mst_options({"-q", "--json", "--memory", "256M", "--threads", "1", dem, "-"}), progress);
  EXPECT_EQ(mst.result.vertices, 367u * 359u);
  EXPECT_EQ(mst.result.edges, 367u * 359u - 1);
  EXPECT_TRUE(contains(mst.to_json(), "\"command\":\"mst\"")) << mst.to_json();
  EXPECT_TRUE(contains(mst.to_json(), "\"scale\":1,")) << mst.to_json();
  EXPECT_TRUE(contains(mst.to_json(), "\"step_error_bound\":0,")) << mst.to_json();
}
