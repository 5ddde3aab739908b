#include "core/solver.h"

#include "core/solver_search.h"

namespace othello::core {
namespace {

using solver_detail::Aborted;
using solver_detail::Context;
using solver_detail::kInf;
using solver_detail::Search;

// Window search on any position. The reversi placement phase (an empty centre square)
// is searched move by move through Position until the centre is full.
int SearchWindow(Context& ctx, const Position& pos, int alpha, int beta, Square* best_move) {
  if (pos.InPlacementPhase()) {
    ctx.Tick();
    int best = -kInf;
    ForEachSquare(pos.LegalMoves(), [&](Square sq) {
      if (best >= beta) return;
      Square ignored;
      const int v = -SearchWindow(ctx, pos.Play(sq), -beta, -std::max(alpha, best), &ignored);
      if (v > best) {
        best = v;
        *best_move = sq;
      }
    });
    return best;
  }
  return DispatchSize(pos.size(), [&](auto n) {
    constexpr int kN = decltype(n)::value;
    using Bits = typename Geometry<kN>::Bits;
    Search<kN> search(ctx);
    return search.Root(static_cast<Bits>(pos.player()), static_cast<Bits>(pos.opponent()), alpha,
                       beta, best_move);
  });
}

// MTD(f) (Plaat et al., 1996): null-window searches that close in on the score from
// both sides, each reusing the table filled by the ones before.
int Mtd(Context& ctx, const Position& pos, Square* best_move) {
  int lower = -kInf, upper = kInf, guess = 0;
  while (lower < upper) {
    const int beta = guess == lower ? guess + 1 : guess;
    Square move = SolveResult::kNoMove;
    const int v = SearchWindow(ctx, pos, beta - 1, beta, &move);
    if (v < beta) {
      upper = v;
    } else {
      lower = v;
      *best_move = move;
    }
    guess = v;
  }
  return lower;
}

}  // namespace

const char* SolveStatusName(SolveStatus status) {
  switch (status) {
    case SolveStatus::kExact: return "exact";
    case SolveStatus::kNodeLimit: return "node limit reached";
    case SolveStatus::kTimeLimit: return "time limit reached";
    case SolveStatus::kStopped: return "stopped";
  }
  return "?";
}

struct Solver::Impl {
  explicit Impl(std::size_t megabytes) : table(megabytes) {}

  SolveResult Run(const Position& pos, const Rules& rules, const SolveLimits& limits, bool wld) {
    Context ctx(table, rules, limits);
    SolveResult result;
    try {
      Square best = SolveResult::kNoMove;
      const int score = wld ? SearchWindow(ctx, pos, -1, 1, &best) : Mtd(ctx, pos, &best);
      result.score = wld ? (score > 0) - (score < 0) : score;
      result.best_move = best;
    } catch (const Aborted& aborted) {
      result.status = aborted.status;
    }
    result.nodes = ctx.nodes;
    result.seconds = ctx.Seconds();
    return result;
  }

  solver_detail::Table table;
};

Solver::Solver(std::size_t table_megabytes) : impl_(std::make_unique<Impl>(table_megabytes)) {}
Solver::~Solver() = default;

SolveResult Solver::Solve(const Position& position, const Rules& rules,
                          const SolveLimits& limits) {
  return impl_->Run(position, rules, limits, /*wld=*/false);
}

SolveResult Solver::SolveWld(const Position& position, const Rules& rules,
                             const SolveLimits& limits) {
  return impl_->Run(position, rules, limits, /*wld=*/true);
}

void Solver::Clear() { impl_->table.Clear(); }

namespace {
thread_local double t_solve_exact_seconds = 0;  // this thread's SolveExact() time
}  // namespace

SolveResult SolveExact(const Position& position, const Rules& rules, const SolveLimits& limits,
                       bool wld) {
  thread_local Solver solver;
  SolveResult result =
      wld ? solver.SolveWld(position, rules, limits) : solver.Solve(position, rules, limits);
  t_solve_exact_seconds += result.seconds;
  return result;
}

double SolveExactSeconds() { return t_solve_exact_seconds; }

}  // namespace othello::core
