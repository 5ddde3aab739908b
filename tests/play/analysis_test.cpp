// Per-move game analysis (play/game_analysis.h): exact losses against the endgame
// solver on FFO-derived positions, forced passes, 6x6/10x10, anti-Othello, stopping,
// progress, the table, the marks' thresholds, and the planted-blunder fixtures the
// browser and CLI tests use. The uniform evaluator stands in for a network.
#include <atomic>
#include <fstream>
#include <regex>
#include <string>

#include <gtest/gtest.h>

#include "core/notation.h"
#include "core/obf.h"
#include "core/rng.h"
#include "core/solver.h"
#include "mcts/evaluator.h"
#include "mcts/search.h"
#include "play/game_analysis.h"
#include "play/game_session.h"

namespace othello::play {
namespace {

// Fixtures: a whole game from the standard start in which ply kPlanted* (0-based, passes
// counted) turns a won position into a lost one, with 10-14 empties, and every other
// ply with at most 14 empties before it is a best move.
// 8x8: 60 plies, ply 48 is black's g7 (12 empties; +32 for black before it, -26 after).
const char* const kPlanted8 =
    "f5d6c4f3f4d3e2g4d7c2h5f6e6c7b7f2f1c3f7e7d2c5b5d1f8g8c6d8c1h4e1a8c8b3h8b8h3a6e3g3"
    "h2g5a4a3h6b4b6b1g7g1a5a7g6e8g2h1a2h7b2a1";
constexpr int kPlanted8Ply = 48;
// 6x6: 30 plies (a forced pass among them), over with 3 empties; ply 20 is b1 (12
// empties; +2 for its mover before it, -26 after).
const char* const kPlanted6 = "e4c5b3e3d5a3d2e6f4d1b6b5b2f3b4a4a5c1a2a6b1a1f2c2c6d6f5f6e2";
constexpr int kPlanted6Ply = 20;

core::Rules RulesOfSize(int size, bool anti = false) {
  core::Rules rules;
  rules.size = size;
  rules.anti = anti;
  return rules;
}

// The exact margin for the side to move (the game's result when it is over).
int Exact(const core::Position& position, const core::Rules& rules) {
  if (position.IsGameOver()) return core::Score(position, rules).MarginFor(position.side_to_move());
  const core::SolveResult result = core::SolveExact(position, rules);
  EXPECT_TRUE(result.exact());
  return result.score;
}

int Sign(int x) { return (x > 0) - (x < 0); }

core::Game GameOf(const core::Rules& rules, const char* transcript) {
  core::Game game(rules, core::Position::Standard(rules.size));
  auto error = game.PlayTranscript(transcript);
  EXPECT_FALSE(error) << error->message;
  return game;
}

// Random plies from `position` until at most `empties` are left (or the game ends).
core::Position PlayRandomly(core::Position position, int empties, std::uint64_t seed) {
  core::Rng rng(seed);
  while (!position.IsGameOver() && position.EmptyCount() > empties) {
    position = position.Play(core::RandomLegalMove(position, rng));
  }
  return position;
}

AnalysisOptions Cheap(int exact_empties = 14) {
  AnalysisOptions options;
  options.visits = 8;
  options.exact_empties = exact_empties;
  return options;
}

std::vector<core::Position> FfoEndgames(int count) {
  std::ifstream in(std::string(OZ_TEST_DIR) + "/../data/ffo40-59.obf");
  EXPECT_TRUE(in) << "tests/data/ffo40-59.obf is missing";
  std::vector<core::Position> positions;
  std::string line;
  while (static_cast<int>(positions.size()) < count && std::getline(in, line)) {
    auto entry = core::ParseObfLine(line);
    if (!entry.ok() || !*entry) continue;
    // 10..14 empties, from the FFO position's own continuation.
    const int empties = 10 + static_cast<int>(positions.size()) % 5;
    core::Position position = PlayRandomly((*entry)->position, empties, positions.size() + 1);
    if (!position.IsGameOver()) positions.push_back(position);
  }
  return positions;
}

// For every move of `start` that loses discs, a one-ply game from `start` playing it
// is analysed: the loss, exactness and mark must be the solver's. Returns how many
// moves turned a win into a loss.
int CheckExactLosses(const core::Position& start, const core::Rules& rules) {
  mcts::UniformEvaluator evaluator;
  const int value = Exact(start, rules);
  int win_to_loss = 0;
  core::ForEachSquare(start.LegalMoves(), [&](core::Square move) {
    const int after = -Exact(start.Play(move), rules);
    if (after >= value) return;
    core::Game game(rules, start);
    ASSERT_FALSE(game.Play(move));
    const GameAnalysis analysis = AnalyzeGame(evaluator, game, Cheap());
    ASSERT_TRUE(analysis.complete);
    ASSERT_EQ(analysis.plies.size(), 1u);
    const PlyAnalysis& ply = analysis.plies[0];
    const std::string where = core::FormatBoardString(start) + " " +
                              core::SquareName(move, rules.size);
    EXPECT_TRUE(ply.exact) << where;
    EXPECT_EQ(ply.best_discs, value) << where;
    EXPECT_EQ(ply.played_discs, after) << where;
    EXPECT_EQ(ply.loss, value - after) << where;
    const bool worse = Sign(after) < Sign(value);
    EXPECT_EQ(ply.mark, MarkFor(value - after, start.squares(), worse)) << where;
    if (value > 0 && after < 0) {
      EXPECT_EQ(ply.mark, MoveMark::kBlunder) << where;
      ++win_to_loss;
    }
  });
  return win_to_loss;
}

TEST(GameAnalysis, ExactLossesMatchTheSolver) {
  int win_to_loss = 0;
  const std::vector<core::Position> positions = FfoEndgames(10);
  ASSERT_EQ(positions.size(), 10u);
  for (const core::Position& position : positions) {
    win_to_loss += CheckExactLosses(position, RulesOfSize(8));
  }
  EXPECT_GT(win_to_loss, 0) << "no move turned a win into a loss: pick other positions";
}

TEST(GameAnalysis, ExactLossesUnderAntiOthello) {
  const core::Rules anti = RulesOfSize(8, /*anti=*/true);
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    CheckExactLosses(PlayRandomly(core::Position::Standard(8), 12, seed), anti);
  }
}

TEST(GameAnalysis, BestMoveLosesNothingAndTheEndIsTheResult) {
  mcts::UniformEvaluator evaluator;
  for (bool anti : {false, true}) {
    const core::Rules rules = RulesOfSize(8, anti);
    const core::Position start = PlayRandomly(core::Position::Standard(8), 10, 7);
    core::Game game(rules, start);
    while (!game.IsOver()) {  // perfect play to the end
      const core::SolveResult result = core::SolveExact(game.position(), rules);
      ASSERT_FALSE(game.Play(result.best_move));
    }
    const GameAnalysis analysis = AnalyzeGame(evaluator, game, Cheap());
    ASSERT_EQ(analysis.plies.size(), game.moves().size());
    for (const PlyAnalysis& ply : analysis.plies) {
      EXPECT_EQ(ply.loss, 0) << ply.ply;
      EXPECT_EQ(ply.mark, MoveMark::kNone) << ply.ply;
      EXPECT_TRUE(ply.exact && ply.black_exact) << ply.ply;
      EXPECT_EQ(ply.black_discs, game.FinalOutcome().black_margin) << ply.ply;
    }
  }
}

// Black to move has none; white has b1, the last square (the game is then over).
TEST(GameAnalysis, ForcedPassCostsNothing) {
  auto start = core::ParseBoardString("O-XXXXXO" + std::string(56, 'X') + " X");
  ASSERT_TRUE(start.ok()) << start.error();
  for (int exact_empties : {14, 0}) {
    core::Game game(core::Rules{}, *start);
    ASSERT_FALSE(game.Play(core::kPass));
    ASSERT_FALSE(game.Play(*core::ParseSquare("b1", 8)));
    mcts::UniformEvaluator evaluator;
    const GameAnalysis analysis = AnalyzeGame(evaluator, game, Cheap(exact_empties));
    ASSERT_EQ(analysis.plies.size(), 2u);
    const PlyAnalysis& pass = analysis.plies[0];
    EXPECT_TRUE(pass.pass);
    EXPECT_EQ(pass.color, core::Color::kBlack);
    EXPECT_EQ(pass.played, core::kPass);
    EXPECT_EQ(pass.loss, 0);
    EXPECT_EQ(pass.mark, MoveMark::kNone);
    EXPECT_EQ(pass.best_discs, pass.played_discs);
    const int margin = game.FinalOutcome().black_margin;
    EXPECT_EQ(pass.black_discs, margin);  // the pass leaves black's value where it was
    EXPECT_EQ(analysis.plies[1].color, core::Color::kWhite);
    EXPECT_EQ(analysis.plies[1].black_discs, margin);
    EXPECT_TRUE(analysis.plies[1].black_exact);
  }
}

TEST(GameAnalysis, SixBySixWithAPass) {
  const core::Game game = GameOf(RulesOfSize(6), kPlanted6);
  ASSERT_EQ(game.moves().size(), 30u);
  mcts::UniformEvaluator evaluator;
  const GameAnalysis analysis = AnalyzeGame(evaluator, game, Cheap());
  ASSERT_TRUE(analysis.complete);
  ASSERT_EQ(analysis.plies.size(), 30u);
  int passes = 0;
  for (const PlyAnalysis& ply : analysis.plies) {
    if (!ply.pass) continue;
    ++passes;
    EXPECT_EQ(ply.loss, 0);
    EXPECT_EQ(ply.black_discs, analysis.plies[ply.ply - 1].black_discs);
  }
  EXPECT_EQ(passes, 1);
  EXPECT_EQ(analysis.plies.back().black_discs, game.FinalOutcome().black_margin);
}

TEST(GameAnalysis, TenByTen) {
  const core::Rules rules = RulesOfSize(10);
  mcts::UniformEvaluator evaluator;
  // The opening, searched.
  core::Game opening(rules, core::Position::Standard(10));
  core::Rng rng(3);
  for (int i = 0; i < 3; ++i) opening.Play(core::RandomLegalMove(opening.position(), rng));
  const GameAnalysis searched = AnalyzeGame(evaluator, opening, Cheap());
  ASSERT_TRUE(searched.complete);
  ASSERT_EQ(searched.plies.size(), 3u);
  for (const PlyAnalysis& ply : searched.plies) {
    EXPECT_FALSE(ply.exact);
    EXPECT_GE(ply.black_win, 0);
    EXPECT_LE(ply.black_win, 1);
    EXPECT_GE(ply.loss, 0);
  }
  // An endgame (upper squares past bit 64), solved.
  const core::Position endgame = PlayRandomly(core::Position::Standard(10), 11, 5);
  ASSERT_FALSE(endgame.IsGameOver());
  CheckExactLosses(endgame, rules);
}

TEST(GameAnalysis, StopFromTheProgressCallback) {
  const core::Game game = GameOf(core::Rules{}, "f5d6c3d3c4f4f6f3e6e7");
  mcts::UniformEvaluator evaluator;
  std::atomic<bool> stop{false};
  const GameAnalysis analysis = AnalyzeGame(
      evaluator, game, Cheap(),
      [&](const GameAnalysis& so_far) {
        if (so_far.positions_done == 3) stop = true;
      },
      &stop);
  EXPECT_FALSE(analysis.complete);
  EXPECT_EQ(analysis.positions_done, 3);
  EXPECT_EQ(analysis.positions_total, 11);
  EXPECT_EQ(analysis.plies.size(), 2u);
  EXPECT_NE(FormatAnalysisTable(game, analysis).find("analysis stopped after 3 of 11 positions"),
            std::string::npos);
  // A stop set before the start: nothing is evaluated.
  const GameAnalysis none = AnalyzeGame(evaluator, game, Cheap(), {}, &stop);
  EXPECT_FALSE(none.complete);
  EXPECT_EQ(none.positions_done, 0);
}

TEST(GameAnalysis, ProgressOncePerPosition) {
  const core::Game game = GameOf(RulesOfSize(6), kPlanted6);
  mcts::UniformEvaluator evaluator;
  int calls = 0;
  const GameAnalysis analysis = AnalyzeGame(evaluator, game, Cheap(), [&](const GameAnalysis& so_far) {
    ++calls;
    EXPECT_EQ(so_far.positions_done, calls);
    EXPECT_EQ(so_far.positions_total, 31);
    EXPECT_EQ(so_far.plies.size(), static_cast<std::size_t>(calls - 1));
  });
  EXPECT_EQ(calls, 31);
  EXPECT_TRUE(analysis.complete);
  EXPECT_EQ(analysis.positions_done, 31);
  // A game with no moves has one position and no plies.
  const GameAnalysis empty = AnalyzeGame(evaluator, core::Game(core::Rules{}), Cheap());
  EXPECT_TRUE(empty.complete);
  EXPECT_EQ(empty.positions_done, 1);
  EXPECT_TRUE(empty.plies.empty());
}

TEST(GameAnalysis, EvaluatePosition) {
  mcts::UniformEvaluator evaluator;
  const core::Position endgame = PlayRandomly(core::Position::Standard(8), 12, 3);
  const PositionValue solved = EvaluatePosition(evaluator, endgame, core::Rules{}, Cheap());
  EXPECT_TRUE(solved.exact);
  EXPECT_EQ(solved.discs, Exact(endgame, core::Rules{}));
  EXPECT_EQ(-Exact(endgame.Play(solved.best), core::Rules{}), solved.discs);
  const PositionValue searched =
      EvaluatePosition(evaluator, core::Position::Standard(8), core::Rules{}, Cheap());
  EXPECT_FALSE(searched.exact);
  EXPECT_TRUE(core::Position::Standard(8).IsLegal(searched.best));
  EXPECT_FALSE(searched.pv.empty());
}

TEST(GameAnalysis, SearchedMovesTakeTheExpectedMarginWhereTheEvaluatorGivesOne) {
  mcts::SearchResult result;
  result.move = 19;
  result.q = 0.2f;
  result.win = 0.5f;
  result.draw = 0.2f;
  result.score = 1.5f;
  result.children = {{19, 120, 0.4f, 0.5f, 3.5f}, {26, 80, 0.3f, -0.25f, -6.0f}};
  // Without margins (no disc-difference head): q scaled to the board.
  MoveEvaluation m = SearchedMove(result, 26, 64);
  EXPECT_DOUBLE_EQ(m.discs, -8.0);
  EXPECT_DOUBLE_EQ(m.win_probability, 0.375);
  EXPECT_EQ(m.visits, 80u);
  EXPECT_NEAR(SearchedMove(result, core::kPass, 64).discs, 6.4, 1e-5);  // the root's q
  // With them: the search's expected margins, the win probability unchanged.
  result.has_score = true;
  m = SearchedMove(result, 26, 64);
  EXPECT_DOUBLE_EQ(m.discs, -6.0);
  EXPECT_DOUBLE_EQ(m.win_probability, 0.375);
  EXPECT_DOUBLE_EQ(SearchedMove(result, 19, 64).discs, 3.5);
  EXPECT_DOUBLE_EQ(SearchedMove(result, core::kPass, 64).discs, 1.5);  // the root's
  EXPECT_FALSE(SearchedMove(result, 19, 64).exact);
  // A proven root: its move's exact margin.
  result.proven = result.exact = true;
  result.exact_score = 4;
  m = SearchedMove(result, 19, 64);
  EXPECT_TRUE(m.exact);
  EXPECT_DOUBLE_EQ(m.discs, 4.0);
  EXPECT_DOUBLE_EQ(m.win_probability, 1.0);
}

TEST(GameAnalysis, MarkThresholdsScaleWithTheBoard) {
  EXPECT_EQ(MarkFor(0, 64, false), MoveMark::kNone);
  EXPECT_EQ(MarkFor(1.9, 64, false), MoveMark::kNone);
  EXPECT_EQ(MarkFor(2, 64, false), MoveMark::kInaccuracy);
  EXPECT_EQ(MarkFor(4, 64, false), MoveMark::kMistake);
  EXPECT_EQ(MarkFor(7.9, 64, false), MoveMark::kMistake);
  EXPECT_EQ(MarkFor(8, 64, false), MoveMark::kBlunder);
  EXPECT_EQ(MarkFor(0, 64, /*outcome_worse=*/true), MoveMark::kBlunder);
  // 6x6: 36/64 of 2, 4, 8 -> 1, 2, 5 (4.5 rounded up).
  EXPECT_EQ(MarkFor(0.9, 36, false), MoveMark::kNone);
  EXPECT_EQ(MarkFor(1, 36, false), MoveMark::kInaccuracy);
  EXPECT_EQ(MarkFor(2, 36, false), MoveMark::kMistake);
  EXPECT_EQ(MarkFor(4, 36, false), MoveMark::kMistake);
  EXPECT_EQ(MarkFor(5, 36, false), MoveMark::kBlunder);
  // 10x10: 100/64 of 2, 4, 8 -> 3, 6, 13.
  EXPECT_EQ(MarkFor(2, 100, false), MoveMark::kNone);
  EXPECT_EQ(MarkFor(3, 100, false), MoveMark::kInaccuracy);
  EXPECT_EQ(MarkFor(6, 100, false), MoveMark::kMistake);
  EXPECT_EQ(MarkFor(12, 100, false), MoveMark::kMistake);
  EXPECT_EQ(MarkFor(13, 100, false), MoveMark::kBlunder);
  // 4x4: never below one disc.
  EXPECT_EQ(MarkFor(0.5, 16, false), MoveMark::kNone);
  EXPECT_EQ(MarkFor(1, 16, false), MoveMark::kMistake);
  EXPECT_STREQ(MoveMarkName(MoveMark::kNone), "");
  EXPECT_STREQ(MoveMarkName(MoveMark::kInaccuracy), "inaccuracy");
  EXPECT_STREQ(MoveMarkName(MoveMark::kMistake), "mistake");
  EXPECT_STREQ(MoveMarkName(MoveMark::kBlunder), "blunder");
}

// Checks with the solver that `ply` turns a win into a loss with 10-14 empties and
// that every other ply with at most 14 empties is a best move; then that the analysis
// marks exactly that one as a blunder in the exact zone.
void CheckPlantedBlunder(const core::Game& game, int planted) {
  const core::Rules& rules = game.rules();
  for (std::size_t i = 0; i < game.moves().size(); ++i) {
    const core::Position& before = game.position_at(i);
    if (before.EmptyCount() > 14 || game.moves()[i] == core::kPass) continue;
    const int value = Exact(before, rules);
    const int after = -Exact(game.position_at(i + 1), rules);
    if (static_cast<int>(i) == planted) {
      EXPECT_GE(before.EmptyCount(), 10);
      EXPECT_LE(before.EmptyCount(), 14);
      EXPECT_GT(value, 0);
      EXPECT_LT(after, 0);
    } else {
      EXPECT_EQ(after, value) << "ply " << i << " is not a best move";
    }
  }
  mcts::UniformEvaluator evaluator;
  const GameAnalysis analysis = AnalyzeGame(evaluator, game, Cheap());
  ASSERT_TRUE(analysis.complete);
  ASSERT_EQ(analysis.plies.size(), game.moves().size());
  for (const PlyAnalysis& ply : analysis.plies) {
    if (!ply.exact) continue;
    if (ply.ply == planted) {
      EXPECT_EQ(ply.mark, MoveMark::kBlunder);
      EXPECT_GT(ply.loss, 0);
    } else {
      EXPECT_EQ(ply.mark, MoveMark::kNone) << ply.ply;
      EXPECT_EQ(ply.loss, 0) << ply.ply;
    }
  }
  EXPECT_TRUE(analysis.plies[planted].exact);
  EXPECT_EQ(analysis.plies[planted].mark, MoveMark::kBlunder);
}

TEST(GameAnalysis, PlantedBlunderFixture) {
  const core::Game game = GameOf(core::Rules{}, kPlanted8);
  EXPECT_EQ(game.moves().size(), 60u);
  EXPECT_TRUE(game.IsOver());
  CheckPlantedBlunder(game, kPlanted8Ply);
}

TEST(GameAnalysis, PlantedBlunderFixture6x6) {
  const core::Game game = GameOf(RulesOfSize(6), kPlanted6);
  EXPECT_TRUE(game.IsOver());
  CheckPlantedBlunder(game, kPlanted6Ply);
}

TEST(GameAnalysis, TableHasARowPerPlyMarksAndTotals) {
  const core::Game game = GameOf(core::Rules{}, kPlanted8);
  mcts::UniformEvaluator evaluator;
  const GameAnalysis analysis = AnalyzeGame(evaluator, game, Cheap());
  const std::string table = FormatAnalysisTable(game, analysis);
  const std::regex row(R"(\n +(\d+)\.  (black|white) +([a-h][1-8]|pass) +([a-h][1-8]|-) +)"
                       R"(([0-9]+\.[0-9]|-) +[-+][0-9]+\.[0-9]( \(exact\))?( +\w+)?)");
  int rows = 0;
  for (auto it = std::sregex_iterator(table.begin(), table.end(), row); it != std::sregex_iterator();
       ++it) {
    EXPECT_EQ(std::stoi((*it)[1]), ++rows);
  }
  EXPECT_EQ(rows, 60) << table;
  EXPECT_NE(table.find("  49.  black  g7"), std::string::npos) << table;
  EXPECT_TRUE(std::regex_search(table, std::regex(R"(  49\.  black  g7 .* \(exact\) +blunder\n)")))
      << table;
  EXPECT_TRUE(std::regex_search(
      table, std::regex(R"(\nblack: total loss [0-9.]+ discs, \d+ inaccurac(y|ies), \d+ mistakes?, )"
                        R"(\d+ blunders?\n)")))
      << table;
  EXPECT_TRUE(std::regex_search(
      table, std::regex(R"(\nblack: total loss [0-9.]+ discs, .*, [1-9]\d* blunders?\n)")))
      << table;
  EXPECT_NE(table.find("\nwhite: total loss "), std::string::npos) << table;
  EXPECT_EQ(table.find("stopped"), std::string::npos);
}

}  // namespace
}  // namespace othello::play
