#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>

#include "core/error.h"
#include "training/config.h"

namespace othello::training {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

std::string ErrorOf(const std::string& yaml, const std::vector<std::string>& overrides = {}) {
  try {
    ParseTrainingConfig(yaml, "test.yaml", overrides);
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(TrainingConfig, ReadsEverySectionAndOverrides) {
  const TrainingConfig c = ParseTrainingConfig(
      "game:\n  size: 6\n  start: random\n  random_moves: 3\n"
      "network:\n  blocks: 2\n  channels: 16\n"
      "train:\n  batch_size: 64\n  optimizer: adamw\n  loss:\n    ownership: 0.3\n"
      "search:\n  full_visits: 100\n  gumbel: true\n",
      "test.yaml", {"train.batch_size=32", "run.minutes=1.5", "train.loss.reply_policy=0.15",
                    "train.loss.soft_policy=8", "train.loss.short_term_value=0.5",
                    "search.score_utility=0.25"});
  EXPECT_EQ(c.rules.size, 6);
  EXPECT_EQ(c.rules.start, core::StartKind::kRandom);
  EXPECT_EQ(c.search.rules.size, 6);
  EXPECT_EQ(c.net.blocks, 2);
  EXPECT_EQ(c.batch_size, 32);
  EXPECT_EQ(c.optimizer, Optimizer::kAdamW);
  EXPECT_FLOAT_EQ(c.loss.ownership, 0.3f);
  EXPECT_FLOAT_EQ(c.loss.reply_policy, 0.15f);
  EXPECT_FLOAT_EQ(c.loss.soft_policy, 8.0f);
  EXPECT_FLOAT_EQ(c.loss.short_term_value, 0.5f);
  EXPECT_TRUE(c.loss.aux_heads());
  EXPECT_EQ(c.search.full_visits, 100u);
  EXPECT_TRUE(c.search.gumbel);
  EXPECT_FLOAT_EQ(c.search.score_utility, 0.25f);
  EXPECT_DOUBLE_EQ(c.minutes, 1.5);
}

TEST(TrainingConfig, GrowingTheNetworkNeedsTheRunsLength) {
  const TrainingConfig c = ParseTrainingConfig(
      "network:\n  blocks: 3\n  grow_blocks: 2\n  grow_at: 0.4\nrun:\n  minutes: 60\n", "test.yaml", {});
  EXPECT_EQ(c.grow_blocks, 2);
  EXPECT_DOUBLE_EQ(c.grow_at, 0.4);
  EXPECT_EQ(GrownNet(c).blocks, 5);
  EXPECT_TRUE(IsRunNet(c, c.net));
  EXPECT_TRUE(IsRunNet(c, GrownNet(c)));
  nn::NetConfig four = c.net;
  four.blocks = 4;
  EXPECT_FALSE(IsRunNet(c, four));
  EXPECT_THAT(ErrorOf("network:\n  grow_blocks: 2\nrun:\n  minutes: 0\n  steps: 100\n"),
              HasSubstr("network.grow_blocks '2': growing the net at network.grow_at of the run needs run.minutes"));
  EXPECT_THAT(ErrorOf("network:\n  blocks: 60\n  grow_blocks: 8\nrun:\n  minutes: 9\n"),
              HasSubstr("network.blocks + network.grow_blocks is above 64"));
  EXPECT_THAT(ErrorOf("network:\n  grow_at: 1.5\n"), HasSubstr("network.grow_at '1.5'"));
}

TEST(TrainingConfig, ErrorsNameTheKeyTheValueAndTheFile) {
  EXPECT_THAT(ErrorOf("train:\n  batch_sise: 64\n"),
              HasSubstr("config test.yaml: unknown key train.batch_sise (line 2)"));
  EXPECT_THAT(ErrorOf("train:\n  batch_size: lots\n"),
              HasSubstr("config test.yaml: train.batch_size 'lots' (line 2): expected an integer"));
  EXPECT_THAT(ErrorOf("train:\n  batch_size: 0\n"),
              HasSubstr("train.batch_size '0' (line 2): out of range [1, 65536]"));
  EXPECT_THAT(ErrorOf("train:\n  optimizer: adam\n"),
              HasSubstr("train.optimizer 'adam' (line 2): expected one of sgd, adamw"));
  EXPECT_THAT(ErrorOf("game:\n  size: 7\n"), HasSubstr("game.size '7': must be even"));
  EXPECT_THAT(ErrorOf("search:\n  gumbel: maybe\n"), HasSubstr("expected true or false"));
  EXPECT_THAT(ErrorOf("train:\n  learning_rate: -1\n"), HasSubstr("out of range"));
  EXPECT_THAT(ErrorOf("replay:\n  window_min: 100\n  window_max: 10\n"),
              HasSubstr("replay.window_max '10': below replay.window_min (100)"));
  EXPECT_THAT(ErrorOf("train: [1, 2\n"), HasSubstr("not valid YAML"));
  EXPECT_THAT(ErrorOf("inference:\n  device: gpu\n"),
              HasSubstr("inference.device 'gpu': expected auto, cpu, cuda or cuda:N"));
  EXPECT_EQ(ErrorOf("inference:\n  device: cuda:1\n"), "no error");
  EXPECT_THAT(ErrorOf("", {"train.nonsense=3"}), HasSubstr("unknown key train.nonsense"));
  EXPECT_THAT(ErrorOf("", {"no_equals"}), HasSubstr("expected key.path=value"));
  EXPECT_THAT(ErrorOf("", {"train.batch_size=abc"}), HasSubstr("expected an integer"));
  EXPECT_EQ(ErrorOf(""), "no error");
  try {
    LoadTrainingConfig("/nonexistent/config.yaml");
    FAIL();
  } catch (const core::InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("config /nonexistent/config.yaml: cannot open"));
  }
}

// run.seed is any integer in [0, 2^63 - 1]: beyond 32 bits it is kept whole.
TEST(TrainingConfig, TheSeedTakesSixtyThreeBits) {
  EXPECT_EQ(ParseTrainingConfig("", "test.yaml").seed, 1u);
  EXPECT_EQ(ParseTrainingConfig("run:\n  seed: 5000000000\n", "test.yaml").seed, 5000000000u);
  EXPECT_EQ(ParseTrainingConfig("", "test.yaml", {"run.seed=4294967297"}).seed, 4294967297u);
  EXPECT_EQ(ParseTrainingConfig("", "test.yaml", {"run.seed=9223372036854775807"}).seed,
            9223372036854775807u);
  const std::string range = "out of range [0, 9223372036854775807]";
  EXPECT_THAT(ErrorOf("run:\n  seed: -1\n"),
              HasSubstr("config test.yaml: run.seed '-1' (line 2): " + range));
  EXPECT_THAT(ErrorOf("", {"run.seed=9223372036854775808"}),
              AllOf(HasSubstr("run.seed '9223372036854775808'"), HasSubstr(range)));
  EXPECT_THAT(ErrorOf("", {"run.seed=99999999999999999999999"}), HasSubstr(range));
  EXPECT_THAT(ErrorOf("", {"run.seed=1.5"}),
              AllOf(HasSubstr("run.seed '1.5'"), HasSubstr("expected an integer")));
  EXPECT_THAT(ErrorOf("", {"run.seed=lucky"}),
              AllOf(HasSubstr("run.seed 'lucky'"), HasSubstr("expected an integer")));
}

TEST(TrainingConfig, SelfPlayThreadsAreAutoUnlessGiven) {
  EXPECT_EQ(ParseTrainingConfig("", "t").selfplay_threads, kAutoThreads);
  EXPECT_EQ(ParseTrainingConfig("selfplay:\n  threads: auto\n", "t").selfplay_threads,
            kAutoThreads);
  EXPECT_EQ(ParseTrainingConfig("", "t", {"selfplay.threads=3"}).selfplay_threads, 3);
  EXPECT_EQ(ParseTrainingConfig("", "t", {"selfplay.threads=0"}).selfplay_threads, 0);
  EXPECT_THAT(ErrorOf("selfplay:\n  threads: many\n"),
              HasSubstr("selfplay.threads 'many' (line 2): expected auto or an integer"));
  EXPECT_THAT(ErrorOf("", {"selfplay.threads=-2"}),
              HasSubstr("expected auto or an integer in [0, 1024]"));
}

TEST(TrainingConfig, AutomaticSizesFollowTheMachine) {
  const TrainingConfig defaults = ParseTrainingConfig("", "t");
  struct Case {
    Machine machine;
    bool trains;
    int selfplay, inference, train;
  };
  const Case cases[] = {
      {{2, false}, true, 1, 1, 1},    // today's 2-core CPU: one thread each
      {{8, false}, true, 4, 1, 4},    // half the cores self-play, half train
      {{16, true}, true, 12, 1, 4},   // a GPU workstation: 12 threads feed the GPU
      {{8, false}, false, 8, 1, 8},   // an actor: every core plays (it trains nothing)
      {{16, true}, false, 15, 1, 16}, // an actor with a GPU: one core for the rest
      {{1, false}, true, 1, 1, 1},
  };
  for (const Case& c : cases) {
    const TrainingConfig sized = SizedForMachine(defaults, c.machine, c.trains);
    EXPECT_EQ(sized.selfplay_threads, c.selfplay) << c.machine.cores << " cores";
    EXPECT_EQ(sized.inference.threads, c.inference) << c.machine.cores << " cores";
    EXPECT_EQ(sized.train_threads, c.train) << c.machine.cores << " cores";
  }
  // Explicit values win; a learner-only config keeps its 0, an actor of it sizes itself.
  const TrainingConfig given = ParseTrainingConfig(
      "", "t", {"selfplay.threads=2", "inference.threads=3", "train.threads=5"});
  const TrainingConfig kept = SizedForMachine(given, {16, false});
  EXPECT_EQ(kept.selfplay_threads, 2);
  EXPECT_EQ(kept.inference.threads, 3);
  EXPECT_EQ(kept.train_threads, 5);
  const TrainingConfig learner = ParseTrainingConfig("", "t", {"selfplay.threads=0"});
  EXPECT_EQ(SizedForMachine(learner, {8, false}).selfplay_threads, 0);
  EXPECT_EQ(SizedForMachine(learner, {8, false}).train_threads, 8);
  EXPECT_EQ(SizedForMachine(learner, {8, false}, /*trains=*/false).selfplay_threads, 8);
}

// docs/configuration.md lists every key the reader reads, with the default and the range
// the code gives it and, for a key declared in a table, its help at the start of the
// meaning, in rows "| `key` | default | range | meaning |"; no other keys.
TEST(TrainingConfig, TheReferenceInTheDocsListsEveryKeyAsTheCodeReadsIt) {
  const std::string path = std::string(OZ_DOCS_DIR) + "/configuration.md";
  std::ifstream in(path);
  ASSERT_TRUE(in) << "cannot open " << path;
  const std::regex row(R"(^\| `([a-z_]+\.[a-z_.]+)` \| (.*?) \| (.*?) \| (.*) \|$)");
  struct Row {
    std::string default_text, range, meaning;
  };
  std::map<std::string, Row> documented;
  int line_number = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_number;
    std::smatch m;
    if (!std::regex_search(line, m, row)) continue;
    auto unquote = [](std::string text) {
      if (text.size() >= 2 && text.front() == '`' && text.back() == '`') {
        text = text.substr(1, text.size() - 2);
      }
      return text;
    };
    EXPECT_TRUE(documented.emplace(m[1], Row{unquote(m[2]), unquote(m[3]), m[4]}).second)
        << path << ":" << line_number << ": " << m[1] << " listed twice";
  }
  for (const ConfigKey& key : ConfigReference()) {
    const auto it = documented.find(key.key);
    if (it == documented.end()) {
      ADD_FAILURE() << path << " does not list " << key.key << " (default " << key.default_text
                    << ", range " << key.range << "); `othello-zero config` prints its row";
      continue;
    }
    EXPECT_EQ(it->second.default_text, key.default_text.empty() ? "\"\"" : key.default_text)
        << key.key << "'s default in " << path;
    EXPECT_EQ(it->second.range, key.range) << key.key << "'s range in " << path;
    // A key a table declares (mcts/search_options.h) is explained by the table's help;
    // the page may add to it (a measured result, a link) after it.
    EXPECT_EQ(it->second.meaning.substr(0, key.help.size()), key.help)
        << key.key << "'s meaning in " << path << " does not start with its declared help";
    documented.erase(it);
  }
  for (const auto& [key, unused] : documented) {
    ADD_FAILURE() << path << " lists " << key << ", which the configuration does not have";
  }
}

TEST(TrainingConfig, EveryShippedConfigIsValid) {
  int configs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(OZ_CONFIG_DIR)) {
    if (entry.path().extension() != ".yaml") continue;
    EXPECT_NO_THROW(LoadTrainingConfig(entry.path().string())) << entry.path();
    ++configs;
  }
  EXPECT_GE(configs, 5);
  EXPECT_EQ(LoadTrainingConfig(std::string(OZ_CONFIG_DIR) + "/10x10.yaml").rules.size, 10);
  EXPECT_EQ(LoadTrainingConfig(std::string(OZ_CONFIG_DIR) + "/6x6.yaml").minutes, 60);
  EXPECT_EQ(LoadTrainingConfig(std::string(OZ_CONFIG_DIR) + "/overnight.yaml").minutes, 480);
}

}  // namespace
}  // namespace othello::training
