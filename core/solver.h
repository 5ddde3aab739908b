#pragma once
// Exact endgame solver: the final disc difference under perfect play for both sides,
// and a move that achieves it; or, faster, only win/draw/loss.
//
// Algorithm (solver_search.h, solver_nodes.h): MTD(f) at the root (Plaat et al. 1996:
// null-window searches closing in on the score), principal-variation search over
// negamax alpha-beta, a two-slot lockless transposition table of score bounds
// (solver_table.h) with enhanced transposition cutoffs, fastest-first move ordering
// (fewest replies for the opponent, corner replies counted twice, the opponent's
// potential mobility; the hash move first), stability cutoffs, and dedicated code for
// the last six empties (no move generation or table; quadrant parity and square-class
// ordering; the last two empties written out). Every board size runs on the tuned 8x8
// move generator or a guarded 10x10 layout (layout.h). Edax (abulmo/edax-reversi)
// documents the classic engineering of such solvers.
//
// Scores are final margins from the side to move's point of view under the rules'
// scoring: empty squares go to the winner under the tournament rule, and anti-Othello
// inverts the goal (so a positive score is always good for the side to move).
//
// With SetThreads(n > 1), one position is solved by n threads sharing the table
// (young brothers wait, solver_parallel.h): the same exact score, found sooner.
//
// Thread safety: a Solver is used by one thread at a time (it owns its transposition
// table); several Solvers may run at once. SolveExact() uses one single-threaded
// Solver per calling thread, so it may be called from several threads at once.
#include <atomic>
#include <cstdint>
#include <memory>

#include "core/position.h"
#include "core/rules.h"

namespace othello::core {

struct SolveLimits {
  std::uint64_t max_nodes = 0;               // 0: unlimited
  double max_seconds = 0;                    // 0: unlimited
  const std::atomic<bool>* stop = nullptr;   // set from another thread to stop early
};

enum class SolveStatus { kExact, kNodeLimit, kTimeLimit, kStopped };

struct SolveResult {
  SolveStatus status = SolveStatus::kExact;
  // Exact mode: the final margin for the side to move. WLD mode: -1, 0 or +1.
  // Meaningless unless exact().
  int score = 0;
  // A move achieving the score: a square, kPass when the side to move must pass, or
  // kNoMove when the game is over (or the search stopped before finding one).
  Square best_move = kNoMove;
  std::uint64_t nodes = 0;
  double seconds = 0;

  static constexpr Square kNoMove = -2;
  bool exact() const { return status == SolveStatus::kExact; }
};

const char* SolveStatusName(SolveStatus status);

class Solver {
 public:
  // The transposition table takes about `table_megabytes` MiB (rounded down to a
  // power of two entries; at least 1 MiB).
  explicit Solver(std::size_t table_megabytes = 16);
  ~Solver();
  Solver(const Solver&) = delete;
  Solver& operator=(const Solver&) = delete;

  // Exact score and best move. Only rules.anti and rules.empties_to_winner matter.
  SolveResult Solve(const Position& position, const Rules& rules, const SolveLimits& limits = {});
  // Win (+1), draw (0) or loss (-1) for the side to move, with a move achieving it.
  SolveResult SolveWld(const Position& position, const Rules& rules,
                       const SolveLimits& limits = {});
  // Forgets every stored result (the table is also safe to keep between positions).
  void Clear();
  // Solves each position of at least 16 empties with `threads` threads (the calling one
  // and threads - 1 helpers started per search); default 1. Exact either way.
  void SetThreads(int threads);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Convenience: solves with the calling thread's own Solver (created on first use).
SolveResult SolveExact(const Position& position, const Rules& rules,
                       const SolveLimits& limits = {}, bool wld = false);

// The seconds SolveExact() has spent on the calling thread so far, summed from its
// results' own clock (no extra clock reads): for profiling, as self-play's time shares.
double SolveExactSeconds();

}  // namespace othello::core
