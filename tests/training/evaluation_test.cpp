#include <gtest/gtest.h>

#include <sstream>

#include "training/evaluation.h"
#include "training/player_spec.h"

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
  ArenaOptions options;
  options.rules = config.rules;
  options.games = 10;
  options.gauntlet = true;
  std::ostringstream log;
  const ArenaSummary summary = RunArena(
      {SearchArenaPlayer("search", rollouts, search), MakeArenaPlayer("random")}, options, log);
  ASSERT_EQ(summary.pairs.size(), 1u);
  EXPECT_EQ(summary.pairs[0].games(), 10);
  EXPECT_GT(summary.pairs[0].Score(), 0.6);
  EXPECT_EQ(StepName(1200), "step-00001200");
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
