// tests/test_flag_table.cpp: the flag table (engine/commands/flag_table.h): the usage texts are made
// from it, the parsers are held to it.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "engine/commands/command_line.h"
#include "engine/commands/command_table.h"
#include "engine/commands/flag_table.h"
#include "engine/commands/import_command.h"
#include "kernels/common/error.h"
#include "tests/support/test_support.h"

namespace {

using namespace terrazo;
using terrazo::testing::contains;

TEST(FlagTable, EveryCommandsUsageListsEveryFlagItTakes) {
  for (const CommandSpec& command : command_table()) {
    const std::string usage = command.usage();
    EXPECT_FALSE(contains(usage, "{flags")) << command.name;
    const std::vector<CommandFlag>* flags = command_flags(command.flag_table);
    ASSERT_NE(flags, nullptr) << command.name;
    for (const CommandFlag& flag : *flags)
      EXPECT_TRUE(contains(usage, "\n  " + flag.spec.name) || contains(usage, ", " + flag.spec.name))
          << command.name << " " << flag.spec.name;
  }
}

TEST(FlagTable, SplitTextKeepsEveryPart) {
  EXPECT_EQ(split_text("--json --quiet", ' '), (std::vector<std::string>{"--json", "--quiet"}));
  EXPECT_EQ(split_text("auto|cpu||cuda|", '|'), (std::vector<std::string>{"auto", "cpu", "", "cuda", ""}));
  EXPECT_EQ(split_text("", '\n'), (std::vector<std::string>{""}));
  EXPECT_EQ(make_flag("--device", FlagType::Choice, "auto|cpu|cuda", "", "").choices(),
            (std::vector<std::string>{"auto", "cpu", "cuda"}));
  EXPECT_TRUE(make_flag("--tile", FlagType::Integer, "N", "", "").choices().empty());
}

TEST(FlagTable, SharedFlagsHaveOneWording) {
  for (const CommandSpec& command : command_table()) {
    const std::string usage = command.usage();
    EXPECT_TRUE(contains(usage, "--memory SIZE         host memory budget, e.g. 512M or 4G")) << command.name;
    EXPECT_TRUE(contains(usage, "-q, --quiet           no progress on stderr")) << command.name;
  }
}

TEST(FlagTable, DeclarationsAreComplete) {
  for (const CommandSpec& command : command_table()) {
    for (const CommandFlag& flag : *command_flags(command.flag_table)) {
      EXPECT_EQ(flag.spec.name.rfind("--", 0), 0u) << command.name << " " << flag.spec.name;
      EXPECT_FALSE(flag.spec.help.empty()) << command.name << " " << flag.spec.name;
      EXPECT_EQ(flag.spec.value_name.empty(), flag.spec.type == FlagType::Switch) << command.name << " " << flag.spec.name;
      if (flag.spec.type == FlagType::Choice) EXPECT_GE(flag.spec.choices().size(), 2u) << flag.spec.name;
    }
  }
  EXPECT_EQ(find_flag("sssp", "-q")->name, "--quiet");
  EXPECT_EQ(find_flag("render", "--sources")->name, "--source");
  EXPECT_EQ(find_flag("import", "--device"), nullptr);
  EXPECT_EQ(find_flag("network", "--max-cost"), nullptr);
  EXPECT_NE(find_flag("od-matrix", "--max-cost"), nullptr);
}

TEST(FlagTable, ParsersReadOnlyDeclaredFlags) {
  ArgParser args("import", {"--verify", "a.tif", "b.tzs"});
  EXPECT_THROW(args.flag("--verify"), std::logic_error);  // a parser's mistake, not the user's
  EXPECT_THROW(args.value("--json"), std::logic_error);   // a switch read as a value
  EXPECT_TRUE(ArgParser("x", {"--verify"}).flag("--verify"));  // an ad-hoc parser reads any flag
  // A common flag the command does not take is an unknown flag to the user.
  try {
    parse_import_options({"--device", "cpu", "a.tif", "b.tzs"});
    ADD_FAILURE() << "import took --device";
  } catch (const UsageError& e) {
    EXPECT_TRUE(contains(e.what(), "unknown flag '--device' for 'import'")) << e.what();
  }
}

}  // namespace
