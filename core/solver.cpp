#include "core/solver.h"

#include <algorithm>
#include <optional>

#include "core/solver_nodes.h"
#include "core/solver_parallel.h"
#include "core/solver_search.h"

namespace othello::core {
namespace {

using solver_detail::Aborted;
using solver_detail::Context;
using solver_detail::kInf;
using solver_detail::Pool;
using solver_detail::Search;
using solver_detail::SharedLimits;

// Parallel solves split only positions with at least this many empties (below, the
// threads cost more than they save).
constexpr int kParallelMinEmpties = 16;

// How a window search runs: on the calling thread, or with helper threads.
struct Threads {
  int count = 1;
  const Rules* rules = nullptr;
  const SolveLimits* limits = nullptr;
  SharedLimits* shared = nullptr;
  std::uint64_t helper_nodes = 0;
};

// Window search on any position. The reversi placement phase (an empty centre square)
// is searched move by move through Position until the centre is full.
int SearchWindow(Context& ctx, Threads& threads, const Position& pos, int alpha, int beta,
                 Square* best_move) {
  if (pos.InPlacementPhase()) {
    ctx.Tick();
    int best = -kInf;
    ForEachSquare(pos.LegalMoves(), [&](Square sq) {
      if (best >= beta) return;
      Square ignored;
      const int v = -SearchWindow(ctx, threads, pos.Play(sq), -beta, -std::max(alpha, best), &ignored);
      if (v > best) {
        best = v;
        *best_move = sq;
      }
    });
    return best;
  }
  return DispatchLayout(pos.size(), [&](auto layout) {
    using L = decltype(layout);
    std::optional<Pool<L>> pool;
    if (threads.count > 1 && pos.EmptyCount() >= kParallelMinEmpties) {
      pool.emplace(ctx.table, *threads.rules, *threads.limits, *threads.shared, threads.count - 1);
    }
    const auto stop_helpers = [&] {
      if (!pool) return;
      pool->Stop();
      threads.helper_nodes += pool->helper_nodes();
    };
    Search<L> search(ctx, pool ? &*pool : nullptr);
    Square internal = SolveResult::kNoMove;
    int score;
    try {
      score = search.Root(L::FromBoard(pos.player()), L::FromBoard(pos.opponent()), alpha, beta,
                          &internal);
    } catch (...) {
      stop_helpers();
      throw;
    }
    stop_helpers();
    *best_move = internal >= 0 ? L::ToBoardSquare(internal) : internal;
    return score;
  });
}

// MTD(f) (Plaat et al., 1996): null-window searches that close in on the score from
// both sides, each reusing the table filled by the ones before.
int Mtd(Context& ctx, Threads& threads, const Position& pos, Square* best_move) {
  int lower = -kInf, upper = kInf, guess = 0;
  while (lower < upper) {
    const int beta = guess == lower ? guess + 1 : guess;
    Square move = SolveResult::kNoMove;
    const int v = SearchWindow(ctx, threads, pos, beta - 1, beta, &move);
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
    SharedLimits shared;
    Threads threads{thread_count, &rules, &limits, thread_count > 1 ? &shared : nullptr};
    Context ctx(table, rules, limits, threads.shared);
    SolveResult result;
    try {
      Square best = SolveResult::kNoMove;
      const int score = wld ? SearchWindow(ctx, threads, pos, -1, 1, &best)
                            : Mtd(ctx, threads, pos, &best);
      result.score = wld ? (score > 0) - (score < 0) : score;
      result.best_move = best;
    } catch (const Aborted& aborted) {
      result.status = aborted.status;
    }
    result.nodes = ctx.nodes + threads.helper_nodes;
    result.seconds = ctx.Seconds();
    return result;
  }

  solver_detail::Table table;
  int thread_count = 1;
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

void Solver::SetThreads(int threads) { impl_->thread_count = std::max(1, threads); }

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
