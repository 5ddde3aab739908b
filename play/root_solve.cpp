#include "play/root_solve.h"

#include <algorithm>

namespace othello::play {

core::SolveLimits RootSolveLimits(const mcts::SearchLimits& limits) {
  core::SolveLimits solve;
  solve.stop = limits.stop;
  if (limits.seconds > 0) solve.max_seconds = limits.seconds * kRootSolveTimeShare;
  if (limits.playouts > 0) solve.max_nodes = limits.playouts * kRootSolveNodesPerPlayout;
  return solve;
}

mcts::SearchLimits LimitsAfterSolve(const mcts::SearchLimits& limits, double solve_seconds) {
  mcts::SearchLimits left = limits;
  if (limits.seconds > 0) {
    left.seconds = std::max(kMinSearchSecondsAfterSolve, limits.seconds - solve_seconds);
  }
  return left;
}

std::optional<core::SolveLimits> SolveLimitsLeft(const core::SolveLimits& limits,
                                                 const core::SolveResult& spent) {
  core::SolveLimits left = limits;
  if (limits.max_nodes > 0) {
    if (spent.nodes >= limits.max_nodes) return std::nullopt;
    left.max_nodes = limits.max_nodes - spent.nodes;
  }
  if (limits.max_seconds > 0) {
    if (spent.seconds >= limits.max_seconds) return std::nullopt;
    left.max_seconds = limits.max_seconds - spent.seconds;
  }
  return left;
}

mcts::SearchResult SolvedRootResult(const core::SolveResult& solve, bool exact, double seconds) {
  mcts::SearchResult result;
  result.move = solve.best_move == core::SolveResult::kNoMove ? core::kPass : solve.best_move;
  result.proven = true;
  result.exact = result.has_score = exact;
  if (exact) result.exact_score = solve.score;
  result.win = solve.score > 0 ? 1.0f : 0.0f;
  result.loss = solve.score < 0 ? 1.0f : 0.0f;
  result.draw = solve.score == 0 ? 1.0f : 0.0f;
  result.q = result.win - result.loss;
  if (exact) result.score = static_cast<float>(solve.score);
  result.pv.push_back(result.move);
  result.full_search = false;  // no policy target
  result.seconds = seconds;
  return result;
}

bool SolvesAtRoot(const core::Position& position, int empties) {
  return empties > 0 && position.EmptyCount() <= empties && !position.IsGameOver();
}

mcts::SearchResult SolveOrSearch(mcts::TreeSearch& search, mcts::Evaluator& evaluator,
                                 const mcts::SearchLimits& limits, int ply, int empties,
                                 const RootSolver& solve) {
  const core::Position& root = search.tree().root_position();
  if (!SolvesAtRoot(root, empties)) return mcts::RunSearch(search, evaluator, limits, ply);
  const core::Rules& rules = search.params().rules;
  const core::SolveLimits bounds = RootSolveLimits(limits);
  const core::SolveResult wld = solve(root, rules, bounds, /*wld=*/true);
  double seconds = wld.seconds;
  if (wld.exact()) {
    if (const auto left = SolveLimitsLeft(bounds, wld)) {  // the exact margin with the rest
      const core::SolveResult exact = solve(root, rules, *left, /*wld=*/false);
      seconds += exact.seconds;
      if (exact.exact()) return SolvedRootResult(exact, /*exact=*/true, seconds);
    }
    // A proven win or draw is played; a proven loss is left to the search, whose move may
    // give an imperfect opponent more chances than an arbitrary losing one.
    if (wld.score >= 0) return SolvedRootResult(wld, /*exact=*/false, seconds);
  }
  mcts::SearchResult result =
      mcts::RunSearch(search, evaluator, LimitsAfterSolve(limits, seconds), ply);
  result.seconds += seconds;
  return result;
}

RootSolver SolverFor(core::Solver& solver) {
  return [&solver](const core::Position& position, const core::Rules& rules,
                   const core::SolveLimits& limits, bool wld) {
    return wld ? solver.SolveWld(position, rules, limits) : solver.Solve(position, rules, limits);
  };
}

}  // namespace othello::play
