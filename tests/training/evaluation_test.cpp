#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/notation.h"
#include "training/evaluation.h"

namespace othello::training {
namespace {

TEST(Evaluation, GreedyTakesTheMostFlips) {
  // Black to move at the start of f5 d6 c3 d3 c4: greedy picks a move flipping most.
  core::Position pos = core::Position::Standard(8);
  const auto plies = core::ParseTranscript("f5d6c3d3c4", pos);
  ASSERT_TRUE(plies.ok());
  for (core::Square sq : *plies) pos = pos.Play(sq);
  core::Rng rng(1);
  int most = 0;
  core::ForEachSquare(pos.LegalMoves(), [&](core::Square sq) {
    most = std::max(most, core::PopCount(pos.Flips(sq)));
  });
  for (int i = 0; i < 20; ++i) {
    const core::Square move = BaselineMove(Baseline::kGreedy, pos, rng);
    EXPECT_EQ(core::PopCount(pos.Flips(move)), most);
    EXPECT_TRUE(pos.IsLegal(BaselineMove(Baseline::kRandom, pos, rng)));
  }
}

TEST(Evaluation, ASearchingPlayerBeatsTheRandomPlayer) {
  TrainingConfig config = ParseTrainingConfig("game: {size: 6}\nsearch: {solver_empties: 8}\n",
                                              "test.yaml");
  mcts::RolloutEvaluator rollouts(/*rollouts=*/4, false, 1);
  const MatchResult r = PlayBaseline(rollouts, config, Baseline::kRandom, 10, 64, 7);
  EXPECT_EQ(r.wins + r.draws + r.losses, 10);
  EXPECT_GT(r.Score(), 0.6);
}

}  // namespace
}  // namespace othello::training
