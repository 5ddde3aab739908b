#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "core/hash.h"
#include "core/notation.h"
#include "core/rng.h"
#include "core/rules.h"
#include "core/solver.h"

namespace othello::core {
namespace {

struct FfoPosition {
  Position position;
  int best_score;
  std::vector<Square> best_moves;  // every listed move with the best score
};

// Reads tests/data/ffo40-59.obf: "board side; MOVE:+score; MOVE:score; ...".
std::vector<FfoPosition> ReadFfo() {
  std::ifstream in(std::string(OZ_TEST_DATA_DIR) + "/ffo40-59.obf");
  EXPECT_TRUE(in.good()) << "missing tests/data/ffo40-59.obf";
  std::vector<FfoPosition> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '%') continue;
    auto pos = ParseBoardString(line);
    EXPECT_TRUE(pos.ok()) << pos.error();
    FfoPosition ffo{*pos, -1000, {}};
    for (std::size_t semi = line.find(';'); semi != std::string::npos;
         semi = line.find(';', semi + 1)) {
      const std::size_t colon = line.find(':', semi);
      if (colon == std::string::npos) break;
      const int score = std::stoi(line.substr(colon + 1));
      const Square sq = *ParseSquare(line.substr(semi + 2, colon - semi - 2), 8);
      if (score > ffo.best_score) ffo = FfoPosition{*pos, score, {}};
      if (score == ffo.best_score) ffo.best_moves.push_back(sq);
    }
    out.push_back(ffo);
  }
  return out;
}

// Plain minimax: no pruning, no table.
int Minimax(const Position& pos, const Rules& rules) {
  if (pos.IsGameOver()) return Score(pos, rules).MarginFor(pos.side_to_move());
  const Bitboard moves = pos.LegalMoves();
  if (!moves) return -Minimax(pos.Play(kPass), rules);
  int best = -1000;
  ForEachSquare(moves, [&](Square sq) { best = std::max(best, -Minimax(pos.Play(sq), rules)); });
  return best;
}

// A random position of `size` with `empties` empty squares (from random games).
Position RandomPosition(Rng& rng, int size, int empties) {
  while (true) {
    Position pos = Position::Standard(size);
    while (!pos.IsGameOver() && pos.EmptyCount() > empties) {
      pos = pos.Play(RandomLegalMove(pos, rng));
    }
    if (pos.EmptyCount() == empties) return pos;
  }
}

void ExpectBestMoveAchievesScore(const Position& pos, const Rules& rules, const SolveResult& r) {
  if (pos.IsGameOver()) {
    EXPECT_EQ(r.best_move, SolveResult::kNoMove);
    return;
  }
  ASSERT_TRUE(pos.IsLegal(r.best_move)) << FormatBoardString(pos);
  EXPECT_EQ(-Minimax(pos.Play(r.best_move), rules), r.score) << FormatBoardString(pos);
}

TEST(Solver, FfoPositions40To44) {
  const std::vector<FfoPosition> ffo = ReadFfo();
  ASSERT_EQ(ffo.size(), 20u);
  Solver solver(/*table_megabytes=*/64);
  for (int i = 0; i < 5; ++i) {
    const SolveResult r = solver.Solve(ffo[i].position, Rules{});
    ASSERT_TRUE(r.exact());
    EXPECT_EQ(r.score, ffo[i].best_score) << "FFO #" << 40 + i;
    EXPECT_THAT(ffo[i].best_moves, ::testing::Contains(r.best_move)) << "FFO #" << 40 + i;
  }
}

TEST(Solver, WinDrawLossOnFfo40To42) {
  const std::vector<FfoPosition> ffo = ReadFfo();
  Solver solver;
  for (int i = 0; i < 3; ++i) {
    const SolveResult r = solver.SolveWld(ffo[i].position, Rules{});
    ASSERT_TRUE(r.exact());
    EXPECT_EQ(r.score, (ffo[i].best_score > 0) - (ffo[i].best_score < 0)) << "FFO #" << 40 + i;
    // The move keeps the result: its child is no better than the negated result for the opponent.
    const SolveResult child = solver.SolveWld(ffo[i].position.Play(r.best_move), Rules{});
    EXPECT_EQ(-child.score, r.score) << "FFO #" << 40 + i;
  }
}

TEST(Solver, AgreesWithMinimaxOnRandomPositionsOfEverySizeAndScoring) {
  Rng rng(/*seed=*/2024);
  Solver solver(/*table_megabytes=*/4);
  for (int size : {4, 6, 8}) {
    for (int trial = 0; trial < 48; ++trial) {
      Rules rules;
      rules.size = size;
      rules.anti = trial % 2;
      rules.empties_to_winner = (trial / 2) % 2;
      const int empties = 1 + static_cast<int>(rng.Below(size == 4 ? 10 : 9));
      const Position pos = RandomPosition(rng, size, empties);
      const int expected = Minimax(pos, rules);
      const SolveResult r = solver.Solve(pos, rules);
      ASSERT_TRUE(r.exact());
      ASSERT_EQ(r.score, expected) << FormatBoardString(pos) << " anti=" << rules.anti
                                   << " tournament=" << rules.empties_to_winner;
      ExpectBestMoveAchievesScore(pos, rules, r);
      const SolveResult wld = solver.SolveWld(pos, rules);
      EXPECT_EQ(wld.score, (expected > 0) - (expected < 0)) << FormatBoardString(pos);
    }
  }
}

TEST(Solver, TenEmptiesOn8x8AgreeWithMinimax) {
  Rng rng(/*seed=*/7);
  for (int trial = 0; trial < 4; ++trial) {
    Rules rules;
    rules.anti = trial % 2;
    const Position pos = RandomPosition(rng, 8, 10);
    EXPECT_EQ(SolveExact(pos, rules).score, Minimax(pos, rules)) << FormatBoardString(pos);
  }
}

TEST(Solver, WholeFourByFourGamesFromEveryStart) {
  for (StartKind start : {StartKind::kStandard, StartKind::kReversi}) {
    Rules rules;
    rules.size = 4;
    rules.start = start;
    const Position pos = StartPosition(rules);
    const SolveResult r = SolveExact(pos, rules);
    ASSERT_TRUE(r.exact());
    EXPECT_EQ(r.score, Minimax(pos, rules)) << StartName(start);
    EXPECT_TRUE(pos.IsLegal(r.best_move));
  }
}

TEST(Solver, PassAndGameOverAtTheRoot) {
  const Position must_pass = *ParseBoardString(
      "XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXO-XXXXXX-- O");
  ASSERT_TRUE(must_pass.MustPass());
  const SolveResult r = SolveExact(must_pass, Rules{});
  EXPECT_EQ(r.best_move, kPass);
  EXPECT_EQ(r.score, Minimax(must_pass, Rules{}));

  const Position over = *ParseBoardString(std::string(60, 'X') + "---- O");
  const SolveResult end = SolveExact(over, Rules{});
  EXPECT_EQ(end.best_move, SolveResult::kNoMove);
  EXPECT_EQ(end.score, -64);  // white has no discs: 60 + 4 empties to black
}

TEST(Solver, NodeLimitIsRespectedAndReported) {
  const Position ffo45 = ReadFfo()[5].position;
  Solver solver;
  SolveLimits limits;
  limits.max_nodes = 100000;
  const SolveResult r = solver.Solve(ffo45, Rules{}, limits);
  EXPECT_EQ(r.status, SolveStatus::kNodeLimit);
  EXPECT_FALSE(r.exact());
  EXPECT_LE(r.nodes, limits.max_nodes);
  EXPECT_GE(r.nodes, limits.max_nodes / 2);
}

TEST(Solver, TimeLimitAndStopFlag) {
  const Position ffo45 = ReadFfo()[5].position;
  Solver solver;
  SolveLimits limits;
  limits.max_seconds = 0.05;
  const SolveResult timed = solver.Solve(ffo45, Rules{}, limits);
  EXPECT_EQ(timed.status, SolveStatus::kTimeLimit);  // it stopped, and says why

  std::atomic<bool> stop{true};
  SolveLimits stopped;
  stopped.stop = &stop;
  EXPECT_EQ(solver.Solve(ffo45, Rules{}, stopped).status, SolveStatus::kStopped);
}

TEST(Solver, AbortedSearchesLeaveOnlyProvenResults) {
  // Interrupt the same search many times at different points, then finish it: the
  // table must not hold anything from unfinished nodes.
  const FfoPosition ffo40 = ReadFfo()[0];
  Solver solver;
  for (std::uint64_t nodes = 1000; nodes < 2000000; nodes *= 3) {
    SolveLimits limits;
    limits.max_nodes = nodes;
    EXPECT_FALSE(solver.Solve(ffo40.position, Rules{}, limits).exact());
  }
  const SolveResult r = solver.Solve(ffo40.position, Rules{});
  ASSERT_TRUE(r.exact());
  EXPECT_EQ(r.score, ffo40.best_score);
}

TEST(Solver, ScoringRulesDoNotShareTableEntries) {
  Rng rng(/*seed=*/31);
  Solver solver;
  for (int trial = 0; trial < 20; ++trial) {
    const Position pos = RandomPosition(rng, 6, 9);
    Rules normal, anti;
    anti.anti = true;
    EXPECT_EQ(solver.Solve(pos, normal).score, Minimax(pos, normal));
    EXPECT_EQ(solver.Solve(pos, anti).score, Minimax(pos, anti));
  }
}

TEST(Solver, SolveExactFromSeveralThreadsAtOnce) {
  Rng rng(/*seed=*/77);
  std::vector<Position> positions;
  std::vector<int> expected;
  for (int i = 0; i < 16; ++i) {
    positions.push_back(RandomPosition(rng, 8, 9));
    expected.push_back(Minimax(positions.back(), Rules{}));
  }
  std::vector<int> got(positions.size());
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (std::size_t i = t; i < positions.size(); i += 4) {
        got[i] = SolveExact(positions[i], Rules{}).score;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(got, expected);
}

}  // namespace
}  // namespace othello::core
