#pragma once
// The exact solver at the root of play's search. When the position to move has at most
// `empties` empty squares (play::kRootSolve: SearchPlayerOptions::root_solve_empties,
// Strength::root_solve_empties, an arena player's rootsolve=N), play solves it before
// searching: win/draw/loss first (core::Solver::SolveWld, the cheaper proof), then the
// exact margin with what is left, and plays the solver's move (a proven loss whose margin
// is not found in time is left to the search). Leaves inside the search keep their own,
// cheaper threshold (mcts::SearchParams::solver_empties).
//
// The solves are counted inside the move (RootSolveLimits):
// - under a time limit (seconds per move, a player's time=, a clock's budget) they may
//   take kRootSolveTimeShare of the move's seconds; when they prove nothing the search
//   gets the seconds they did not use (LimitsAfterSolve);
// - under a playout budget alone they may visit kRootSolveNodesPerPlayout solver nodes
//   per playout (on one core about what the playouts cost), then the search runs its full
//   playouts: in an equal-playouts match a side that solves spends at most about twice a
//   search's time on a move it cannot solve, and a solved move needs no search;
// - the search's stop flag stops them too.
// Thread safety: pure functions, but for SolveOrSearch, which runs the solver and then
// the search on the calling thread (mcts::RunSearch's threads for the search).
#include <functional>
#include <optional>

#include "core/solver.h"
#include "mcts/search.h"

namespace othello::play {

// The share of a timed move's seconds the root solve may take.
inline constexpr double kRootSolveTimeShare = 0.5;
// Solver nodes the root solve may visit per playout of an untimed move's budget: about
// one playout's cost of the shipped 8x8 model on one core (measured in
// docs/lab-notebook.md, 2026-12-07).
inline constexpr std::uint64_t kRootSolveNodesPerPlayout = 5000;
// The shortest search after an unfinished solve (0 seconds would mean no time limit).
inline constexpr double kMinSearchSecondsAfterSolve = 0.001;
// The root solver's transposition table (one per player or session, kept between moves).
inline constexpr std::size_t kRootSolveTableMegabytes = 16;

// Solves a position within limits, exactly or (wld) win/draw/loss only: core::Solver's
// Solve or SolveWld, or a stand-in in tests.
using RootSolver = std::function<core::SolveResult(
    const core::Position&, const core::Rules&, const core::SolveLimits&, bool wld)>;

// The solve's bounds for a move searched within `limits` (see above); no bound but the
// stop flag when the move has neither playouts nor seconds.
core::SolveLimits RootSolveLimits(const mcts::SearchLimits& limits);

// What is left of `limits` after a solve that took `spent` (its nodes and seconds); nullopt
// when nothing is.
std::optional<core::SolveLimits> SolveLimitsLeft(const core::SolveLimits& limits,
                                                 const core::SolveResult& spent);

// The search's limits after a solve that spent `solve_seconds` and did not finish: the
// seconds left of a timed move (at least kMinSearchSecondsAfterSolve), the rest as given.
mcts::SearchLimits LimitsAfterSolve(const mcts::SearchLimits& limits, double solve_seconds);

// A search's result for a root the solver proved, exactly (the margin and its win/draw/
// loss) or by win/draw/loss alone (`solve.score` -1, 0 or +1): its move (kPass when the
// side to move must pass), no playouts, `seconds`.
mcts::SearchResult SolvedRootResult(const core::SolveResult& solve, bool exact, double seconds);

// Whether play solves `position` at its root with the threshold `empties` (0: never).
bool SolvesAtRoot(const core::Position& position, int empties);

// mcts::RunSearch(search, evaluator, limits, ply) after a root solve (SolvesAtRoot(root,
// empties)) by `solve` within RootSolveLimits(limits): win/draw/loss first, then the exact
// margin with what that left. Returns the exact solve's result when it finishes; else a
// proven win or draw's move; else (nothing proven, or a proven loss whose margin is not
// known) the search's within LimitsAfterSolve, whose `seconds` then count the solves'.
mcts::SearchResult SolveOrSearch(mcts::TreeSearch& search, mcts::Evaluator& evaluator,
                                 const mcts::SearchLimits& limits, int ply, int empties,
                                 const RootSolver& solve);

// A RootSolver backed by `*solver`, which the caller owns and keeps alive (its table
// stays warm between moves).
RootSolver SolverFor(core::Solver& solver);

}  // namespace othello::play
