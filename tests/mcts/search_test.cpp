#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <thread>

#include "core/hash.h"
#include "core/notation.h"
#include "core/rng.h"
#include "core/solver.h"
#include "mcts/eval_cache.h"
#include "mcts/search.h"
#include "tests/mcts/hashed_evaluator.h"

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
  TreeSearch search(tree, eval, params, seed);
  SearchLimits limits;
  limits.playouts = visits;
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
  TreeSearch search(tree, eval, params, 1);
  SearchLimits limits;
  limits.playouts = 3000;
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

// The principal variation begins with the move chosen, also a move sampled at a
// temperature (hints and analyses show it as the best line of that move).
TEST(Search, ThePrincipalVariationStartsWithTheMoveChosen) {
  UniformEvaluator eval;
  SearchParams params;
  params.temperature_start = params.temperature_end = 1.0f;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    Tree tree(Position::Standard(8), 1 << 16);
    TreeSearch search(tree, eval, params, seed);
    SearchLimits limits;
    limits.playouts = 40;
    const SearchResult r = RunSearch(search, eval, limits);
    ASSERT_FALSE(r.pv.empty());
    EXPECT_EQ(r.pv.front(), r.move) << "seed " << seed;
  }
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

// A signature of a whole tree and its result (Stockfish's bench signature in spirit):
// every node's move, counts, value sums, prior and proof, and the result's numbers.
std::uint64_t Signature(const Tree& tree, const SearchResult& r) {
  std::uint64_t h = 0;
  auto mix = [&](std::uint64_t x) { h = core::Mix64(h ^ x) + 0x9e3779b97f4a7c15ULL; };
  auto bits = [](float f) {
    std::uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return std::uint64_t{u};
  };
  std::vector<std::uint32_t> queue{tree.root_index()};
  for (std::size_t q = 0; q < queue.size(); ++q) {
    const Node& node = tree.node(queue[q]);
    float win, loss;
    node.MeanWinLoss(&win, &loss);
    mix(static_cast<std::uint64_t>(node.move + 1));
    mix(node.Visits());
    mix(node.InFlight());
    mix(static_cast<std::uint64_t>(node.ValueSum()));
    mix(bits(win) << 32 | bits(loss));
    mix(bits(node.prior));
    mix(static_cast<std::uint64_t>(node.proven.load()));
    mix(node.exact.load() ? 1000 + node.exact_score.load() : 0);
    if (node.state.load() != NodeState::kExpanded) continue;
    mix(node.num_children);
    for (int i = 0; i < node.num_children; ++i) queue.push_back(node.first_child + i);
  }
  mix(static_cast<std::uint64_t>(r.move + 1));
  mix(bits(r.win) << 32 | bits(r.loss));
  mix(bits(r.draw) << 32 | bits(r.q));
  mix(r.playouts);
  for (const auto& c : r.children) mix(bits(c.q) << 32 | c.visits);
  for (float p : r.policy_target) mix(bits(p));
  for (core::Square sq : r.pv) mix(static_cast<std::uint64_t>(sq + 1));
  mix(r.proven * 2 + r.exact);
  mix(static_cast<std::uint64_t>(r.exact_score + 1000));
  return h;
}

// The position after `plies` moves that each take the lowest legal square.
Position LowestSquareLine(int plies) {
  Position pos = Position::Standard(8);
  for (int i = 0; i < plies && !pos.IsGameOver(); ++i) {
    const core::Bitboard legal = pos.LegalMoves();
    pos = pos.Play(legal ? core::LowestSquare(legal) : core::kPass);
  }
  return pos;
}

// One thread computes exactly the same tree as the search did when these numbers were
// recorded: a faster search must not change what it computes. A deliberate change of
// the search's results updates them (a mismatch prints the new ones).
TEST(Search, OneThreadSignatureIsUnchanged) {
  SearchParams params;
  params.c_puct = 0.7f;
  params.fpu_reduction = 0.2f;
  params.root_fpu_reduction = 0.0f;
  params.leaves_per_batch = 16;
  std::vector<std::uint64_t> got;
  {  // bench search's setting: the 8x8 start, uniform evaluator, no solver
    SearchParams p = params;
    p.solver_empties = 0;
    UniformEvaluator eval;
    Tree tree(Position::Standard(8), 1 << 20);
    TreeSearch search(tree, eval, p, 1);
    SearchLimits limits;
    limits.playouts = 30000;
    const SearchResult r = RunSearch(search, eval, limits);
    got.push_back(Signature(tree, r));
  }
  {  // rollout values, the solver, root noise, forced playouts, temperature, tree reuse
    SearchParams p = params;
    p.c_puct = 1.5f;
    p.solver_empties = 9;
    p.dirichlet_noise = true;
    p.forced_playouts = true;
    p.temperature_start = p.temperature_end = 1.0f;
    p.leaves_per_batch = 8;
    RolloutEvaluator eval(/*rollouts=*/1, false, /*seed=*/3);
    Tree tree(LowestSquareLine(44), 1 << 20);
    TreeSearch search(tree, eval, p, 9);
    SearchLimits limits;
    limits.playouts = 3000;
    for (int ply = 0; ply < 3 && !tree.root_position().IsGameOver(); ++ply) {
      const SearchResult r = RunSearch(search, eval, limits, ply);
      got.push_back(Signature(tree, r));
      tree.Advance(r.move);
    }
  }
  {  // the midgame with rollouts and Gumbel root selection
    SearchParams p = params;
    p.gumbel = true;
    p.solver_empties = 0;
    RolloutEvaluator eval(/*rollouts=*/1, false, /*seed=*/5);
    Tree tree(LowestSquareLine(20), 1 << 18);
    TreeSearch search(tree, eval, p, 4);
    SearchLimits limits;
    limits.playouts = 64;
    const SearchResult r = RunSearch(search, eval, limits);
    got.push_back(Signature(tree, r));
  }
  // (The temperature block's two later values changed when the principal variation
  // began to start with the move chosen, a sampled one here; trees and moves did not.)
  const std::vector<std::uint64_t> recorded = {
      0x7804f7e659fd7f15ULL, 0xac91bb9f2c1613e9ULL, 0x79ae3d4166bed9d9ULL,
      0x354bf43be776f77aULL, 0xddd3a3b01f2fa2a6ULL};
  if (got != recorded) {
    for (std::uint64_t s : got) std::printf("0x%016llxULL,\n", static_cast<unsigned long long>(s));
  }
  EXPECT_EQ(got, recorded);
}

// A search driven by one thread updates its nodes without read-modify-writes
// (SetOneThread); the tree must be the same as with them.
TEST(Search, OneThreadUpdatesMatchSharedUpdates) {
  SearchParams params;
  params.solver_empties = 8;
  params.leaves_per_batch = 8;
  const Position pos = LowestSquareLine(40);
  std::uint64_t signature[2];
  for (bool one_thread : {true, false}) {
    RolloutEvaluator eval(/*rollouts=*/1, false, /*seed=*/7);
    Tree tree(pos, 1 << 18);
    TreeSearch search(tree, eval, params, 3);
    SearchLimits limits;
    limits.playouts = 2000;
    search.Begin(limits);
    if (one_thread) search.SetOneThread();
    EvalBatch batch;
    LeafBuffer leaves;
    while (!search.Done()) {
      batch.Clear();
      leaves.Clear();
      search.Gather(batch, leaves, params.leaves_per_batch);
      eval.Evaluate(batch);
      search.Apply(batch, 0, leaves);
    }
    const SearchResult r = search.Finish(0);
    EXPECT_EQ(r.playouts, 2000u);
    ExpectVisitsAddUp(tree, tree.root_index(), true);
    signature[one_thread] = Signature(tree, r);
  }
  EXPECT_EQ(signature[0], signature[1]);
}

TEST(Search, SeveralThreadsOnOneTree) {
  SearchParams params;
  params.threads = 4;
  params.leaves_per_batch = 4;
  params.solver_empties = 8;
  UniformEvaluator eval;
  Tree tree(FromTranscript("f5d6c3d3c4f4f6"), 1 << 20);
  TreeSearch search(tree, eval, params, 1);
  SearchLimits limits;
  limits.playouts = 20000;
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

// At `root`, a prior of 0.97 on `favourite` and the rest shared by the other moves;
// the position after `favourite` is lost for its side to move (won for the root's),
// after any other root move won (lost for the root's); everything else uniform and even.
// PUCT then gives the other moves one visit each: forced playouts must give them more.
class FavouriteEvaluator : public Evaluator {
 public:
  FavouriteEvaluator(const Position& root, Square favourite) : root_(root), favourite_(favourite) {}
  void Submit(EvalBatch& batch) override {
    batch.outputs().resize(batch.size());
    for (int i = 0; i < batch.size(); ++i) {
      const Position& pos = batch.positions()[i];
      EvalOutput& out = batch.outputs()[i];
      SetUniformPolicy(pos, out);
      out.win = out.loss = 0;
      out.draw = 1;
      if (pos == root_) {
        const int others = core::PopCount(pos.LegalMoves()) - 1;
        core::ForEachSquare(pos.LegalMoves(), [&](Square sq) {
          out.policy[sq] = sq == favourite_ ? 0.97f : 0.03f / others;
        });
      } else if (pos == root_.Play(favourite_)) {
        out.draw = 0, out.loss = 1;
      } else if (IsChildOfRoot(pos)) {
        out.draw = 0, out.win = 1;
      }
    }
    batch.MarkDone();
  }
  void Wait(EvalBatch& batch) override { batch.WaitDone(); }

 private:
  bool IsChildOfRoot(const Position& pos) const {
    bool found = false;
    core::ForEachSquare(root_.LegalMoves(), [&](Square sq) { found |= root_.Play(sq) == pos; });
    return found;
  }
  Position root_;
  Square favourite_;
};

TEST(Search, ForcedPlayoutsAndPolicyTargetPruning) {
  const Position root = FromTranscript("f5d6c3d3c4");
  const Square favourite = core::LowestSquare(root.LegalMoves());
  FavouriteEvaluator eval(root, favourite);
  const std::uint64_t visits = 3000;
  const auto search = [&](bool forced) {
    SearchParams params;
    params.forced_playouts = forced;
    params.solver_empties = 0;
    return Search(root, params, visits, &eval);
  };
  const auto forced_minimum = [&](const SearchResult::Child& c) {  // sqrt(k P N), k = 2
    return static_cast<std::uint32_t>(std::sqrt(2.0 * c.prior * visits));
  };
  // Without forced playouts the unpromising moves stay below the forced minimum ...
  const SearchResult plain = search(false);
  int below = 0;
  for (const auto& c : plain.children) below += c.move != favourite && c.visits < forced_minimum(c);
  ASSERT_GT(below, 0) << "the setup does not exercise forced playouts";
  // ... with them every move gets it (less the playout in flight when the limit came).
  const SearchResult forced = search(true);
  for (const auto& c : forced.children) {
    EXPECT_GE(c.visits + 1, forced_minimum(c)) << core::SquareName(c.move, 8);
  }
  // Policy-target pruning takes the forced playouts out of the target again: the
  // unpromising moves get (almost) nothing, far less than their share of the visits.
  for (const auto& c : forced.children) {
    if (c.move == favourite) continue;
    EXPECT_LT(forced.policy_target[c.move], 0.5f * c.visits / visits) << core::SquareName(c.move, 8);
  }
  float sum = 0;
  for (float p : forced.policy_target) sum += p;
  EXPECT_NEAR(sum, 1.0f, 1e-5);
}

// Self-play samples its move at a temperature from the visits: with forced playouts those
// are the pruned visits, so a move that got only its forced playouts is never played.
// (Raw counts would: each losing move gets its forced playout in every search, and at
// temperature 1 one of them is drawn in about one search in twelve.)
TEST(Search, ForcedPlayoutsAreNotPlayed) {
  const Position root = FromTranscript("f5d6c3d3c4");
  const Square favourite = core::LowestSquare(root.LegalMoves());
  FavouriteEvaluator eval(root, favourite);
  SearchParams params;
  params.forced_playouts = true;
  params.solver_empties = 0;
  params.temperature_start = params.temperature_end = 1.0f;
  const std::uint32_t others = core::PopCount(root.LegalMoves()) - 1, searches = 40;
  std::uint32_t others_forced = 0;
  for (std::uint64_t seed = 1; seed <= searches; ++seed) {
    const SearchResult r = Search(root, params, 60, &eval, seed);
    for (const auto& c : r.children) others_forced += c.move != favourite ? c.visits : 0;
    EXPECT_GT(r.policy_target[r.move], 0.0f) << "seed " << seed << ": "
                                             << core::SquareName(r.move, 8);
  }
  ASSERT_GE(others_forced, searches * others) << "the setup does not exercise forced playouts";
}

TEST(Search, DirichletNoiseChangesTheRootPriorsOnlyDuringAFullSearch) {
  SearchParams params;
  params.dirichlet_noise = true;
  params.solver_empties = 0;
  UniformEvaluator eval;
  const auto noisy_priors = [&](std::uint64_t seed, bool full) {
    Tree tree(Position::Standard(8), 1 << 16);
    TreeSearch search(tree, eval, params, seed);
    SearchLimits limits;
    limits.playouts = 50;
    search.Begin(limits, full);
    std::vector<float> priors;
    const Node& root = tree.root();
    for (int i = 0; i < root.num_children; ++i) priors.push_back(tree.node(root.first_child + i).prior);
    const SearchResult r = search.Finish(0);
    // The result reports, and the tree keeps, the network's priors.
    for (int i = 0; i < root.num_children; ++i) {
      EXPECT_FLOAT_EQ(tree.node(root.first_child + i).prior, 0.25f);
      EXPECT_FLOAT_EQ(r.children[i].prior, 0.25f);
    }
    return priors;
  };
  const std::vector<float> a = noisy_priors(1, true), b = noisy_priors(2, true);
  ASSERT_EQ(a.size(), 4u);
  float sum = 0;
  for (float p : a) sum += p;
  EXPECT_NEAR(sum, 1.0f, 1e-5);  // a mix of two distributions
  EXPECT_NE(a, std::vector<float>(4, 0.25f));  // noise was applied ...
  EXPECT_NE(a, b);                             // ... drawn from the search's seed
  EXPECT_EQ(noisy_priors(1, false), std::vector<float>(4, 0.25f));  // fast searches: none
}

TEST(Search, RootPolicyTemperatureFlattensAFullSearchsRootPriors) {
  SearchParams params;
  params.solver_empties = 0;
  params.root_policy_temperature = 2.0f;
  HashedEvaluator eval;
  const Position start = FromTranscript("f5d6");
  EvalBatch batch;
  batch.Add(start);
  eval.Evaluate(batch);
  // The network's priors over the legal moves, renormalised as the expansion does.
  std::vector<double> net;
  double net_sum = 0;
  for (core::Bitboard m = start.LegalMoves(); m; m &= m - 1) {
    net.push_back(batch.output(0).policy[core::LowestSquare(m)]);
    net_sum += net.back();
  }
  const auto priors_during = [&](bool full, std::vector<float>* reported) {
    Tree tree(start, 1 << 16);
    TreeSearch search(tree, eval, params, 1);
    SearchLimits limits;
    limits.playouts = 20;
    search.Begin(limits, full);
    std::vector<float> priors;
    const Node& root = tree.root();
    for (int i = 0; i < root.num_children; ++i) priors.push_back(tree.node(root.first_child + i).prior);
    const SearchResult r = search.Finish(0);
    for (int i = 0; i < root.num_children; ++i) {
      reported->push_back(r.children[i].prior);
      EXPECT_FLOAT_EQ(tree.node(root.first_child + i).prior, r.children[i].prior);  // restored
    }
    return priors;
  };
  std::vector<float> reported_full, reported_fast;
  const std::vector<float> full = priors_during(true, &reported_full);
  const std::vector<float> fast = priors_during(false, &reported_fast);
  ASSERT_EQ(full.size(), net.size());
  double tempered_sum = 0;
  for (double p : net) tempered_sum += std::sqrt(p / net_sum);
  for (std::size_t i = 0; i < net.size(); ++i) {
    EXPECT_NEAR(full[i], std::sqrt(net[i] / net_sum) / tempered_sum, 1e-5) << i;  // p^(1/2)
    EXPECT_NEAR(fast[i], net[i] / net_sum, 1e-5) << i;  // a fast search: the network's
    EXPECT_NEAR(reported_full[i], net[i] / net_sum, 1e-5) << i;  // reported: the network's
  }
}

// The explored nodes of a search, found by an independent walk: every non-root node with
// at least `min` visits outside the skipped root move's subtree, not a forced pass,
// expanded with visited children.
void CollectExplored(const Tree& tree, std::uint32_t index, const Position& pos, std::uint32_t min,
                     bool root, core::Square skip, std::vector<Position>* out) {
  const Node& node = tree.node(index);
  if (node.state.load() != NodeState::kExpanded) return;
  std::uint32_t children = 0;
  for (int i = 0; i < node.num_children; ++i) {
    const Node& c = tree.node(node.first_child + i);
    children += c.Visits();
    if ((root && c.move == skip) || c.Visits() < min) continue;
    CollectExplored(tree, node.first_child + i, pos.Play(c.move), min, false, skip, out);
  }
  if (!root && children > 0 && !pos.MustPass() && !pos.IsGameOver()) out->push_back(pos);
}

TEST(Search, ExploredNodesAreTheHeavyNodesOffThePlayedLine) {
  SearchParams params;
  params.solver_empties = 0;
  HashedEvaluator eval;
  const Position start = FromTranscript("f5d6c3d3c4");
  Tree tree(start, 1 << 18);
  TreeSearch search(tree, eval, params, 1);
  SearchLimits limits;
  limits.playouts = 600;
  const SearchResult r = RunSearch(search, eval, limits);
  constexpr std::uint32_t kMin = 8;
  const std::vector<ExploredNode> explored = search.ExploredNodes(kMin, r.move);
  std::vector<Position> expected;
  CollectExplored(tree, tree.root_index(), start, kMin, true, r.move, &expected);
  ASSERT_GE(expected.size(), 3u);  // the walk below checks something
  ASSERT_EQ(explored.size(), expected.size());
  const Position played = start.Play(r.move);
  for (const ExploredNode& e : explored) {
    EXPECT_NE(std::find(expected.begin(), expected.end(), e.position), expected.end());
    EXPECT_FALSE(e.position == played);
    EXPECT_GE(e.visits, kMin);
    float sum = 0;
    for (float p : e.policy) sum += p;
    EXPECT_NEAR(sum, 1.0f, 1e-5);
    EXPECT_NEAR(e.win + e.draw + e.loss, 1.0f, 1e-5);
  }
  // A root child's sample: its position, its children's visit shares, its value turned to
  // its own side to move.
  const Node& root = tree.root();
  int checked = 0;
  for (int i = 0; i < root.num_children; ++i) {
    const Node& c = tree.node(root.first_child + i);
    if (c.move == r.move || c.Visits() < kMin) continue;
    const Position pos = start.Play(c.move);
    const auto it = std::find_if(explored.begin(), explored.end(),
                                 [&](const ExploredNode& e) { return e.position == pos; });
    ASSERT_NE(it, explored.end());
    EXPECT_EQ(it->visits, c.Visits());
    float mover_win = 0, mover_loss = 0;
    c.MeanWinLoss(&mover_win, &mover_loss);
    EXPECT_FLOAT_EQ(it->win, mover_loss);
    EXPECT_FLOAT_EQ(it->loss, mover_win);
    EXPECT_NEAR(it->score, -c.ScoreMean(0) * 64, 1e-3);
    std::uint32_t total = 0;
    for (int k = 0; k < c.num_children; ++k) total += tree.node(c.first_child + k).Visits();
    for (int k = 0; k < c.num_children; ++k) {
      const Node& g = tree.node(c.first_child + k);
      EXPECT_FLOAT_EQ(it->policy[PolicyIndex(g.move, 8)], static_cast<float>(g.Visits()) / total);
    }
    ++checked;
  }
  EXPECT_GE(checked, 1);
  // Nothing at a threshold no node reaches.
  EXPECT_TRUE(search.ExploredNodes(100000, r.move).empty());
}

TEST(Search, TreeReuseKeepsTheSubtree) {
  SearchParams params;
  params.solver_empties = 0;
  UniformEvaluator eval;
  Tree tree(Position::Standard(8), 1 << 18);
  TreeSearch search(tree, eval, params, 1);
  SearchLimits limits;
  limits.playouts = 4000;
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
    TreeSearch search(tree, eval, params, 1);
    SearchLimits limits;
    limits.seconds = 0.05;
    const SearchResult r = RunSearch(search, eval, limits);
    EXPECT_GT(r.playouts, 0u);  // and it returned: with no other limit, the clock stopped it
  }
  {
    Tree tree(Position::Standard(8), 1 << 22);
    TreeSearch search(tree, eval, params, 1);
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
    TreeSearch search(tree, eval, params, 1);
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
  TreeSearch search(tree, eval, params, 1);
  int full = 0;
  for (int i = 0; i < 4000; ++i) full += search.DrawFullSearch();
  EXPECT_NEAR(full / 4000.0, 0.25, 0.03);
  SearchLimits limits;
  limits.playouts = 50;
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
  TreeSearch search(tree, eval, params, 3);
  int full = 0;
  for (int ply = 0; ply < 20; ++ply) {
    search.BeginSelfPlayMove();
    RunSearchesBatched({&search}, eval, params.leaves_per_batch);
    const SearchResult r = search.Finish(ply);
    EXPECT_EQ(r.playouts, r.full_search ? 64u : 8u);
    EXPECT_EQ(r.policy_target.empty(), !r.full_search);
    full += r.full_search;
    tree.Advance(r.move);
    if (tree.root_position().IsGameOver()) break;
  }
  EXPECT_GT(full, 2);
  EXPECT_LT(full, 18);
}

void ExpectSameResult(const SearchResult& a, const SearchResult& b) {
  EXPECT_EQ(a.move, b.move);
  EXPECT_EQ(a.full_search, b.full_search);
  EXPECT_EQ(a.playouts, b.playouts);
  EXPECT_EQ(a.policy_target, b.policy_target);
  EXPECT_EQ(a.win, b.win);
  EXPECT_EQ(a.loss, b.loss);
  EXPECT_EQ(a.score, b.score);
  EXPECT_EQ(a.proven, b.proven);
  EXPECT_EQ(a.pv, b.pv);
  ASSERT_EQ(a.children.size(), b.children.size());
  for (std::size_t i = 0; i < a.children.size(); ++i) {
    EXPECT_EQ(a.children[i].move, b.children[i].move);
    EXPECT_EQ(a.children[i].visits, b.children[i].visits);
    EXPECT_EQ(a.children[i].prior, b.children[i].prior);
    EXPECT_EQ(a.children[i].q, b.children[i].q);
  }
}

// A self-play move's root is evaluated in the first round's batch, alone, not by a call of
// its own as the search begins; the search is then the one Begin() runs (the same
// generator draws, the same tree), with tree reuse, noise, Gumbel or forced playouts, the
// temperature and solved roots near the end.
TEST(Search, SelfPlayRootsAreEvaluatedInTheFirstRoundsBatch) {
  for (const bool gumbel : {false, true}) {
    SCOPED_TRACE(gumbel ? "gumbel" : "forced playouts");
    SearchParams params;
    params.full_search_probability = 0.5f;
    params.full_visits = 48;
    params.fast_visits = 8;
    params.dirichlet_noise = true;
    params.gumbel = gumbel;
    params.forced_playouts = !gumbel;
    params.temperature_start = 1.0f;
    params.solver_empties = 8;
    HashedEvaluator now_eval, eval;
    Tree now_tree(Position::Standard(8), 1 << 16), tree(Position::Standard(8), 1 << 16);
    TreeSearch now(now_tree, now_eval, params, 5), search(tree, eval, params, 5);
    SearchRoundBuffers buffers;
    int root_rounds = 0, solved = 0;
    for (int ply = 0; !tree.root_position().IsGameOver(); ++ply) {
      const bool full = now.DrawFullSearch();
      SearchLimits limits;
      limits.playouts = full ? params.full_visits : params.fast_visits;
      now.Begin(limits, full);
      RunSearchesBatched({&now}, now_eval, 4);
      const SearchResult want = now.Finish(ply);

      const std::uint64_t calls = eval.calls();
      search.BeginSelfPlayMove();
      EXPECT_EQ(eval.calls(), calls);
      RunSearchRound({&search}, eval, 4, buffers);
      if (buffers.batch.size() == 1 && buffers.batch.positions()[0] == tree.root_position()) {
        ++root_rounds;
      } else {  // solved now, or proven by the last search
        EXPECT_NE(tree.root().proven.load(), Proven::kUnknown);
        ++solved;
      }
      RunSearchesBatched({&search}, eval, 4);
      const SearchResult got = search.Finish(ply);
      ExpectSameResult(got, want);
      if (::testing::Test::HasFailure()) return;
      now_tree.Advance(want.move);
      tree.Advance(got.move);
    }
    EXPECT_GT(root_rounds, 40);
    EXPECT_GT(solved, 0);
    EXPECT_EQ(eval.positions(), now_eval.positions());
  }
}

TEST(Search, ResultCacheServesTranspositions) {
  SearchParams params;
  params.solver_empties = 0;
  UniformEvaluator uniform;
  CachingEvaluator eval(uniform, 1 << 16, /*canonical=*/true);
  Tree tree(Position::Standard(8), 1 << 18);
  TreeSearch search(tree, eval, params, 1);
  SearchLimits limits;
  limits.playouts = 20000;
  const SearchResult r = RunSearch(search, eval, limits);
  EXPECT_EQ(r.playouts, 20000u);
  // The 8x8 start is symmetric and move orders transpose: many leaves are known.
  EXPECT_GT(eval.cache().hits(), 1000u);
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

TEST(Node, ValueVarianceOfTheBackedUpValues) {
  Node node;
  EXPECT_EQ(node.ValueVariance(), 0.0f);
  node.FinishPlayout(kValueScale, 0, /*shared=*/false, /*begun=*/false);  // +1
  EXPECT_EQ(node.ValueVariance(), 0.0f);  // one visit: no variance yet
  node.FinishPlayout(0, kValueScale, /*shared=*/true, /*begun=*/false);   // -1
  EXPECT_FLOAT_EQ(node.Q(0), 0.0f);
  EXPECT_FLOAT_EQ(node.ValueVariance(), 1.0f);
  Node even;
  for (int i = 0; i < 4; ++i) even.FinishPlayout(3 * kValueScale / 4, kValueScale / 4, false, false);
  EXPECT_FLOAT_EQ(even.Q(0), 0.5f);
  EXPECT_NEAR(even.ValueVariance(), 0.0f, 1e-6);
  Node copy;
  copy.CopyFrom(node);
  EXPECT_FLOAT_EQ(copy.ValueVariance(), 1.0f);
  copy.Reset();
  EXPECT_EQ(copy.SquareSum(), 0);
}

TEST(Search, LowerConfidenceBoundChoice) {
  // A: most visits, a lower mean; B: a higher mean, enough visits, little variance.
  const ChildValue a{100, 0.1f, 0.04f, false};
  const ChildValue b{20, 0.5f, 0.01f, false};
  EXPECT_EQ(LcbChoice({a, b}, 0, 2.0f, 0.1f), 1);
  // Too few visits (under 10% of A's): A.
  EXPECT_EQ(LcbChoice({a, ChildValue{9, 0.5f, 0.01f, false}}, 0, 2.0f, 0.1f), 0);
  // So uncertain that its bound falls below A's (0.5 - 2 * sqrt(1 / 20) < 0.1 - 2 * 0.02).
  EXPECT_EQ(LcbChoice({a, ChildValue{20, 0.5f, 1.0f, false}}, 0, 2.0f, 0.1f), 0);
  // A proven loss is never chosen by its bound; nor kept when it is the most visited.
  EXPECT_EQ(LcbChoice({a, ChildValue{20, 0.5f, 0.01f, true}}, 0, 2.0f, 0.1f), 0);
  EXPECT_EQ(LcbChoice({ChildValue{100, 0.1f, 0.04f, true}, b}, 0, 2.0f, 0.1f), 1);
  // Ties keep the most visited.
  EXPECT_EQ(LcbChoice({a, a}, 0, 2.0f, 0.1f), 0);

  // In a search: without lcb_stdevs the most visited move; with it, a move with at least
  // the share of visits whose bound is not below the most visited one's.
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    SearchParams params;
    params.solver_empties = 0;
    RolloutEvaluator eval(/*rollouts=*/1, false, seed);
    const SearchResult plain = Search(LowestSquareLine(20), params, 400, &eval, seed);
    std::uint32_t most = 0;
    for (const auto& c : plain.children) most = std::max(most, c.visits);
    const auto visits_of = [](const SearchResult& r, core::Square move) {
      for (const auto& c : r.children) {
        if (c.move == move) return c.visits;
      }
      return 0u;
    };
    EXPECT_EQ(visits_of(plain, plain.move), most) << "seed " << seed;
    params.lcb_stdevs = 2.0f;
    RolloutEvaluator eval2(/*rollouts=*/1, false, seed);
    const SearchResult lcb = Search(LowestSquareLine(20), params, 400, &eval2, seed);
    std::uint32_t lcb_most = 0;
    for (const auto& c : lcb.children) lcb_most = std::max(lcb_most, c.visits);
    EXPECT_GE(visits_of(lcb, lcb.move), std::max(2.0f, 0.1f * lcb_most)) << "seed " << seed;
  }
}

TEST(Search, ExplorationScaledByTheSpreadOfTheValues) {
  SearchParams params;
  EXPECT_EQ(ExplorationStdevFactor(params, 100, 0, 100), 1.0f);  // off by default
  params.cpuct_stdev_scale = 0.85f;
  params.cpuct_stdev_prior = 0.4f;
  params.cpuct_stdev_prior_weight = 2.0f;
  EXPECT_FLOAT_EQ(ExplorationStdevFactor(params, 0, 0, 0), 1.0f);  // no values: the prior
  EXPECT_FLOAT_EQ(ExplorationStdevFactor(params, 1, 1, 1), 1.0f);
  // 100 values, half +1 and half -1: variance 1.
  const double wide = std::sqrt((1.0 * 100 + 0.16 * 2) / 101);
  EXPECT_NEAR(ExplorationStdevFactor(params, 100, 0, 100), 1 + 0.85 * (wide / 0.4 - 1), 1e-5);
  // 100 values of 0.5: no spread, so less exploration than the prior gives.
  const double narrow = std::sqrt(0.16 * 2 / 101);
  EXPECT_NEAR(ExplorationStdevFactor(params, 100, 50, 25), 1 + 0.85 * (narrow / 0.4 - 1), 1e-5);
  EXPECT_LT(ExplorationStdevFactor(params, 100, 50, 25), 1.0f);
  EXPECT_GT(ExplorationStdevFactor(params, 100, 0, 100), 2.0f);

  // A search with it plays a legal move and its visits still add up.
  params.solver_empties = 0;
  RolloutEvaluator eval(/*rollouts=*/1, false, 3);
  Tree tree(LowestSquareLine(20), 1 << 18);
  TreeSearch search(tree, eval, params, 1);
  SearchLimits limits;
  limits.playouts = 500;
  const SearchResult r = RunSearch(search, eval, limits);
  EXPECT_TRUE(LowestSquareLine(20).IsLegal(r.move));
  ExpectVisitsAddUp(tree, tree.root_index(), true);
}

TEST(Node, ScoreMeanOfTheBackedUpMargins) {
  Node node;
  EXPECT_EQ(node.ScoreMean(-2.0f), -2.0f);  // unvisited: the fallback
  node.FinishPlayout(kValueScale, 0, kValueScale / 2, /*shared=*/false, /*begun=*/false);
  node.FinishPlayout(0, 0, -kValueScale / 4, /*shared=*/true, /*begun=*/false);
  EXPECT_FLOAT_EQ(node.ScoreMean(0), 0.125f);
  Node copy;
  copy.CopyFrom(node);
  EXPECT_EQ(copy.ScoreSum(), kValueScale / 4);
  copy.Reset();
  EXPECT_EQ(copy.ScoreSum(), 0);
}

// The side to move's discs less the opponent's.
int DiscMargin(const Position& pos) {
  return core::PopCount(pos.player()) - core::PopCount(pos.opponent());
}

// Every position a sure draw, with the disc margin as it stands for the disc-difference
// head: the moves differ by their margins alone.
class DiscMarginEvaluator : public Evaluator {
 public:
  void Submit(EvalBatch& batch) override {
    batch.outputs().resize(batch.size());
    for (int i = 0; i < batch.size(); ++i) {
      EvalOutput& out = batch.outputs()[i];
      SetUniformPolicy(batch.positions()[i], out);
      out.win = out.loss = 0;
      out.draw = 1;
      out.has_aux = true;
      out.disc_difference = static_cast<float>(DiscMargin(batch.positions()[i]));
    }
    batch.MarkDone();
  }
  void Wait(EvalBatch& batch) override { batch.WaitDone(); }
};

TEST(Search, ScoreUtilityBacksUpMarginsAndPrefersTheLargerOne) {
  const Position pos = FromTranscript("f5d6c3d3c4f4c5b3c2e6c6b4");
  const int moves = core::PopCount(pos.LegalMoves());
  ASSERT_GT(moves, 4);
  DiscMarginEvaluator eval;
  SearchParams params;
  params.solver_empties = 0;
  {
    // Forced playouts give each move one visit: its leaf's margin, for the root's side
    // to move; the root's expected margin is the mean of them and its own evaluation.
    SearchParams p = params;
    p.forced_playouts = true;
    p.score_utility = 0.5f;
    const SearchResult r = Search(pos, p, moves, &eval);
    ASSERT_EQ(static_cast<int>(r.children.size()), moves);
    double sum = DiscMargin(pos);
    for (const auto& c : r.children) {
      ASSERT_EQ(c.visits, 1u);
      EXPECT_NEAR(c.score, -DiscMargin(pos.Play(c.move)), 1e-3) << core::SquareName(c.move, 8);
      sum += c.score;
    }
    EXPECT_NEAR(r.score, sum / (moves + 1), 1e-3);
    EXPECT_EQ(r.q, 0.0f);
    EXPECT_TRUE(r.has_score);
    EXPECT_FALSE(Search(pos, p, moves).has_score);  // the uniform evaluator gives no margin
  }
  // Every value is a draw: without the score utility the visits spread evenly over the
  // moves; with it the move played is the one whose expected margin is the largest, and
  // it draws several times the visits of any move without it.
  const SearchResult plain = Search(pos, params, 2000, &eval);
  params.score_utility = 1.0f;
  const SearchResult scored = Search(pos, params, 2000, &eval);
  const auto child = [](const SearchResult& r, core::Square move) {
    for (const auto& c : r.children) {
      if (c.move == move) return c;
    }
    ADD_FAILURE() << "no child " << move;
    return r.children.front();
  };
  float best_score = -100;
  for (const auto& c : scored.children) {
    if (c.visits >= 20) best_score = std::max(best_score, c.score);
  }
  EXPECT_EQ(child(scored, scored.move).score, best_score);
  std::uint32_t plain_most = 0, plain_least = ~0u;
  for (const auto& c : plain.children) {
    plain_most = std::max(plain_most, c.visits);
    plain_least = std::min(plain_least, c.visits);
  }
  EXPECT_LE(plain_most, 2 * plain_least);  // 14 moves, 141 to 152 visits when written
  EXPECT_GT(child(scored, scored.move).visits, 3 * plain_most);  // 997 when written
}

TEST(Search, ScoreUtilityTakesTheSolversExactMargin) {
  // Black to move, one empty square: h8 flips g8 and ends the game 56 to 8.
  const Position pos = *core::ParseBoardString(
      "OOOOOOOOXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXO- X");
  SearchParams params;
  params.solver_empties = 0;  // the finished game is still proven exactly
  params.score_utility = 0.5f;
  const SearchResult r = Search(pos, params, 10);
  ASSERT_EQ(r.children.size(), 1u);
  EXPECT_NEAR(r.children[0].score, 48.0f, 1e-3);
  EXPECT_TRUE(r.exact);
  EXPECT_EQ(r.exact_score, 48);
  EXPECT_EQ(r.score, 48.0f);
  EXPECT_TRUE(r.has_score);  // exact, though the uniform evaluator gives no margins
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
