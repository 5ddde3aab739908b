// The targets self-play writes for a finished game (training/self_play.h) and the
// learning-rate schedule (training/trainer.h).
#include <cmath>

#include <gtest/gtest.h>

#include "core/notation.h"
#include "core/rng.h"
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

// TD(lambda): each target is (1 - lambda) x the next record's search value + lambda x the
// next record's target, both from this mover's side; the last keeps the result.
TEST(SelfPlayTargets, TheLambdaReturnBlendsTheLaterSearchValues) {
  const core::Outcome outcome = GameResult(Final(), core::Rules{}, std::nullopt);  // black wins
  const std::vector<core::Color> movers = {core::Color::kBlack, core::Color::kWhite,
                                           core::Color::kBlack};
  GameRecords game = Records(movers, 0.6f, 0.1f, 0.3f);
  FillTargets(game, Final(), outcome, /*value_mix=*/0, /*value_lambda=*/0.5f);
  // Record 2 (black, the last): the result. Record 1 (white): 0.5 x (0.3, 0.1, 0.6) +
  // 0.5 x (0, 0, 1). Record 0 (black): 0.5 x (0.3, 0.1, 0.6) + 0.5 x (0.8, 0.05, 0.15).
  const float expected[3][3] = {{0.55f, 0.075f, 0.375f}, {0.15f, 0.05f, 0.8f}, {1, 0, 0}};
  for (int i = 0; i < 3; ++i) {
    const Sample& s = game.samples[i];
    EXPECT_NEAR(s.wdl[0], expected[i][0] * kOne, 1) << "record " << i;
    EXPECT_NEAR(s.wdl[1], expected[i][1] * kOne, 1) << "record " << i;
    EXPECT_EQ(s.wdl[0] + s.wdl[1] + s.wdl[2], kOne) << "record " << i;
  }
  // lambda 1: the result for everyone, as without it.
  GameRecords plain = Records(movers, 0.6f, 0.1f, 0.3f);
  FillTargets(plain, Final(), outcome, 0, 1.0f);
  EXPECT_EQ(plain.samples[0].wdl[0], kOne);
  EXPECT_EQ(plain.samples[1].wdl[2], kOne);
  // An exact score ends the return: the record before it blends towards the exact value.
  GameRecords exact = Records(movers, 0.6f, 0.1f, 0.3f);
  exact.samples[1].has_exact = 1;
  exact.samples[1].exact_score = 4;  // white wins under perfect play
  FillTargets(exact, Final(), outcome, 0, 0.5f);
  EXPECT_EQ(exact.samples[1].wdl[0], kOne);
  // Record 0: 0.5 x (0.3, 0.1, 0.6) + 0.5 x (0, 0, 1) from black's side.
  EXPECT_NEAR(exact.samples[0].wdl[0], 0.15f * kOne, 1);
  EXPECT_NEAR(exact.samples[0].wdl[2], 0.8f * kOne, 1);
}

// The opponent's reply: the next record's policy target, where the opponent moves next
// and searched fully.
TEST(SelfPlayTargets, TheReplyPolicyIsTheOpponentsNextTarget) {
  const core::Outcome outcome = GameResult(Final(), core::Rules{}, std::nullopt);
  // Black, white, white again (black passed), black (a fast search: no policy target).
  GameRecords game = Records({core::Color::kBlack, core::Color::kWhite, core::Color::kWhite,
                              core::Color::kBlack},
                             0.5f, 0.0f, 0.5f);
  for (int i = 0; i < 3; ++i) {
    game.samples[i].has_policy = 1;
    game.samples[i].policy[i] = kOne;
  }
  FillTargets(game, Final(), outcome, 0);
  EXPECT_EQ(game.samples[0].has_reply, 1);
  EXPECT_EQ(game.samples[0].reply_policy, game.samples[1].policy);
  EXPECT_EQ(game.samples[1].has_reply, 0);  // white moves again: no reply
  EXPECT_EQ(game.samples[2].has_reply, 0);  // black's record has no policy target
  EXPECT_EQ(game.samples[3].has_reply, 0);  // the last
  for (int i = 1; i < 4; ++i) {
    EXPECT_EQ(game.samples[i].reply_policy[0] + game.samples[i].reply_policy[1], 0) << i;
  }
}

// Short-term values: (1/h) x the record's search value + (1 - 1/h) x the next target from
// this mover's side, the result after the last record, exact scores as they are.
TEST(SelfPlayTargets, ShortTermValuesAverageTheLaterSearchValues) {
  const core::Outcome outcome = GameResult(Final(), core::Rules{}, std::nullopt);  // black wins
  const std::vector<core::Color> movers = {core::Color::kBlack, core::Color::kWhite,
                                           core::Color::kBlack};
  GameRecords game = Records(movers, 0.6f, 0.1f, 0.3f);  // every search value 0.3
  FillTargets(game, Final(), outcome, 0);
  ASSERT_EQ(kShortTermHorizons[0], 4.0f);
  ASSERT_EQ(kShortTermHorizons[1], 12.0f);
  // h 4: 0.25 x 0.3 + 0.75 x 1 = 0.825; 0.075 - 0.75 x 0.825; 0.075 + 0.75 x 0.54375.
  // h 12: 0.025 + 11/12 = 0.941667; 0.025 - 11/12 x 0.941667; 0.025 + 11/12 x 0.838194.
  const float expected[3][2] = {{0.4828125f, 0.793345f}, {-0.54375f, -0.838194f}, {0.825f, 0.941667f}};
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(game.samples[i].has_short_term, 1);
    for (int h = 0; h < 2; ++h) {
      EXPECT_NEAR(game.samples[i].short_term[h] / 32767.0, expected[i][h], 1e-4) << i << " " << h;
    }
  }
  GameRecords exact = Records(movers, 0.6f, 0.1f, 0.3f);
  exact.samples[1].has_exact = 1;
  exact.samples[1].exact_score = 4;  // white wins under perfect play
  FillTargets(exact, Final(), outcome, 0);
  EXPECT_EQ(exact.samples[1].short_term[0], 32767);
  EXPECT_EQ(exact.samples[1].short_term[1], 32767);
  EXPECT_NEAR(exact.samples[0].short_term[0] / 32767.0, 0.075 - 0.75, 1e-4);
  for (const Sample& s : exact.samples) EXPECT_EQ(CheckSample(s, 0), std::nullopt);
}

// train.exact_outcome: the next exact score stands for the game's result before it, and
// the disc targets are the results; without it, exact scores set only their own value.
TEST(SelfPlayTargets, WithExactOutcomeTheFirstExactScoreStandsForTheResult) {
  const core::Outcome outcome = GameResult(Final(), core::Rules{}, std::nullopt);  // black +8
  // Black, white, white again (black passed), then black and white solved: under perfect
  // play from record 3 black loses by 2, though the game ended with black 8 ahead.
  const std::vector<core::Color> movers = {core::Color::kBlack, core::Color::kWhite,
                                           core::Color::kWhite, core::Color::kBlack,
                                           core::Color::kWhite};
  auto solved = [&] {
    GameRecords game = Records(movers, 0.4f, 0.2f, 0.4f);
    game.samples[3].has_exact = 1;
    game.samples[3].exact_score = -2;
    game.samples[4].has_exact = 1;
    game.samples[4].exact_score = 2;
    return game;
  };
  GameRecords plain = solved();
  FillTargets(plain, Final(), outcome, 0, 1.0f, /*exact_outcome=*/false);
  const int plain_margins[5] = {8, -8, -8, 8, -8};
  for (int i = 0; i < 5; ++i) EXPECT_EQ(plain.samples[i].final_margin, plain_margins[i]) << i;
  EXPECT_EQ(plain.samples[0].wdl[0], kOne);  // the game's result
  EXPECT_EQ(plain.samples[3].wdl[2], kOne);  // its own exact score

  GameRecords exact = solved();
  FillTargets(exact, Final(), outcome, 0, 1.0f, /*exact_outcome=*/true);
  const int results[5] = {-2, 2, 2, -2, 2};
  for (int i = 0; i < 5; ++i) {
    const Sample& s = exact.samples[i];
    EXPECT_EQ(s.final_margin, results[i]) << i;
    EXPECT_EQ(s.wdl[results[i] > 0 ? 0 : 2], kOne) << i;
    EXPECT_EQ(CheckSample(s, 0), std::nullopt) << i;
  }
  // Ownership still comes from the final board: black's top rows.
  EXPECT_EQ(exact.samples[0].ownership[0], 1);
  EXPECT_EQ(exact.samples[1].ownership[0], -1);

  // A game without exact scores keeps its result either way.
  GameRecords unsolved = Records(movers, 0.4f, 0.2f, 0.4f);
  FillTargets(unsolved, Final(), outcome, 0, 1.0f, /*exact_outcome=*/true);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(unsolved.samples[i].final_margin, plain_margins[i]) << i;
}

// An explored side position of a 4x4 game: its visit shares, value and margin.
mcts::ExploredNode Explored(float win, float draw, float loss, float score) {
  mcts::ExploredNode node;
  auto pos = core::ParseBoardString("XXXXXXXOOOO----- O");  // white to move, 5 empties
  EXPECT_TRUE(pos.ok()) << pos.error();
  node.position = *pos;
  node.policy.assign(17, 0.0f);
  node.policy[11] = 0.75f;
  node.policy[12] = 0.25f;
  node.win = win;
  node.draw = draw;
  node.loss = loss;
  node.score = score;
  node.visits = 12;
  return node;
}

TEST(ExploredSamples, TakeTheSearchsValueOrTheGamesResult) {
  const core::Outcome outcome = GameResult(Final(), core::Rules{}, std::nullopt);  // black +8
  for (const bool use_result : {false, true}) {
    GameRecords game;
    const mcts::ExploredNode node = Explored(0.6f, 0.1f, 0.3f, 5.4f);
    game.explored.push_back(ExploredSample(node));
    game.explored_movers.push_back(core::Color::kWhite);
    FillExploredTargets(game, Final(), outcome, use_result);
    const Sample& s = game.explored[0];
    EXPECT_FALSE(CheckSample(s, 4).has_value()) << *CheckSample(s, 4);
    EXPECT_EQ(s.ToPosition().player(), node.position.player());  // from its mover's side
    EXPECT_EQ(s.ToPosition().opponent(), node.position.opponent());
    EXPECT_EQ(s.has_policy, 1);
    EXPECT_EQ(s.policy[11], 49151);  // 0.75 of 65535, rounded
    EXPECT_EQ(s.policy[12], 16384);
    EXPECT_EQ(s.has_reply, 0);
    EXPECT_EQ(s.has_short_term, 0);
    EXPECT_EQ(s.wdl[0] + s.wdl[1] + s.wdl[2], kOne);
    if (use_result) {  // white lost the game by 8
      EXPECT_EQ(s.wdl[2], kOne);
      EXPECT_EQ(s.final_margin, -8);
    } else {  // the subtree's mean, for white
      EXPECT_EQ(s.wdl[0], 39321);
      EXPECT_EQ(s.wdl[1], 6554);
      EXPECT_EQ(s.final_margin, 5);
    }
    // Ownership of the game's final discs, from white's side: black's top rows are -1.
    EXPECT_EQ(s.ownership[0], -1);
    EXPECT_EQ(s.ownership[8], 1);
    EXPECT_EQ(s.ownership[15], 0);
  }
}

TEST(ExploredSamples, AProvenNodeKeepsItsExactScore) {
  mcts::ExploredNode node = Explored(0.6f, 0.1f, 0.3f, 5.4f);
  node.exact = true;
  node.exact_score = -2;
  GameRecords game;
  game.explored.push_back(ExploredSample(node));
  game.explored_movers.push_back(core::Color::kWhite);
  FillExploredTargets(game, Final(), GameResult(Final(), core::Rules{}, std::nullopt),
                      /*use_result=*/true);
  const Sample& s = game.explored[0];
  EXPECT_EQ(s.has_exact, 1);
  EXPECT_EQ(s.exact_score, -2);
  EXPECT_EQ(s.wdl[2], kOne);
  EXPECT_EQ(s.final_margin, -2);
}

TEST(PolicySurprise, IsTheKlDivergenceOfTheTargetFromThePrior) {
  mcts::SearchResult r;
  r.children = {{0, 10, 0.5f, 0, 0}, {1, 0, 0.5f, 0, 0}};
  r.policy_target.assign(65, 0.0f);
  r.policy_target[0] = 1.0f;
  EXPECT_NEAR(PolicySurprise(r, 8), std::log(2.0), 1e-6);
  r.policy_target[0] = r.policy_target[1] = 0.5f;  // the search agreed with the prior
  EXPECT_NEAR(PolicySurprise(r, 8), 0.0, 1e-6);
  r.policy_target.clear();  // a fast search
  EXPECT_EQ(PolicySurprise(r, 8), 0.0f);
}

TEST(PolicySurprise, WeightsRepeatTheSurprisingRecords) {
  GameRecords game = Records({core::Color::kBlack, core::Color::kWhite, core::Color::kBlack,
                              core::Color::kWhite},
                             0, 1, 0);
  for (int i = 0; i < 4; ++i) {
    game.samples[i].exact_score = static_cast<std::int8_t>(i);
    game.samples[i].has_policy = 1;
  }
  game.surprise = {0, 0, 0, 4};  // weights 0.5, 0.5, 0.5 and 0.5 + 0.5 x 4 = 2.5
  core::Rng rng(3);
  const int trials = 4000;
  double copies[4] = {};
  for (int t = 0; t < trials; ++t) {
    const std::vector<Sample> out = WeightBySurprise(game, 0.5f, rng);
    int last = -1, count[4] = {};
    for (const Sample& s : out) {
      ASSERT_GE(s.exact_score, last);  // the game's order is kept
      last = s.exact_score;
      ++count[s.exact_score];
    }
    for (int i = 0; i < 3; ++i) ASSERT_LE(count[i], 1);
    ASSERT_TRUE(count[3] == 2 || count[3] == 3) << count[3];
    for (int i = 0; i < 4; ++i) copies[i] += count[i];
  }
  EXPECT_NEAR(copies[0] / trials, 0.5, 0.05);
  EXPECT_NEAR(copies[3] / trials, 2.5, 0.05);
  // A fast search's record (no policy target) keeps weight 1; the full ones share theirs.
  game.samples[0].has_policy = 0;  // weights 1, then 0.5, 0.5 and 0.5 + 0.5 x 3 = 2
  double first = 0, last = 0;
  for (int t = 0; t < trials; ++t) {
    const std::vector<Sample> out = WeightBySurprise(game, 0.5f, rng);
    for (const Sample& s : out) {
      first += s.exact_score == 0;
      last += s.exact_score == 3;
    }
  }
  EXPECT_EQ(first, trials);
  EXPECT_EQ(last, 2 * trials);
  // No surprise, or share 0: every record once.
  EXPECT_EQ(WeightBySurprise(game, 0.0f, rng).size(), 4u);
  game.surprise = {0, 0, 0, 0};
  EXPECT_EQ(WeightBySurprise(game, 0.5f, rng).size(), 4u);
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
  config.lr_floor = 0.005;  // a lower end: the same shape, ending at 0.5%
  EXPECT_NEAR(LearningRateAt(config, 50), 0.1 * (0.005 + 0.995 * 0.5), 1e-12);
  EXPECT_NEAR(LearningRateAt(config, 100), 0.0005, 1e-12);
  EXPECT_NEAR(LearningRateAt(config, 5000), 0.0005, 1e-12);
  config.lr_floor = 0;
  EXPECT_NEAR(LearningRateAt(config, 100), 0, 1e-12);
  EXPECT_GT(LearningRateAt(config, 99), 0);
}

}  // namespace
}  // namespace othello::training
