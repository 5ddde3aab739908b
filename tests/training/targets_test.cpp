// The targets self-play writes for a finished game (training/self_play.h) and the
// learning-rate schedule (training/trainer.h).
#include <gtest/gtest.h>

#include "core/notation.h"
#include "training/self_play.h"
#include "training/trainer.h"

namespace othello::training {
namespace {

constexpr std::uint16_t kOne = 65535;

// A finished 4x4 game position: black owns the top two rows, white the third row, the
// last row is empty except a1..: black 8 discs, white 4, 4 empty.
core::Position Final() {
  auto pos = core::ParseBoardString("XXXXXXXXOOOO---- X");
  EXPECT_TRUE(pos.ok()) << pos.error();
  return *pos;
}

GameRecords Records(const std::vector<core::Color>& movers, float win, float draw, float loss) {
  GameRecords game;
  for (core::Color mover : movers) {
    game.samples.emplace_back();
    game.movers.push_back(mover);
    game.search_wdl.insert(game.search_wdl.end(), {win, draw, loss});
  }
  return game;
}

TEST(SelfPlayTargets, TheValueTargetIsTheResultFromEachMoversSide) {
  const core::Rules rules;  // the empties go to the winner: black wins 12 - 4
  const core::Outcome outcome = GameResult(Final(), rules, std::nullopt);
  EXPECT_EQ(outcome.black_margin, 8);
  GameRecords game = Records({core::Color::kBlack, core::Color::kWhite}, 0.2f, 0.3f, 0.5f);
  FillTargets(game, Final(), outcome, /*value_mix=*/0);
  const Sample& black = game.samples[0];
  const Sample& white = game.samples[1];
  EXPECT_EQ(black.wdl[0], kOne);
  EXPECT_EQ(black.wdl[2], 0);
  EXPECT_EQ(white.wdl[2], kOne);
  EXPECT_EQ(white.wdl[0], 0);
  EXPECT_EQ(black.final_margin, 8);
  EXPECT_EQ(white.final_margin, -8);
}

TEST(SelfPlayTargets, ADrawIsADrawForBoth) {
  auto pos = core::ParseBoardString("XXXXXXOOOOOO---- O");
  ASSERT_TRUE(pos.ok());
  GameRecords game = Records({core::Color::kBlack, core::Color::kWhite}, 0, 0, 1);
  FillTargets(game, *pos, GameResult(*pos, core::Rules{}, std::nullopt), 0);
  for (const Sample& s : game.samples) {
    EXPECT_EQ(s.wdl[1], kOne);
    EXPECT_EQ(s.final_margin, 0);
  }
}

TEST(SelfPlayTargets, AnExactScoreReplacesTheResultAndIsNotMixed) {
  GameRecords game = Records({core::Color::kBlack, core::Color::kBlack}, 0.9f, 0.1f, 0.0f);
  game.samples[0].has_exact = 1;
  game.samples[0].exact_score = -2;  // perfect play loses, though black won the game
  FillTargets(game, Final(), GameResult(Final(), core::Rules{}, std::nullopt), /*value_mix=*/0.5f);
  EXPECT_EQ(game.samples[0].wdl[2], kOne);
  EXPECT_EQ(game.samples[0].final_margin, 8);  // the disc target stays the game's
  // Without an exact score: half the result (a win), half the search's estimate.
  EXPECT_EQ(game.samples[1].wdl[0], std::lround(0.95 * kOne));
  EXPECT_EQ(game.samples[1].wdl[1], std::lround(0.05 * kOne));
  EXPECT_EQ(game.samples[1].wdl[0] + game.samples[1].wdl[1] + game.samples[1].wdl[2], kOne);
}

TEST(SelfPlayTargets, MixedTargetsAlwaysSumToOne) {
  // Halves round up: 32768 + 32768 would wrap the loss share around.
  GameRecords game = Records({core::Color::kBlack}, 0.0f, 1.0f, 0.0f);
  FillTargets(game, Final(), GameResult(Final(), core::Rules{}, std::nullopt), 0.5f);
  const Sample& s = game.samples[0];
  EXPECT_EQ(s.wdl[0] + s.wdl[1] + s.wdl[2], kOne);
  EXPECT_EQ(s.wdl[2], 0);
}

TEST(SelfPlayTargets, OwnershipIsFromTheMoversSide) {
  GameRecords game = Records({core::Color::kBlack, core::Color::kWhite}, 0, 1, 0);
  FillTargets(game, Final(), GameResult(Final(), core::Rules{}, std::nullopt), 0);
  for (int sq = 0; sq < 16; ++sq) {
    const int expected = sq < 8 ? 1 : sq < 12 ? -1 : 0;  // for black
    EXPECT_EQ(game.samples[0].ownership[sq], expected) << sq;
    EXPECT_EQ(game.samples[1].ownership[sq], -expected) << sq;
  }
}

TEST(SelfPlayTargets, AResignedGameIsLostByTheResigningSide) {
  // Black resigns a board it leads by 8: a loss by the board's margin.
  const core::Outcome resigned = GameResult(Final(), core::Rules{}, core::Color::kBlack);
  EXPECT_EQ(resigned.black_margin, -8);
  EXPECT_EQ(GameResult(Final(), core::Rules{}, core::Color::kWhite).black_margin, 8);
  // On an even board the resigning side still loses (by one disc).
  auto even = core::ParseBoardString("XXXXXXOOOOOO---- O");
  ASSERT_TRUE(even.ok());
  EXPECT_EQ(GameResult(*even, core::Rules{}, core::Color::kWhite).black_margin, 1);
  GameRecords game = Records({core::Color::kBlack, core::Color::kWhite}, 0, 1, 0);
  FillTargets(game, Final(), resigned, 0);
  EXPECT_EQ(game.samples[0].wdl[2], kOne);
  EXPECT_EQ(game.samples[1].wdl[0], kOne);
  EXPECT_EQ(game.samples[1].final_margin, 8);
}

TEST(LearningRate, WarmsUpThenFollowsTheSchedule) {
  TrainingConfig config;
  config.learning_rate = 0.1;
  config.warmup_steps = 10;
  config.lr_schedule = LrSchedule::kConstant;
  EXPECT_DOUBLE_EQ(LearningRateAt(config, 0), 0.01);
  EXPECT_DOUBLE_EQ(LearningRateAt(config, 4), 0.05);
  EXPECT_DOUBLE_EQ(LearningRateAt(config, 9), 0.1);
  EXPECT_DOUBLE_EQ(LearningRateAt(config, 10), 0.1);
  EXPECT_DOUBLE_EQ(LearningRateAt(config, 1000000), 0.1);
  config.lr_schedule = LrSchedule::kCosine;
  config.lr_schedule_steps = 100;
  EXPECT_DOUBLE_EQ(LearningRateAt(config, 9), 0.1);  // warm-up first
  EXPECT_DOUBLE_EQ(LearningRateAt(config, 10), 0.1);
  EXPECT_NEAR(LearningRateAt(config, 60), 0.1 * (0.05 + 0.95 * 0.5), 1e-12);  // half way
  EXPECT_NEAR(LearningRateAt(config, 110), 0.005, 1e-12);  // the floor: 5% of the base
  EXPECT_NEAR(LearningRateAt(config, 100000), 0.005, 1e-12);
  for (int step = 11; step <= 110; ++step) {  // falls all the way
    EXPECT_LT(LearningRateAt(config, step), LearningRateAt(config, step - 1)) << step;
  }
  config.warmup_steps = 0;
  EXPECT_DOUBLE_EQ(LearningRateAt(config, 0), 0.1);
}

}  // namespace
}  // namespace othello::training
