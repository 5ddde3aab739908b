#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <thread>

#include "core/notation.h"
#include "core/solver.h"
#include "mcts/search.h"

namespace othello::mcts {
namespace {

using core::Position;

Position FromTranscript(const char* moves, int size = 8) {
  Position pos = Position::Standard(size);
  auto plies = core::ParseTranscript(moves, pos);
  EXPECT_TRUE(plies.ok()) << plies.error();
  for (core::Square sq : *plies) pos = pos.Play(sq);
  return pos;
}

SearchResult Search(const Position& pos, SearchParams params, std::uint64_t visits,
                    Evaluator* evaluator = nullptr, std::uint64_t seed = 1) {
  UniformEvaluator uniform;
  Evaluator& eval = evaluator ? *evaluator : uniform;
  Tree tree(pos, 1 << 20);
  TreeSearch search(tree, eval, params, nullptr, seed);
  SearchLimits limits;
  limits.visits = visits;
  return RunSearch(search, eval, limits);
}

// Every expanded, unproven node below the root has one visit for its own evaluation
// plus its children's (the root's statistics are its children's).
void ExpectVisitsAddUp(const Tree& tree, std::uint32_t index, bool root) {
  const Node& node = tree.node(index);
  if (node.state.load() != NodeState::kExpanded || node.proven.load() != Proven::kUnknown) return;
  std::uint32_t sum = 0;
  for (int i = 0; i < node.num_children; ++i) {
    sum += tree.node(node.first_child + i).Visits();
    ExpectVisitsAddUp(tree, node.first_child + i, false);
  }
  if (!root) {
    EXPECT_EQ(node.Visits(), sum + 1);
  }
  EXPECT_EQ(node.InFlight(), 0u);
}

TEST(Search, VisitsAddUpAndResultIsConsistent) {
  SearchParams params;
  params.solver_empties = 0;
  UniformEvaluator eval;
  Tree tree(Position::Standard(8), 1 << 20);
  TreeSearch search(tree, eval, params, nullptr, 1);
  SearchLimits limits;
  limits.visits = 3000;
  const SearchResult r = RunSearch(search, eval, limits);
  EXPECT_EQ(r.playouts, 3000u);
  ExpectVisitsAddUp(tree, tree.root_index(), true);
  std::uint32_t child_visits = 0;
  for (const auto& c : r.children) child_visits += c.visits;
  EXPECT_EQ(child_visits, 3000u);
  ASSERT_EQ(r.policy_target.size(), 65u);
  float sum = 0;
  for (float p : r.policy_target) sum += p;
  EXPECT_NEAR(sum, 1.0f, 1e-5);
  EXPECT_FALSE(r.pv.empty());
  EXPECT_EQ(r.pv.front(), r.move);
  EXPECT_NEAR(r.win + r.draw + r.loss, 1.0f, 1e-5);
  EXPECT_TRUE(Position::Standard(8).IsLegal(r.move));
}

TEST(Search, FindsAForcedWinThroughTerminalProofs) {
  // Black to move; f4 wipes out white (the 9-ply game d3c3b3d2e1d6d7e3f4).
  const Position pos = FromTranscript("d3c3b3d2e1d6d7e3");
  SearchParams params;
  params.solver_empties = 0;
  const SearchResult r = Search(pos, params, 2000);
  EXPECT_EQ(core::SquareName(r.move, 8), "f4");
  EXPECT_TRUE(r.proven);
  EXPECT_EQ(r.win, 1.0f);
  EXPECT_LT(r.playouts, 2000u);  // a proven root ends the search at once
}

TEST(Search, ProvenValuesAgreeWithTheSolver) {
  core::Rng rng(5);
  for (int trial = 0; trial < 6; ++trial) {
    core::Rules rules;
    rules.start = core::StartKind::kRandom;
    rules.random_moves = 60 - 12;
    const Position pos = core::StartPosition(rules, rng.Next());
    if (pos.IsGameOver()) continue;
    SearchParams params;
    params.solver_empties = 8;
    params.rules.anti = trial % 2;
    const SearchResult r = Search(pos, params, 200000);
    ASSERT_TRUE(r.proven) << core::FormatBoardString(pos);
    const core::SolveResult exact = core::SolveExact(pos, params.rules);
    const int sign = (exact.score > 0) - (exact.score < 0);
    EXPECT_EQ(r.win > 0.5f ? 1 : r.loss > 0.5f ? -1 : 0, sign) << core::FormatBoardString(pos);
    if (r.exact) {
      EXPECT_EQ(r.exact_score, exact.score) << core::FormatBoardString(pos);
    }
    // The chosen move keeps the proven result.
    const core::SolveResult after = core::SolveExact(pos.Play(r.move), params.rules);
    EXPECT_EQ(-((after.score > 0) - (after.score < 0)), sign) << core::FormatBoardString(pos);
  }
}

TEST(Search, ARootSmallEnoughToSolveGetsTheSolversMove) {
  core::Rng rng(11);
  for (int trial = 0; trial < 10; ++trial) {
    core::Rules rules;
    rules.start = core::StartKind::kRandom;
    rules.random_moves = 60 - 6;
    const Position pos = core::StartPosition(rules, rng.Next());
    if (pos.IsGameOver()) continue;
    SearchParams params;
    params.solver_empties = 8;
    const SearchResult r = Search(pos, params, 100);
    ASSERT_TRUE(r.proven);
    ASSERT_TRUE(pos.IsLegal(r.move)) << core::FormatBoardString(pos);
    EXPECT_EQ(-core::SolveExact(pos.Play(r.move), params.rules).score, r.exact_score);
  }
}

TEST(Search, OneThreadWithAFixedSeedIsDeterministic) {
  SearchParams params;
  params.dirichlet_noise = true;
  params.temperature_start = params.temperature_end = 1.0f;
  params.solver_empties = 6;
  RolloutEvaluator eval_a(/*rollouts=*/1, false, /*seed=*/3), eval_b(1, false, 3);
  const Position pos = FromTranscript("f5d6c3d3c4f4");
  const SearchResult a = Search(pos, params, 2000, &eval_a, /*seed=*/9);
  const SearchResult b = Search(pos, params, 2000, &eval_b, /*seed=*/9);
  ASSERT_EQ(a.children.size(), b.children.size());
  for (std::size_t i = 0; i < a.children.size(); ++i) {
    EXPECT_EQ(a.children[i].visits, b.children[i].visits);
  }
  EXPECT_EQ(a.move, b.move);
  EXPECT_EQ(a.q, b.q);
}

TEST(Search, SeveralThreadsOnOneTree) {
  SearchParams params;
  params.threads = 4;
  params.leaves_per_batch = 4;
  params.solver_empties = 8;
  UniformEvaluator eval;
  Tree tree(FromTranscript("f5d6c3d3c4f4f6"), 1 << 20);
  TreeSearch search(tree, eval, params, nullptr, 1);
  SearchLimits limits;
  limits.visits = 20000;
  const SearchResult r = RunSearch(search, eval, limits);
  EXPECT_EQ(r.playouts, 20000u);
  ExpectVisitsAddUp(tree, tree.root_index(), true);
}

TEST(Search, GumbelSpendsAtMostItsBudget) {
  for (std::uint64_t n : {8u, 16u, 32u, 64u}) {
    SearchParams params;
    params.gumbel = true;
    params.solver_empties = 0;
    const SearchResult r = Search(FromTranscript("f5d6c3"), params, n);
    std::uint64_t visits = 0;
    for (const auto& c : r.children) visits += c.visits;
    EXPECT_LE(r.playouts, n);
    EXPECT_LE(visits, n);
    EXPECT_GE(visits, n / 2);
    float sum = 0;
    for (float p : r.policy_target) sum += p;
    EXPECT_NEAR(sum, 1.0f, 1e-5);
    EXPECT_TRUE(FromTranscript("f5d6c3").IsLegal(r.move));
  }
}

TEST(Search, ForcedPlayoutsAndPolicyTargetPruning) {
  SearchParams params;
  params.forced_playouts = true;
  params.solver_empties = 0;
  RolloutEvaluator eval(4, false, 1);
  const SearchResult r = Search(FromTranscript("f5d6c3d3c4"), params, 3000, &eval);
  for (const auto& c : r.children) {
    EXPECT_GE(c.visits, static_cast<std::uint32_t>(std::sqrt(2.0 * c.prior * 3000) * 0.5));
  }
  // Pruning only removes visits: the target never exceeds the visit share of the best.
  const auto best = std::max_element(r.children.begin(), r.children.end(),
                                     [](auto& a, auto& b) { return a.visits < b.visits; });
  EXPECT_GE(r.policy_target[best->move], best->visits / 3000.0f - 1e-6);
}

TEST(Search, DirichletNoiseLeavesTheStoredPriorsUnchanged) {
  SearchParams params;
  params.dirichlet_noise = true;
  params.solver_empties = 0;
  const SearchResult r = Search(Position::Standard(8), params, 500);
  for (const auto& c : r.children) EXPECT_FLOAT_EQ(c.prior, 0.25f);
}

TEST(Search, TreeReuseKeepsTheSubtree) {
  SearchParams params;
  params.solver_empties = 0;
  UniformEvaluator eval;
  Tree tree(Position::Standard(8), 1 << 18);
  TreeSearch search(tree, eval, params, nullptr, 1);
  SearchLimits limits;
  limits.visits = 4000;
  const SearchResult r = RunSearch(search, eval, limits);
  const auto child = std::find_if(r.children.begin(), r.children.end(),
                                  [&](auto& c) { return c.move == r.move; });
  tree.Advance(r.move);
  EXPECT_EQ(tree.root().Visits(), child->visits);
  ExpectVisitsAddUp(tree, tree.root_index(), true);
  EXPECT_LE(tree.pool().used(), tree.pool().capacity());
  // Searching again from the kept subtree adds to it.
  const SearchResult again = RunSearch(search, eval, limits);
  std::uint32_t child_visits = 0;
  for (const auto& c : again.children) child_visits += c.visits;
  EXPECT_EQ(child_visits, child->visits - 1 + 4000);
  tree.Advance(again.move);
  tree.Advance(tree.root_position().LegalMoves() ? core::LowestSquare(tree.root_position().LegalMoves())
                                                 : core::kPass);
  EXPECT_TRUE(tree.root_position().Valid());
}

TEST(Search, StopsOnTimeStopFlagAndFullPool) {
  SearchParams params;
  params.solver_empties = 0;
  UniformEvaluator eval;
  {
    Tree tree(Position::Standard(8), 1 << 22);
    TreeSearch search(tree, eval, params, nullptr, 1);
    SearchLimits limits;
    limits.seconds = 0.05;
    const SearchResult r = RunSearch(search, eval, limits);
    EXPECT_GT(r.playouts, 0u);
    EXPECT_LT(r.seconds, 2.0);
  }
  {
    Tree tree(Position::Standard(8), 1 << 22);
    TreeSearch search(tree, eval, params, nullptr, 1);
    std::atomic<bool> stop{false};
    SearchLimits limits;
    limits.stop = &stop;
    std::thread stopper([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(30));
      stop.store(true);
    });
    const SearchResult r = RunSearch(search, eval, limits);
    stopper.join();
    EXPECT_GT(r.playouts, 0u);
  }
  {
    Tree tree(Position::Standard(8), 5000);
    TreeSearch search(tree, eval, params, nullptr, 1);
    const SearchResult r = RunSearch(search, eval, SearchLimits{});
    EXPECT_LE(tree.pool().used(), 5000u);
    EXPECT_GT(r.playouts, 100u);
  }
}

TEST(Search, PlayoutCapRandomisation) {
  SearchParams params;
  params.full_search_probability = 0.25f;
  UniformEvaluator eval;
  Tree tree(Position::Standard(8), 1 << 16);
  TreeSearch search(tree, eval, params, nullptr, 1);
  int full = 0;
  for (int i = 0; i < 4000; ++i) full += search.DrawFullSearch();
  EXPECT_NEAR(full / 4000.0, 0.25, 0.03);
  SearchLimits limits;
  limits.visits = 50;
  const SearchResult fast = RunSearch(search, eval, limits, 0, /*full=*/false);
  EXPECT_FALSE(fast.full_search);
  EXPECT_TRUE(fast.policy_target.empty());
}

TEST(Search, SelfPlayMovesUseFullAndFastBudgets) {
  SearchParams params;
  params.full_search_probability = 0.5f;
  params.full_visits = 64;
  params.fast_visits = 8;
  params.dirichlet_noise = true;
  params.solver_empties = 0;
  UniformEvaluator eval;
  Tree tree(Position::Standard(8), 1 << 16);
  TreeSearch search(tree, eval, params, nullptr, 3);
  int full = 0;
  for (int ply = 0; ply < 20; ++ply) {
    const SearchResult r = RunSelfPlayMove(search, eval, ply);
    EXPECT_EQ(r.playouts, r.full_search ? 64u : 8u);
    EXPECT_EQ(r.policy_target.empty(), !r.full_search);
    full += r.full_search;
    tree.Advance(r.move);
    if (tree.root_position().IsGameOver()) break;
  }
  EXPECT_GT(full, 2);
  EXPECT_LT(full, 18);
}

TEST(Search, ResultCacheServesTranspositions) {
  SearchParams params;
  params.solver_empties = 0;
  UniformEvaluator eval;
  EvalCache cache(1 << 16, /*canonical=*/true);
  Tree tree(Position::Standard(8), 1 << 18);
  TreeSearch search(tree, eval, params, &cache, 1);
  SearchLimits limits;
  limits.visits = 20000;
  const SearchResult r = RunSearch(search, eval, limits);
  EXPECT_EQ(r.playouts, 20000u);
  // The 8x8 start is symmetric and move orders transpose: many leaves are known.
  EXPECT_GT(cache.hits(), 1000u);
  ExpectVisitsAddUp(tree, tree.root_index(), true);
}

TEST(Search, TemperatureSchedule) {
  SearchParams params;
  params.temperature_start = 1.0f;
  params.temperature_end = 0.1f;
  params.temperature_halflife = 10;
  EXPECT_FLOAT_EQ(params.Temperature(0), 1.0f);
  EXPECT_NEAR(params.Temperature(10), 0.55f, 1e-5);
  EXPECT_NEAR(params.Temperature(1000), 0.1f, 1e-5);
}

TEST(Search, PassIsAMoveInTheTree) {
  // White must pass here; the search returns the pass.
  const Position pos = *core::ParseBoardString(
      "XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXO-XXXXXX-- O");
  SearchParams params;
  params.solver_empties = 0;
  const SearchResult r = Search(pos, params, 100);
  EXPECT_EQ(r.move, core::kPass);
  EXPECT_EQ(r.policy_target[64], 1.0f);
}

}  // namespace
}  // namespace othello::mcts
