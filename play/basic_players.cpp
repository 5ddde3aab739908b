#include "play/basic_players.h"

#include <algorithm>
#include <array>
#include <climits>
#include <utility>
#include <vector>

#include "core/rng.h"
#include "core/rules.h"
#include "core/solver.h"

namespace othello::play {

namespace {

constexpr int kWin = 1'000'000;  // finished games score kWin + margin

// The classic square weight for a square `a` and `b` steps from its two nearest edges
// (a <= b): the 8x8 table of the literature, extended to every size.
int SquareWeight(int a, int b) {
  if (a == 0) return b == 0 ? 100 : b == 1 ? -20 : b == 2 ? 10 : 5;
  if (a == 1) return b == 1 ? -50 : -2;
  return -1;
}

struct WeightTable {
  std::array<int, core::kMaxSquares> weight{};
};

const WeightTable& Weights(int size) {
  static const std::array<WeightTable, core::kMaxSize + 1> tables = [] {
    std::array<WeightTable, core::kMaxSize + 1> all{};
    for (int n = core::kMinSize; n <= core::kMaxSize; ++n) {
      for (int row = 0; row < n; ++row) {
        for (int col = 0; col < n; ++col) {
          const int dc = std::min(col, n - 1 - col), dr = std::min(row, n - 1 - row);
          all[n].weight[core::MakeSquare(n, col, row)] =
              SquareWeight(std::min(dc, dr), std::max(dc, dr));
        }
      }
    }
    return all;
  }();
  return tables[size];
}

int WeightSum(core::Bitboard discs, const WeightTable& table) {
  int sum = 0;
  core::ForEachSquare(discs, [&](core::Square sq) { sum += table.weight[sq]; });
  return sum;
}

// Discs on edge runs that start at a corner of the same colour: never flippable.
core::Bitboard EdgeStable(core::Bitboard discs, int size) {
  core::Bitboard stable = 0;
  const int last = size - 1;
  const int corners[4][2] = {{0, 0}, {last, 0}, {0, last}, {last, last}};
  for (const auto& corner : corners) {
    const int steps[2][2] = {{corner[0] == 0 ? 1 : -1, 0}, {0, corner[1] == 0 ? 1 : -1}};
    for (const auto& step : steps) {
      int col = corner[0], row = corner[1];
      for (int i = 0; i < size; ++i, col += step[0], row += step[1]) {
        const core::Bitboard bit = core::Bit(core::MakeSquare(size, col, row));
        if (!(discs & bit)) break;
        stable |= bit;
      }
    }
  }
  return stable;
}

core::Square PickAtRandom(const std::vector<core::Square>& moves, core::Rng& rng) {
  return moves[rng.Below(static_cast<std::uint32_t>(moves.size()))];
}

}  // namespace

PlayedMove RandomPlayer::GenMove(const core::Game& game, const MoveClock&) {
  return {core::RandomLegalMove(game.position(), rng_), std::nullopt};
}

core::Square GreedyMove(const core::Position& position, core::Rng& rng) {
  std::vector<core::Square> best;
  int most = -1;
  core::ForEachSquare(position.LegalMoves(), [&](core::Square sq) {
    const int flips = core::PopCount(position.Flips(sq));
    if (flips > most) {
      most = flips;
      best.clear();
    }
    if (flips == most) best.push_back(sq);
  });
  return PickAtRandom(best, rng);
}

PlayedMove GreedyPlayer::GenMove(const core::Game& game, const MoveClock&) {
  return {GreedyMove(game.position(), rng_), std::nullopt};
}

// Squares next to a taken corner lose their penalty: they weigh as plain edges.
int TakenCornerCorrection(const core::Position& position, const WeightTable& table) {
  const int size = position.size(), last = size - 1;
  const core::Bitboard taken = position.player() | position.opponent();
  int correction = 0;
  for (const int col : {0, last}) {
    for (const int row : {0, last}) {
      if (!(taken & core::Bit(core::MakeSquare(size, col, row)))) continue;
      const int dc = col == 0 ? 1 : -1, dr = row == 0 ? 1 : -1;
      for (const auto& [c, r] : {std::pair{col + dc, row}, {col, row + dr}, {col + dc, row + dr}}) {
        const core::Square sq = core::MakeSquare(size, c, r);
        const int delta = 5 - table.weight[sq];
        if (position.player() & core::Bit(sq)) correction += delta;
        if (position.opponent() & core::Bit(sq)) correction -= delta;
      }
    }
  }
  return correction;
}

int ClassicEvaluation(const core::Position& position) {
  const int size = position.size();
  const WeightTable& table = Weights(size);
  const core::Position swapped(size, position.opponent(), position.player(),
                               core::Other(position.side_to_move()));
  const int mobility = core::PopCount(position.LegalMoves()) - core::PopCount(swapped.LegalMoves());
  const int stable = core::PopCount(EdgeStable(position.player(), size)) -
                     core::PopCount(EdgeStable(position.opponent(), size));
  return WeightSum(position.player(), table) - WeightSum(position.opponent(), table) +
         TakenCornerCorrection(position, table) + 10 * mobility + 15 * stable;
}

void AlphaBetaPlayer::NewGame(const core::Game& game, const std::optional<TimeControl>&) {
  rules_ = game.rules();
}

int AlphaBetaPlayer::Search(const core::Position& position, int depth, int alpha, int beta) {
  if (position.IsGameOver()) {
    const int margin = core::Score(position, rules_).MarginFor(position.side_to_move());
    return margin > 0 ? kWin + margin : margin < 0 ? -kWin + margin : 0;
  }
  if (depth == 0) return rules_.anti ? -ClassicEvaluation(position) : ClassicEvaluation(position);
  const core::Bitboard legal = position.LegalMoves();
  if (!legal) return -Search(position.Play(core::kPass), depth, -beta, -alpha);
  // Corners and edges first (by square weight) for earlier cut-offs.
  std::vector<core::Square> moves;
  core::ForEachSquare(legal, [&](core::Square sq) { moves.push_back(sq); });
  const WeightTable& table = Weights(position.size());
  std::sort(moves.begin(), moves.end(),
            [&](core::Square a, core::Square b) { return table.weight[a] > table.weight[b]; });
  int best = INT_MIN;
  for (const core::Square sq : moves) {
    best = std::max(best, -Search(position.Play(sq), depth - 1, -beta, -alpha));
    alpha = std::max(alpha, best);
    if (alpha >= beta) break;
  }
  return best;
}

PlayedMove AlphaBetaPlayer::GenMove(const core::Game& game, const MoveClock&) {
  const core::Position& position = game.position();
  if (position.EmptyCount() <= solve_empties_) {
    const core::SolveResult solved = core::SolveExact(position, rules_);
    if (solved.exact() && solved.best_move >= 0) return {solved.best_move, solved.score};
  }
  std::vector<core::Square> best_moves;
  int best = INT_MIN + 1;
  // A window just below the best so far: every move that ties the best gets its exact
  // value, so ties are broken fairly.
  core::ForEachSquare(position.LegalMoves(), [&](core::Square sq) {
    const int alpha = best == INT_MIN + 1 ? INT_MIN + 1 : best - 1;
    const int value = -Search(position.Play(sq), depth_ - 1, INT_MIN + 1, -alpha);
    if (value > best) {
      best = value;
      best_moves.clear();
    }
    if (value == best) best_moves.push_back(sq);
  });
  PlayedMove move{PickAtRandom(best_moves, rng_), std::nullopt};
  if (best >= kWin - 1000 || best <= -kWin + 1000) {
    move.eval = best > 0 ? best - kWin : best < 0 ? best + kWin : 0;  // a proven margin
  }
  return move;
}

}  // namespace othello::play
