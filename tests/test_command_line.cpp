// tests/test_command_line.cpp: the option parser (api/command_line.h) and the --json writer
// (core/json_summary.h) that every subcommand shares.
#include <gtest/gtest.h>

#include <cmath>

#include <string>
#include <vector>

#include "core/error.h"
#include "api/command_line.h"
#include "core/json_summary.h"

using terrazo::ArgParser;
using terrazo::UsageError;

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

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST(ArgParser, ValuesFlagsAndPositionals) {
  ArgParser args("import", {"--memory", "512M", "dem.tif", "--json", "--tile=128", "dem.tzs"});
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
  ArgParser args("gen", {"--offset", "-3.5", "--shift", "-7", "out.tif"});
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
  EXPECT_EQ(defaults.device, "auto");
  EXPECT_EQ(defaults.threads, 0u);
  EXPECT_EQ(defaults.tile, 0u);
  EXPECT_FALSE(defaults.json);
  EXPECT_FALSE(defaults.quiet);

  ArgParser args("mst", {"--memory", "2G", "--gpu-memory", "512M", "--device", "cuda", "--threads", "3", "--tile",
                         "4096", "--tmpdir", "/tmp", "--json", "-q", "in", "out"});
  const auto options = terrazo::parse_common_options(args);
  EXPECT_EQ(options.memory_bytes, 2ull << 30);
  EXPECT_EQ(options.gpu_memory_bytes, 512ull << 20);
  EXPECT_EQ(options.device, "cuda");
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
