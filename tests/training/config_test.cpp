#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "core/error.h"
#include "training/config.h"

namespace othello::training {
namespace {

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
      "test.yaml", {"train.batch_size=32", "run.minutes=1.5"});
  EXPECT_EQ(c.rules.size, 6);
  EXPECT_EQ(c.rules.start, core::StartKind::kRandom);
  EXPECT_EQ(c.search.rules.size, 6);
  EXPECT_EQ(c.net.blocks, 2);
  EXPECT_EQ(c.batch_size, 32);
  EXPECT_EQ(c.optimizer, Optimizer::kAdamW);
  EXPECT_FLOAT_EQ(c.loss.ownership, 0.3f);
  EXPECT_EQ(c.search.full_visits, 100u);
  EXPECT_TRUE(c.search.gumbel);
  EXPECT_DOUBLE_EQ(c.minutes, 1.5);
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
