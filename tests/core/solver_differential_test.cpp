// Every optimised path of the exact solver against a plain search, on thousands of
// random positions of every size and scoring rule: the embedded layouts, the last-two
// and shallow code, stability and transposition cutoffs, the two-slot table kept
// between positions, win/draw/loss mode, and the parallel search.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "core/hash.h"
#include "core/notation.h"
#include "core/rng.h"
#include "core/rules.h"
#include "core/solver.h"

namespace othello::core {
namespace {

// Plain negamax alpha-beta over Position: no table, no ordering, no special cases.
int AlphaBeta(const Position& pos, const Rules& rules, int alpha, int beta) {
  if (pos.IsGameOver()) return Score(pos, rules).MarginFor(pos.side_to_move());
  const Bitboard moves = pos.LegalMoves();
  if (!moves) return -AlphaBeta(pos.Play(kPass), rules, -beta, -alpha);
  int best = -1000;
  for (Bitboard rest = moves; rest && best < beta; rest &= rest - 1) {
    const int v = -AlphaBeta(pos.Play(LowestSquare(rest)), rules, -beta, -std::max(alpha, best));
    best = std::max(best, v);
  }
  return best;
}
int PlainScore(const Position& pos, const Rules& rules) {
  return AlphaBeta(pos, rules, -1000, 1000);
}

// A position `plies` random moves into a game from the standard start (or an earlier
// end of the game).
Position RandomGamePosition(Rng& rng, int size, int empties) {
  Position pos = Position::Standard(size);
  while (!pos.IsGameOver() && pos.EmptyCount() > empties) pos = pos.Play(RandomLegalMove(pos, rng));
  return pos;
}

Rules RulesFor(int size, int variant) {
  Rules rules;
  rules.size = size;
  rules.anti = variant & 1;
  rules.empties_to_winner = !(variant & 2);
  return rules;
}

struct Case {
  int size;
  int max_empties;
  int count;
};

TEST(SolverDifferential, ThousandsOfRandomPositionsAgreeWithPlainAlphaBeta) {
  Rng rng(/*seed=*/18);
  Solver kept(/*table_megabytes=*/2);  // one table for every position: entries must not leak
  int checked = 0;
  for (const Case& c : {Case{4, 12, 600}, Case{6, 11, 800}, Case{8, 11, 1200}, Case{10, 9, 400}}) {
    for (int i = 0; i < c.count; ++i) {
      const Rules rules = RulesFor(c.size, i % 4);
      const int empties = static_cast<int>(rng.Below(static_cast<std::uint32_t>(c.max_empties + 1)));
      const Position pos = RandomGamePosition(rng, c.size, empties);
      const int expected = PlainScore(pos, rules);
      const SolveResult r = kept.Solve(pos, rules);
      ASSERT_TRUE(r.exact());
      ASSERT_EQ(r.score, expected) << FormatBoardString(pos) << " anti=" << rules.anti
                                   << " tournament=" << rules.empties_to_winner;
      const SolveResult wld = kept.SolveWld(pos, rules);
      ASSERT_EQ(wld.score, (expected > 0) - (expected < 0)) << FormatBoardString(pos);
      if (i % 8 == 0 && !pos.IsGameOver()) {  // the move reported achieves the score
        ASSERT_TRUE(pos.IsLegal(r.best_move)) << FormatBoardString(pos);
        EXPECT_EQ(-PlainScore(pos.Play(r.best_move), rules), expected) << FormatBoardString(pos);
      }
      ++checked;
    }
  }
  EXPECT_EQ(checked, 3000);
}

// 12 to 14 empties on 8x8: the table, enhanced transposition and stability cutoffs and
// move ordering all take part.
TEST(SolverDifferential, DeeperEightByEightPositionsAgreeWithPlainAlphaBeta) {
  Rng rng(/*seed=*/1812);
  Solver kept(/*table_megabytes=*/4);
  for (int i = 0; i < 48; ++i) {
    const Rules rules = RulesFor(8, i % 4);
    const Position pos = RandomGamePosition(rng, 8, 12 + i % 3);
    ASSERT_EQ(kept.Solve(pos, rules).score, PlainScore(pos, rules)) << FormatBoardString(pos);
  }
}

// The parallel search (young brothers wait with a shared lockless table) finds the
// sequential score on positions big enough to split, on every size.
TEST(SolverDifferential, ParallelSolvesMatchTheSequentialSolver) {
  Rng rng(/*seed=*/4);
  Solver sequential(/*table_megabytes=*/16);
  Solver parallel(/*table_megabytes=*/16);
  parallel.SetThreads(3);
  for (const Case& c : {Case{6, 20, 6}, Case{8, 18, 12}, Case{10, 16, 4}}) {
    for (int i = 0; i < c.count; ++i) {
      const Rules rules = RulesFor(c.size, i % 4);
      const Position pos = RandomGamePosition(rng, c.size, c.max_empties - i % 2);
      sequential.Clear();
      parallel.Clear();
      const SolveResult want = sequential.Solve(pos, rules);
      const SolveResult got = parallel.Solve(pos, rules);
      ASSERT_TRUE(got.exact());
      ASSERT_EQ(got.score, want.score) << FormatBoardString(pos);
      ASSERT_TRUE(pos.IsGameOver() || pos.IsLegal(got.best_move)) << FormatBoardString(pos);
      if (!pos.IsGameOver()) {
        EXPECT_EQ(-sequential.Solve(pos.Play(got.best_move), rules).score, want.score)
            << FormatBoardString(pos);
      }
      EXPECT_EQ(parallel.SolveWld(pos, rules).score, (want.score > 0) - (want.score < 0));
    }
  }
}

// A limit hit by any thread stops the whole parallel search, reported as not exact,
// and leaves only proven bounds in the table (none from a split point whose children
// were not all searched).
TEST(SolverDifferential, ParallelSolvesStopAtTheirLimits) {
  Rng rng(/*seed=*/5);
  Solver fresh(/*table_megabytes=*/16);
  for (int i = 0; i < 4; ++i) {
    const Position pos = RandomGamePosition(rng, 8, 18 + i % 2);
    fresh.Clear();
    const int want = fresh.Solve(pos, Rules{}).score;
    Solver parallel(/*table_megabytes=*/16);
    parallel.SetThreads(3);
    for (std::uint64_t limit : {20000, 60000, 150000, 400000}) {
      const SolveResult r = parallel.Solve(pos, Rules{}, SolveLimits{limit, 0, nullptr});
      if (r.exact()) break;  // solved within the limit
      EXPECT_EQ(r.status, SolveStatus::kNodeLimit);
      EXPECT_GE(r.nodes, limit);
    }
    EXPECT_EQ(parallel.Solve(pos, Rules{}).score, want) << FormatBoardString(pos);
  }
}

}  // namespace
}  // namespace othello::core
