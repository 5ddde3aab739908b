// Play's exact solver at the root (play/root_solve.h): perfect moves on known endgames,
// the solve's bounds inside the move's limits (node counts and an injected solver, no
// wall-clock thresholds), and the fallback to the search when the solve is cut off.
#include <atomic>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/ggf.h"
#include "core/obf.h"
#include "core/solver.h"
#include "mcts/evaluator.h"
#include "play/game_session.h"
#include "play/root_solve.h"
#include "play/search_player.h"

namespace othello::play {
namespace {

// The positions of an .obf file of tests/data.
std::vector<core::ObfEntry> ReadObf(const std::string& name) {
  std::ifstream in(std::string(OZ_TEST_DATA_DIR) + "/" + name);
  EXPECT_TRUE(in.good()) << "missing tests/data/" << name;
  std::vector<core::ObfEntry> entries;
  std::string line;
  while (std::getline(in, line)) {
    auto entry = core::ParseObfLine(line);
    EXPECT_TRUE(entry.ok()) << entry.error();
    if (entry.ok() && *entry) entries.push_back(**entry);
  }
  return entries;
}

// A game whose position to move is `position` (a set-up start).
core::Game GameAt(const core::Position& position) { return core::Game(core::Rules{}, position); }

// A search player with the root solve from `empties` and `visits` playouts (0 with no
// time: no limit at all, so the solve always finishes).
SearchPlayer RootSolvingPlayer(mcts::Evaluator& evaluator, int empties, std::uint64_t visits) {
  SearchPlayerOptions options = PlaySearch(visits);
  options.root_solve_empties = empties;
  options.tree_nodes = 1 << 14;
  return SearchPlayer(evaluator, options);
}

TEST(RootSolve, PlaysThePerfectMoveOfFfo40) {
  const core::ObfEntry ffo40 = ReadObf("ffo40-59.obf").at(0);
  ASSERT_EQ(ffo40.position.EmptyCount(), 20);
  mcts::UniformEvaluator evaluator;
  for (const int threads : {1, 2}) {  // the search's threads solve together
    SearchPlayerOptions options = PlaySearch(/*visits=*/0);
    options.root_solve_empties = 20;
    options.tree_nodes = 1 << 14;
    options.params.threads = threads;
    SearchPlayer player(evaluator, options);
    const core::Game game = GameAt(ffo40.position);
    player.NewGame(game, std::nullopt);
    const PlayedMove move = player.GenMove(game, {});
    ASSERT_TRUE(move.eval.has_value());
    EXPECT_EQ(*move.eval, *ffo40.BestScore());
    bool best = false;
    for (const core::ObfScore& listed : ffo40.scores) {
      best = best || (listed.move == move.square && listed.score == *ffo40.BestScore());
    }
    EXPECT_TRUE(best) << "played " << move.square;
    EXPECT_TRUE(player.last_result().exact);
    EXPECT_EQ(player.last_result().playouts, 0u);  // solved, not searched
  }
}

TEST(RootSolve, EveryMoveOfRandomEndgamesKeepsTheExactScore) {
  const std::vector<core::ObfEntry> positions = ReadObf("random18.obf");
  ASSERT_GE(positions.size(), 5u);
  mcts::UniformEvaluator evaluator;
  SearchPlayer player = RootSolvingPlayer(evaluator, /*empties=*/18, /*visits=*/0);
  core::Solver reference;
  for (std::size_t i = 0; i < 5; ++i) {
    const core::Position& position = positions[i].position;
    const core::Game game = GameAt(position);
    player.NewGame(game, std::nullopt);
    const core::Square move = player.GenMove(game, {}).square;
    ASSERT_TRUE(move == core::kPass ? position.LegalMoves() == 0 : position.IsLegal(move));
    const int best = reference.Solve(position, core::Rules{}).score;
    EXPECT_EQ(-reference.Solve(position.Play(move), core::Rules{}).score, best) << i;
    EXPECT_EQ(player.last_result().exact_score, best) << i;
  }
}

TEST(RootSolve, AboveTheThresholdTheSearchPlays) {
  const core::ObfEntry ffo40 = ReadObf("ffo40-59.obf").at(0);
  mcts::UniformEvaluator evaluator;
  SearchPlayer player = RootSolvingPlayer(evaluator, /*empties=*/19, /*visits=*/16);
  const core::Game game = GameAt(ffo40.position);
  player.NewGame(game, std::nullopt);
  player.GenMove(game, {});
  EXPECT_FALSE(player.last_result().proven);
  EXPECT_GT(player.last_result().playouts, 0u);
}

TEST(RootSolve, ASolveCutOffByItsNodeBudgetFallsBackToTheSearch) {
  // 2 playouts allow 2 * kRootSolveNodesPerPlayout solver nodes: too few to prove even
  // the win of FFO #40 (the premise is checked first).
  const core::ObfEntry ffo40 = ReadObf("ffo40-59.obf").at(0);
  core::Solver solver;
  const core::SolveLimits limits = RootSolveLimits({2, 0, 0, nullptr});
  ASSERT_EQ(limits.max_nodes, 2 * kRootSolveNodesPerPlayout);
  ASSERT_EQ(solver.SolveWld(ffo40.position, core::Rules{}, limits).status,
            core::SolveStatus::kNodeLimit);

  mcts::UniformEvaluator evaluator;
  SearchPlayer player = RootSolvingPlayer(evaluator, /*empties=*/20, /*visits=*/2);
  const core::Game game = GameAt(ffo40.position);
  player.NewGame(game, std::nullopt);
  const PlayedMove move = player.GenMove(game, {});
  EXPECT_TRUE(ffo40.position.IsLegal(move.square));
  EXPECT_FALSE(player.last_result().proven);
  EXPECT_EQ(player.last_result().playouts, 2u);  // the search's full budget

  // With more playouts the win is proven but not its margin: the winning move is played.
  SearchPlayer more = RootSolvingPlayer(evaluator, /*empties=*/20, /*visits=*/64);
  more.NewGame(game, std::nullopt);
  const core::Square won = more.GenMove(game, {}).square;
  EXPECT_TRUE(more.last_result().proven);
  EXPECT_FALSE(more.last_result().exact);
  EXPECT_EQ(more.last_result().playouts, 0u);
  EXPECT_EQ(-solver.SolveWld(ffo40.position.Play(won), core::Rules{}).score, 1);
}

TEST(RootSolve, LimitsShareTheMovesTimeAndBoundUntimedMovesByNodes) {
  std::atomic<bool> stop{false};
  const core::SolveLimits timed = RootSolveLimits({0, 0, 0.4, &stop});
  EXPECT_DOUBLE_EQ(timed.max_seconds, 0.4 * kRootSolveTimeShare);
  EXPECT_EQ(timed.max_nodes, 0u);
  EXPECT_EQ(timed.stop, &stop);
  const core::SolveLimits both = RootSolveLimits({200, 0, 0.4, nullptr});
  EXPECT_EQ(both.max_nodes, 200 * kRootSolveNodesPerPlayout);
  EXPECT_DOUBLE_EQ(both.max_seconds, 0.4 * kRootSolveTimeShare);
  const core::SolveLimits unbounded = RootSolveLimits({});
  EXPECT_EQ(unbounded.max_nodes, 0u);
  EXPECT_EQ(unbounded.max_seconds, 0.0);

  // What a first solve leaves of the bounds (nothing once one is spent).
  core::SolveResult spent;
  spent.nodes = 1000;
  spent.seconds = 0.1;
  const auto left = SolveLimitsLeft(both, spent);
  ASSERT_TRUE(left.has_value());
  EXPECT_EQ(left->max_nodes, 200 * kRootSolveNodesPerPlayout - 1000);
  EXPECT_DOUBLE_EQ(left->max_seconds, 0.4 * kRootSolveTimeShare - 0.1);
  EXPECT_TRUE(SolveLimitsLeft(unbounded, spent).has_value());
  spent.seconds = 0.4 * kRootSolveTimeShare;
  EXPECT_FALSE(SolveLimitsLeft(both, spent).has_value());
  spent.seconds = 0;
  spent.nodes = 200 * kRootSolveNodesPerPlayout;
  EXPECT_FALSE(SolveLimitsLeft(both, spent).has_value());

  // The search gets what the solve left of a timed move; never 0 (no limit).
  EXPECT_DOUBLE_EQ(LimitsAfterSolve({0, 0, 0.4, nullptr}, 0.1).seconds, 0.3);
  EXPECT_DOUBLE_EQ(LimitsAfterSolve({0, 0, 0.4, nullptr}, 0.5).seconds,
                   kMinSearchSecondsAfterSolve);
  EXPECT_EQ(LimitsAfterSolve({100, 0, 0, nullptr}, 0.5).seconds, 0.0);  // untimed stays so
  EXPECT_EQ(LimitsAfterSolve({100, 0, 0, nullptr}, 0.5).playouts, 100u);
}

// A stand-in solver whose win/draw/loss and exact solves end as told, saying they spent
// `seconds` each: the injected clock of the tests below. Records the limits it was given.
struct FakeSolver {
  core::SolveStatus wld_status = core::SolveStatus::kTimeLimit;
  int wld_score = 0;
  core::SolveStatus exact_status = core::SolveStatus::kTimeLimit;
  int exact_score = 0;
  core::Square move = 8;  // a2, legal in FFO #40
  double seconds = 0;
  std::uint64_t nodes = 0;
  std::vector<core::SolveLimits> seen;  // in call order
  std::vector<bool> wld;
  RootSolver Bind() {
    return [this](const core::Position&, const core::Rules&, const core::SolveLimits& limits,
                  bool wld_only) {
      seen.push_back(limits);
      wld.push_back(wld_only);
      core::SolveResult result;
      result.status = wld_only ? wld_status : exact_status;
      result.score = wld_only ? wld_score : exact_score;
      result.best_move = move;
      result.seconds = seconds;
      result.nodes = nodes;
      return result;
    };
  }
};

TEST(RootSolve, AnUnfinishedTimedSolveIsCountedInTheMovesTime) {
  const core::ObfEntry ffo40 = ReadObf("ffo40-59.obf").at(0);
  mcts::UniformEvaluator evaluator;
  mcts::Tree tree(ffo40.position, 1 << 12);
  mcts::TreeSearch search(tree, evaluator, PlaySearch(16).params, /*seed=*/1);
  FakeSolver solver;
  solver.seconds = 0.3;  // of the move's 1000 seconds: the search gets the rest
  const mcts::SearchLimits limits{16, 0, 1000, nullptr};
  const mcts::SearchResult result =
      SolveOrSearch(search, evaluator, limits, /*ply=*/0, /*empties=*/20, solver.Bind());
  ASSERT_EQ(solver.seen.size(), 1u);  // win/draw/loss only: it did not finish
  EXPECT_TRUE(solver.wld[0]);
  EXPECT_DOUBLE_EQ(solver.seen[0].max_seconds, 1000 * kRootSolveTimeShare);
  EXPECT_EQ(solver.seen[0].max_nodes, 16 * kRootSolveNodesPerPlayout);
  EXPECT_FALSE(result.proven);
  EXPECT_EQ(result.playouts, 16u);
  EXPECT_GE(result.seconds, 0.3);  // the move's time holds the solve's
  EXPECT_TRUE(ffo40.position.IsLegal(result.move));
}

TEST(RootSolve, TheExactSolveGetsWhatTheWinDrawLossSolveLeft) {
  const core::ObfEntry ffo40 = ReadObf("ffo40-59.obf").at(0);
  mcts::UniformEvaluator evaluator;
  mcts::Tree tree(ffo40.position, 1 << 12);
  FakeSolver solver;
  solver.wld_status = core::SolveStatus::kExact;
  solver.wld_score = 1;
  solver.seconds = 100;
  solver.nodes = 1000;
  const mcts::SearchLimits limits{16, 0, 1000, nullptr};
  {
    mcts::TreeSearch search(tree, evaluator, PlaySearch(16).params, /*seed=*/1);
    const mcts::SearchResult won = SolveOrSearch(search, evaluator, limits, 0, 20, solver.Bind());
    ASSERT_EQ(solver.seen.size(), 2u);
    EXPECT_FALSE(solver.wld[1]);
    EXPECT_DOUBLE_EQ(solver.seen[1].max_seconds, 1000 * kRootSolveTimeShare - 100);
    EXPECT_EQ(solver.seen[1].max_nodes, 16 * kRootSolveNodesPerPlayout - 1000);
    // The exact solve was cut off: the proven win's move is played, its margin unknown.
    EXPECT_EQ(won.move, solver.move);
    EXPECT_TRUE(won.proven);
    EXPECT_FALSE(won.exact);
    EXPECT_EQ(won.win, 1.0f);
    EXPECT_EQ(won.playouts, 0u);
    EXPECT_DOUBLE_EQ(won.seconds, 200);
  }
  // A proven loss whose margin is not found is left to the search.
  solver.wld_score = -1;
  {
    mcts::TreeSearch search(tree, evaluator, PlaySearch(16).params, /*seed=*/1);
    const mcts::SearchResult lost = SolveOrSearch(search, evaluator, limits, 0, 20, solver.Bind());
    EXPECT_FALSE(lost.proven);
    EXPECT_GT(lost.playouts, 0u);
  }
  // A win/draw/loss solve that used the whole share leaves no exact solve.
  solver.seen.clear();
  solver.seconds = 1000 * kRootSolveTimeShare;
  mcts::TreeSearch search(tree, evaluator, PlaySearch(16).params, /*seed=*/1);
  SolveOrSearch(search, evaluator, limits, 0, 20, solver.Bind());
  EXPECT_EQ(solver.seen.size(), 1u);
}

TEST(RootSolve, AFinishedSolveIsPlayedAndAboveTheThresholdNothingIsSolved) {
  const core::ObfEntry ffo40 = ReadObf("ffo40-59.obf").at(0);
  mcts::UniformEvaluator evaluator;
  mcts::Tree tree(ffo40.position, 1 << 12);
  FakeSolver solver;
  {
    mcts::TreeSearch search(tree, evaluator, PlaySearch(16).params, /*seed=*/1);
    SolveOrSearch(search, evaluator, {16, 0, 0, nullptr}, 0, /*empties=*/19, solver.Bind());
    EXPECT_TRUE(solver.seen.empty());  // 20 empties > 19
    SolveOrSearch(search, evaluator, {16, 0, 0, nullptr}, 0, /*empties=*/0, solver.Bind());
    EXPECT_TRUE(solver.seen.empty());  // off
  }
  solver.wld_status = solver.exact_status = core::SolveStatus::kExact;
  solver.wld_score = -1;
  solver.exact_score = -6;
  solver.seconds = 0.25;
  mcts::TreeSearch search(tree, evaluator, PlaySearch(16).params, /*seed=*/1);
  const mcts::SearchResult result =
      SolveOrSearch(search, evaluator, {16, 0, 0, nullptr}, 0, /*empties=*/20, solver.Bind());
  EXPECT_EQ(result.move, solver.move);
  EXPECT_TRUE(result.proven && result.exact && result.has_score);
  EXPECT_EQ(result.exact_score, -6);
  EXPECT_EQ(result.loss, 1.0f);
  EXPECT_EQ(result.playouts, 0u);
  EXPECT_DOUBLE_EQ(result.seconds, 0.5);  // both solves
}

TEST(RootSolve, TheStopFlagStopsTheSolveAndTheSearch) {
  const core::ObfEntry ffo40 = ReadObf("ffo40-59.obf").at(0);
  mcts::UniformEvaluator evaluator;
  mcts::Tree tree(ffo40.position, 1 << 12);
  mcts::TreeSearch search(tree, evaluator, PlaySearch(16).params, /*seed=*/1);
  core::Solver solver;
  std::atomic<bool> stop{true};
  const mcts::SearchResult result = SolveOrSearch(search, evaluator, {0, 0, 0, &stop}, 0,
                                                  /*empties=*/20, SolverFor(solver));
  EXPECT_FALSE(result.exact);
  EXPECT_EQ(result.playouts, 0u);
  EXPECT_TRUE(ffo40.position.IsLegal(result.move));
}

TEST(RootSolve, TheSessionPlaysTheSolversMove) {
  const core::ObfEntry ffo40 = ReadObf("ffo40-59.obf").at(0);
  mcts::UniformEvaluator evaluator;
  Strength strength;
  strength.visits = 100000;  // the node budget of so many playouts: the solves finish
  strength.seconds = 0;
  strength.root_solve_empties = 20;
  GameSession session(evaluator, core::Rules{}, strength);
  ASSERT_FALSE(session.SetGame(core::GgfRecord::FromGame(GameAt(ffo40.position))));
  const Analysis analysis = session.Analyze();
  EXPECT_TRUE(analysis.best.exact);
  EXPECT_EQ(analysis.best.discs, *ffo40.BestScore());
  EXPECT_EQ(analysis.playouts, 0u);
}

}  // namespace
}  // namespace othello::play
