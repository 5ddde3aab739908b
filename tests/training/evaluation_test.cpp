#include <gtest/gtest.h>

#include <sstream>

#include <filesystem>

#include "arena/player_spec.h"
#include "nn/checkpoint.h"
#include "nn/model_loader.h"
#include "training/evaluation.h"

namespace othello::training {
namespace {

TEST(Evaluation, ASearchingPlayerBeatsTheRandomPlayerInTheArena) {
  TrainingConfig config = ParseTrainingConfig("game: {size: 6}\nsearch: {solver_empties: 8}\n",
                                              "test.yaml");
  auto rollouts = std::make_shared<mcts::RolloutEvaluator>(/*rollouts=*/4, false, 1);
  const play::SearchPlayerOptions search = EvaluationSearch(config, 64);
  EXPECT_FALSE(search.params.dirichlet_noise);
  EXPECT_EQ(search.params.temperature_start, 0);
  EXPECT_EQ(EvaluationSearch(config, 1).params.solver_empties, 0);  // the raw policy
  arena::ArenaOptions options;
  options.rules = config.rules;
  options.games = 10;
  options.gauntlet = true;
  std::ostringstream log;
  const arena::ArenaSummary summary = arena::RunArena(
      {arena::SearchArenaPlayer("search", rollouts, search), arena::MakeArenaPlayer("random")}, options, log);
  ASSERT_EQ(summary.pairs.size(), 1u);
  EXPECT_EQ(summary.pairs[0].games(), 10);
  EXPECT_GT(summary.pairs[0].Score(), 0.6);
  EXPECT_EQ(StepName(1200), "step-00001200");
}

// Training's evaluations (and the CLI of a LibTorch build) read checkpoints as model players.
TEST(Evaluation, ACheckpointPlaysInTheArenaWithTheRulesItWasTrainedFor) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "oz_eval_ckpt";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  nn::NetConfig tiny;
  tiny.blocks = 1;
  tiny.channels = 8;
  tiny.head_channels = 4;
  tiny.value_hidden = 8;
  nn::OthelloNet net(tiny);
  core::Rules six;
  six.size = 6;
  const std::string path = (dir / "six.ckpt").string();
  nn::SaveCheckpoint(path, net, 3, nullptr, six);
  arena::PlayerDefaults defaults;
  defaults.load_model = nn::LoadModel;
  const arena::ArenaPlayer model = arena::MakeArenaPlayer("model:" + path + ",visits=2", defaults);
  ASSERT_TRUE(model.trained.has_value());
  EXPECT_EQ(model.trained->size, 6);
  arena::ArenaOptions options;  // the arena refuses other boards (tests/arena/arena_test.cpp)
  options.rules.size = 6;
  std::ostringstream log;
  EXPECT_EQ(arena::RunArena({model, arena::MakeArenaPlayer("random")}, options, log).games.size(),
            2u);
  std::filesystem::remove_all(dir);
}

TEST(Evaluation, BadOpponentsAreNamed) {
  TrainingConfig config =
      ParseTrainingConfig("eval: {opponents: [random, 'ab:x']}\n", "test.yaml");
  try {
    CheckpointEvaluation evaluation(config, "/tmp/unused");
    FAIL() << "a bad opponent was accepted";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("eval.opponents: player 'ab:x'"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace othello::training
