#pragma once
// Internal to the solver: the search nodes (see the layers in solver_search.h).
#include <algorithm>
#include <cstdint>
#include <utility>

#include "core/solver_search.h"
#include "core/symmetry.h"

namespace othello::core::solver_detail {

template <class L>
class Pool;

// One thread's search. Everything is public for the parallel search (solver_parallel.h),
// whose helpers run Nws() on the children of a split point.
template <class L>
class Search {
 public:
  using Bits = typename L::Bits;
  using M = Masks<L>;
  static constexpr int kSquares = L::kSquares;

  // `pool`: the threads of a parallel solve, or nullptr for a sequential search.
  explicit Search(Context& ctx, Pool<L>* pool = nullptr) : ctx_(ctx), pool_(pool) {}

  Context& context() { return ctx_; }

  // Score within (alpha, beta) (fail-soft) and a best move (an internal square, kPass
  // or SolveResult::kNoMove).
  int Root(Bits player, Bits opponent, int alpha, int beta, Square* best_move) {
    const int n = Empties(player, opponent);
    const Bits moves = L::Moves(player, opponent);
    if (!moves) {
      if (!L::Moves(opponent, player)) {
        *best_move = SolveResult::kNoMove;
        return Final(player, opponent);
      }
      *best_move = kPass;
      return -Pvs(opponent, player, -beta, -alpha, n);
    }
    ctx_.Tick();
    MoveList list;
    Order(player, opponent, moves, HashMove(player, opponent), n, list);
    DropSymmetricTwins(list, n);
    return SearchMoves(list, alpha, beta, n, best_move);
  }

  struct Move {
    Bits player, opponent;  // the child, from the opponent's point of view
    Square square;
    int score;
  };
  struct MoveList {
    Move moves[kSquares];
    int count = 0;
    // Selection sort on demand: most nodes cut off after the first move or two.
    const Move& Next(int i) {
      int best = i;
      for (int j = i + 1; j < count; ++j) {
        if (moves[j].score > moves[best].score) best = j;
      }
      std::swap(moves[i], moves[best]);
      return moves[i];
    }
  };

  static int Empties(Bits player, Bits opponent) { return kSquares - PopCount(player | opponent); }

  std::uint64_t Key(Bits player, Bits opponent) const {
    return HashBoard(L::kSize, player, opponent) ^ ctx_.salt;
  }

  // Fills `list` with the children of a node with n empties, scored for
  // fastest-first ordering: the hash move first, then fewest opponent replies (corner
  // replies count double), fewest empty squares next to the mover's discs (the
  // opponent's potential mobility), corners and moves into odd quadrants.
  void Order(Bits player, Bits opponent, Bits moves, Square hash_move, int n, MoveList& list) {
    const Bits empties = L::kRegion & ~(player | opponent);
    const Bits odd = M::OddQuadrants(empties);
    for (Bits rest = moves; rest; rest &= rest - 1) {
      Move& m = list.moves[list.count++];
      m.square = LowestSquare(rest);
      const Bits bit = Bits{1} << m.square;
      const Bits flipped = L::Flips(m.square, player, opponent);
      m.player = opponent ^ flipped;
      m.opponent = player ^ flipped ^ bit;
      const Bits replies = L::Moves(m.player, m.opponent);
      const Bits frontier = L::Neighbours(m.opponent) & (empties ^ bit);
      m.score = -16 * (PopCount(replies) + PopCount(replies & M::kCorners)) - 2 * PopCount(frontier);
      if (bit & M::kCorners) m.score += 8;
      if (bit & odd) m.score += 4;
      if (m.square == hash_move) m.score += 1 << 20;
      if (n > kTableMinEmpties) ctx_.table.Prefetch(Key(m.player, m.opponent));
    }
  }

  // Near the start of a game (the first kSymmetryPlies plies) children that are one
  // position up to a symmetry of the board score the same: only the first is kept.
  void DropSymmetricTwins(MoveList& list, int n) const {
    if (n >= kSquares - 4 - kSymmetryPlies && list.count > 1) DropTwins(list);
  }
  // Out of line: its buffer stays off the recursive nodes' stack frames.
  __attribute__((noinline)) static void DropTwins(MoveList& list) {
    std::pair<Bitboard, Bitboard> canonical[kSquares];
    int kept = 0;
    for (int i = 0; i < list.count; ++i) {
      const Move& m = list.moves[i];
      const Bitboard player = L::ToBoard(m.player), opponent = L::ToBoard(m.opponent);
      std::pair<Bitboard, Bitboard> key{player, opponent};
      for (int sym = 1; sym < kNumSymmetries; ++sym) {
        key = std::min(key, std::make_pair(TransformBits(player, L::kSize, sym),
                                           TransformBits(opponent, L::kSize, sym)));
      }
      if (std::find(canonical, canonical + kept, key) != canonical + kept) continue;
      canonical[kept] = key;
      list.moves[kept++] = m;
    }
    list.count = kept;
  }

  // The principal-variation move loop: the first move with the full window, the others
  // with a null window first and a re-search when they beat alpha.
  int SearchMoves(MoveList& list, int alpha, int beta, int n, Square* best_square) {
    int best = -kInf;
    for (int i = 0; i < list.count; ++i) {
      const Move& m = list.Next(i);
      int v;
      if (i == 0) {
        v = -Pvs(m.player, m.opponent, -beta, -alpha, n - 1);
      } else {
        v = -Nws(m.player, m.opponent, -alpha - 1, n - 1);
        if (v > alpha && v < beta) v = -Pvs(m.player, m.opponent, -beta, -v, n - 1);
      }
      if (v > best) {
        best = v;
        *best_square = m.square;
        if (v > alpha) alpha = v;
        if (alpha >= beta) break;
      }
    }
    return best;
  }

  int Pvs(Bits player, Bits opponent, int alpha, int beta, int n) {
    if (n <= kShallowEmpties) return Shallow(player, opponent, alpha, beta, n);
    if (beta == alpha + 1) return Nws(player, opponent, alpha, n);
    ctx_.Tick();
    const Bits moves = L::Moves(player, opponent);
    if (!moves) {
      if (!L::Moves(opponent, player)) return Final(player, opponent);
      return -Pvs(opponent, player, -beta, -alpha, n);
    }
    const std::uint64_t key = Key(player, opponent);
    Square hash_move = -1;
    TableEntry e;
    if (ctx_.table.Probe(key, &e)) {
      if (e.lower >= beta) return e.lower;
      if (e.upper <= alpha) return e.upper;
      if (e.lower == e.upper) return e.lower;
      hash_move = e.move;
    }
    MoveList list;
    Order(player, opponent, moves, hash_move, n, list);
    DropSymmetricTwins(list, n);
    Square best_square = -1;
    const int best = SearchMoves(list, alpha, beta, n, &best_square);
    const int lower = best > alpha ? best : -kInf;
    const int upper = best < beta ? best : kInf;
    ctx_.table.Store(key, n, lower, upper, best_square);
    return best;
  }

  // Is the score > alpha? Returns a fail-soft bound.
  int Nws(Bits player, Bits opponent, int alpha, int n) {
    if (n <= kShallowEmpties) return Shallow(player, opponent, alpha, alpha + 1, n);
    ctx_.Tick();
    const Bits moves = L::Moves(player, opponent);
    if (!moves) {
      if (!L::Moves(opponent, player)) return Final(player, opponent);
      return -Nws(opponent, player, -alpha - 1, n);
    }
    if (n >= kStabilityMinEmpties) {
      const int bound = StabilityCutoff(player, opponent, alpha);
      if (bound != kInf) return bound;
    }
    std::uint64_t key = 0;
    Square hash_move = -1;
    if (n >= kTableMinEmpties) {
      key = Key(player, opponent);
      TableEntry e;
      if (ctx_.table.Probe(key, &e)) {
        if (e.lower > alpha) return e.lower;
        if (e.upper <= alpha) return e.upper;
        hash_move = e.move;
      }
    }
    MoveList list;
    Order(player, opponent, moves, hash_move, n, list);
    DropSymmetricTwins(list, n);
    if (n >= kEtcMinEmpties) {
      const int bound = TranspositionCutoff(list, alpha);
      if (bound != -kInf) return bound;
    }
    int best = -kInf;
    Square best_square = -1;
    for (int i = 0; i < list.count; ++i) {
      const Move& m = list.Next(i);
      const int v = -Nws(m.player, m.opponent, -alpha - 1, n - 1);
      if (v > best) {
        best = v;
        best_square = m.square;
        if (v > alpha) break;
      }
      // Young brothers wait: once the eldest child has failed to cut, the others may
      // be searched in parallel.
      if (i == 0 && pool_ && n >= kSplitMinEmpties && list.count > 2) {
        std::sort(list.moves + 1, list.moves + list.count,
                  [](const Move& a, const Move& b) { return a.score > b.score; });
        pool_->Split(*this, list, alpha, n, &best, &best_square);
        break;
      }
    }
    if (n >= kTableMinEmpties) StoreNws(key, n, alpha, best, best_square);
    return best;
  }

  void StoreNws(std::uint64_t key, int n, int alpha, int best, Square best_square) {
    if (best > alpha) {
      ctx_.table.Store(key, n, best, kInf, best_square);
    } else {
      ctx_.table.Store(key, n, -kInf, best, -1);
    }
  }

  // Upper bound on the side to move's score from the discs it can never lose (normal
  // goal: the opponent's stable discs; anti-Othello: its own) when that bound is at
  // most alpha; otherwise kInf.
  int StabilityCutoff(Bits player, Bits opponent, int alpha) const {
    const Bits counted = ctx_.anti ? player : opponent;
    if (alpha < kSquares - 2 * PopCount(counted)) return kInf;  // cannot cut
    const int bound = kSquares - 2 * PopCount(M::Stable(counted, player | opponent));
    return bound <= alpha ? bound : kInf;
  }

  // Enhanced transposition cutoff: a child already known to score below -alpha
  // proves this node's score > alpha without searching. Returns that bound, or -kInf.
  int TranspositionCutoff(const MoveList& list, int alpha) const {
    for (int i = 0; i < list.count; ++i) {
      const Move& m = list.moves[i];
      TableEntry e;
      if (ctx_.table.Probe(Key(m.player, m.opponent), &e) && -e.upper > alpha) return -e.upper;
    }
    return -kInf;
  }

  // The last few empties: no move generation, table or stability cutoff (they cost more
  // than they save this close to the end). At each node the empty
  // squares of odd quadrants come first, each part by square class; a square is tried
  // only when it touches an opponent disc.
  int Shallow(Bits player, Bits opponent, int alpha, int beta, int n) {
    return ShallowNode(player, opponent, alpha, beta, L::kRegion & ~(player | opponent), n,
                       /*passed=*/false);
  }

  int ShallowNode(Bits player, Bits opponent, int alpha, int beta, Bits empties, int n,
                  bool passed) {
    if (n == 2) {
      const Square a = LowestSquare(empties);
      return Last2(player, opponent, alpha, beta, a, LowestSquare(empties & (empties - 1)));
    }
    ctx_.Tick();
    int best = -kInf;
    const Bits odd = M::OddQuadrants(empties);
    for (const Bits part : {empties & odd, empties & ~odd}) {
      for (const Bits cls : M::kClasses) {
        for (Bits rest = part & cls; rest; rest &= rest - 1) {
          const Square sq = LowestSquare(rest);
          if (!(kNeighbourMasks.m[sq] & opponent)) continue;
          const Bits flipped = L::Flips(sq, player, opponent);
          if (!flipped) continue;
          const Bits bit = Bits{1} << sq;
          const int v = -ShallowNode(opponent ^ flipped, player ^ flipped ^ bit, -beta,
                                     -std::max(alpha, best), empties ^ bit, n - 1, false);
          if (v > best) {
            best = v;
            if (v >= beta) return best;
          }
        }
      }
    }
    if (best != -kInf) return best;
    if (passed) return Final(player, opponent);  // neither side can move
    return -ShallowNode(opponent, player, -beta, -alpha, empties, n, /*passed=*/true);
  }

  // Two empty squares a and b.
  __attribute__((always_inline)) int Last2(Bits player, Bits opponent, int alpha, int beta,
                                           Square a, Square b) {
    ctx_.Tick();
    int best = -kInf;
    if (const Bits f = (kNeighbourMasks.m[a] & opponent) ? L::Flips(a, player, opponent) : 0) {
      best = -Last1(opponent ^ f, player ^ f ^ (Bits{1} << a), b);
      if (best >= beta) return best;
    }
    if (const Bits f = (kNeighbourMasks.m[b] & opponent) ? L::Flips(b, player, opponent) : 0) {
      return std::max(best, -Last1(opponent ^ f, player ^ f ^ (Bits{1} << b), a));
    }
    if (best != -kInf) return best;
    // The side to move passes: the opponent plays a or b, or the game ends.
    best = kInf;
    if (const Bits f = (kNeighbourMasks.m[a] & player) ? L::Flips(a, opponent, player) : 0) {
      best = Last1(player ^ f, opponent ^ f ^ (Bits{1} << a), b);
      if (best <= alpha) return best;
    }
    if (const Bits f = (kNeighbourMasks.m[b] & player) ? L::Flips(b, opponent, player) : 0) {
      return std::min(best, Last1(player ^ f, opponent ^ f ^ (Bits{1} << b), a));
    }
    if (best != kInf) return best;
    return Final(player, opponent);
  }

  // One empty square: whoever can play it does (the side to move first).
  __attribute__((always_inline)) int Last1(Bits player, Bits opponent, Square sq) {
    ctx_.Tick();
    const int p = PopCount(player), o = kSquares - 1 - p;
    if (const Bits flipped = L::Flips(sq, player, opponent)) {
      const int f = PopCount(flipped);
      return FinalCounts(p + f + 1, o - f);
    }
    if (const Bits flipped = L::Flips(sq, opponent, player)) {
      const int f = PopCount(flipped);
      return FinalCounts(p - f, o + f + 1);
    }
    return FinalCounts(p, o);
  }

  int FinalCounts(int p, int o) const {
    int diff = ctx_.anti ? o - p : p - o;
    if (ctx_.tournament && diff != 0) {
      const int empties = kSquares - p - o;
      diff += diff > 0 ? empties : -empties;
    }
    return diff;
  }
  int Final(Bits player, Bits opponent) const {
    return FinalCounts(PopCount(player), PopCount(opponent));
  }

  Square HashMove(Bits player, Bits opponent) const {
    TableEntry e;
    return ctx_.table.Probe(Key(player, opponent), &e) ? e.move : -1;
  }

  // The squares next to each square (a move there must touch an opponent disc).
  struct NeighbourMasks {
    Bits m[L::kBits];
  };
  static constexpr NeighbourMasks MakeNeighbourMasks() {
    NeighbourMasks n{};
    for (int r = 0; r < L::kSize; ++r) {
      for (int c = 0; c < L::kSize; ++c) {
        for (int d = 0; d < 8; ++d) {
          if (L::OnBoard(r + L::kDr[d], c + L::kDc[d])) {
            n.m[L::Index(r, c)] |= L::At(r + L::kDr[d], c + L::kDc[d]);
          }
        }
      }
    }
    return n;
  }
  static constexpr NeighbourMasks kNeighbourMasks = MakeNeighbourMasks();

  Context& ctx_;
  Pool<L>* const pool_;
};

}  // namespace othello::core::solver_detail
