#pragma once
// Internal to the solver (included by solver.cpp only): the transposition table, the
// search context with its limits, and the search itself, templated on the board size
// so that 8x8 runs on 64-bit boards with the tuned move generator.
//
// Layers of the search, by number of empty squares n:
//   Root   the move loop at the root (best move, pass handling);
//   Pvs    principal-variation nodes with a full window, table and move ordering;
//   Nws    null-window nodes (is the score > alpha?) with table and move ordering;
//   Small  n <= kSmallEmpties: no move generation or table, squares tried in quadrant
//          parity order (odd regions first);
//   Last1  the last empty square, scored directly.
// Every node counts towards the node limit; a hit limit throws Aborted, which unwinds
// without storing anything from unfinished nodes, so the table only ever holds
// proven bounds.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <vector>

#include "core/geometry.h"
#include "core/hash.h"
#include "core/solver.h"

namespace othello::core::solver_detail {

inline constexpr int kInf = 127;  // beyond every score (at most 100 squares)

// Tuned on FFO #40-#44 (see the solver benchmark).
inline constexpr int kSmallEmpties = 5;         // Small() at and below this many empties
inline constexpr int kMaxSmallEmpties = 8;
inline constexpr int kTableMinEmpties = 9;      // table probes and stores from here up
inline constexpr int kEtcMinEmpties = 12;       // enhanced transposition cutoff from here up
inline constexpr int kStabilityMinEmpties = 12; // stability cutoff from here up

struct Aborted {
  SolveStatus status;
};

// Bounds on the exact score of a position, found by earlier searches.
struct TableEntry {
  std::uint64_t key = 0;
  std::int8_t lower = -kInf;
  std::int8_t upper = kInf;
  std::int8_t move = -1;
  std::uint8_t empties = 0;
};

class Table {
 public:
  explicit Table(std::size_t megabytes) {
    std::size_t entries = 1;
    while (entries * 2 * sizeof(TableEntry) <= std::max<std::size_t>(megabytes, 1) << 20) {
      entries *= 2;
    }
    entries_.resize(entries);
    mask_ = entries - 1;
  }

  const TableEntry* Probe(std::uint64_t key) const {
    const TableEntry& e = entries_[key & mask_];
    return e.key == key ? &e : nullptr;
  }

  // Narrows the stored bounds of `key` (or replaces a different position when the
  // new one has at least as many empties, i.e. cost more to find).
  void Store(std::uint64_t key, int empties, int lower, int upper, int move) {
    TableEntry& e = entries_[key & mask_];
    if (e.key == key) {
      e.lower = static_cast<std::int8_t>(std::max<int>(e.lower, lower));
      e.upper = static_cast<std::int8_t>(std::min<int>(e.upper, upper));
      if (move >= 0) e.move = static_cast<std::int8_t>(move);
      return;
    }
    if (e.key != 0 && e.empties > empties + 2) return;
    e = TableEntry{key, static_cast<std::int8_t>(lower), static_cast<std::int8_t>(upper),
                   static_cast<std::int8_t>(move), static_cast<std::uint8_t>(empties)};
  }

  void Prefetch(std::uint64_t key) const { __builtin_prefetch(&entries_[key & mask_]); }

  void Clear() { std::fill(entries_.begin(), entries_.end(), TableEntry{}); }

 private:
  std::vector<TableEntry> entries_;
  std::size_t mask_ = 0;
};

// Per-search state: scoring rule, node count and limits.
class Context {
 public:
  Context(Table& table, const Rules& rules, const SolveLimits& limits)
      : table(table),
        anti(rules.anti),
        tournament(rules.empties_to_winner),
        salt(Mix64(1 + rules.anti * 2 + rules.empties_to_winner)),
        limits_(limits),
        start_(std::chrono::steady_clock::now()) {}

  void Tick() {
    if (++nodes >= next_check_) Check();
  }
  double Seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

  Table& table;
  const bool anti;
  const bool tournament;
  const std::uint64_t salt;  // table keys differ between scoring rules
  std::uint64_t nodes = 0;

 private:
  void Check() {
    next_check_ = nodes + 4096;
    if (limits_.max_nodes && nodes >= limits_.max_nodes) throw Aborted{SolveStatus::kNodeLimit};
    if (limits_.stop && limits_.stop->load(std::memory_order_relaxed)) {
      throw Aborted{SolveStatus::kStopped};
    }
    if (limits_.max_seconds > 0 && Seconds() >= limits_.max_seconds) {
      throw Aborted{SolveStatus::kTimeLimit};
    }
    if (limits_.max_nodes) next_check_ = std::min(next_check_, limits_.max_nodes);
  }

  const SolveLimits limits_;
  const std::chrono::steady_clock::time_point start_;
  std::uint64_t next_check_ = 4096;
};

template <int N>
class Search {
 public:
  using G = Geometry<N>;
  using Bits = typename G::Bits;
  static constexpr int kSquares = N * N;

  explicit Search(Context& ctx) : ctx_(ctx) {}

  // Score within (alpha, beta) (fail-soft) and a best move; see SolveResult.
  int Root(Bits player, Bits opponent, int alpha, int beta, Square* best_move) {
    const int n = kSquares - PopCount(player | opponent);
    const Bits moves = G::Moves(player, opponent);
    if (!moves) {
      if (!G::Moves(opponent, player)) {
        *best_move = SolveResult::kNoMove;
        return Final(player, opponent);
      }
      *best_move = kPass;
      return -Pvs(opponent, player, -beta, -alpha, n);
    }
    ctx_.Tick();
    MoveList list;
    Order(player, opponent, moves, HashMove(player, opponent), n, list);
    return SearchMoves(list, alpha, beta, n, best_move);
  }

 private:
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

  static constexpr Bits Quadrant(int q) {
    Bits m = 0;
    for (int r = 0; r < N / 2; ++r) {
      for (int c = 0; c < N / 2; ++c) {
        m |= Bits{1} << ((r + (q / 2) * (N / 2)) * N + c + (q % 2) * (N / 2));
      }
    }
    return m;
  }
  static constexpr Bits kCorners = (Bits{1} << 0) | (Bits{1} << (N - 1)) |
                                   (Bits{1} << (N * (N - 1))) | (Bits{1} << (N * N - 1));

  // Squares of the quadrants that hold an odd number of empties.
  static Bits OddQuadrants(Bits empties) {
    Bits odd = 0;
    for (int q = 0; q < 4; ++q) {
      const Bits quad = Quadrant(q);
      if (PopCount(empties & quad) & 1) odd |= quad;
    }
    return odd;
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

  std::uint64_t Key(Bits player, Bits opponent) const {
    return HashBoard(N, player, opponent) ^ ctx_.salt;
  }

  Square HashMove(Bits player, Bits opponent) const {
    const TableEntry* e = ctx_.table.Probe(Key(player, opponent));
    return e ? e->move : -1;
  }

  // Fills `list` with the children, scored for fastest-first ordering: the hash move
  // first, then fewest opponent replies (corner replies count double), then moves
  // into odd quadrants.
  void Order(Bits player, Bits opponent, Bits moves, Square hash_move, int n, MoveList& list) {
    const Bits odd = OddQuadrants(G::kFull & ~(player | opponent));
    for (Bits rest = moves; rest; rest &= rest - 1) {
      Move& m = list.moves[list.count++];
      m.square = LowestSquare(rest);
      const Bits bit = Bits{1} << m.square;
      const Bits flipped = G::Flips(m.square, player, opponent);
      m.player = opponent ^ flipped;
      m.opponent = player ^ flipped ^ bit;
      const Bits replies = G::Moves(m.player, m.opponent);
      m.score = -16 * (PopCount(replies) + PopCount(replies & kCorners));
      if (bit & kCorners) m.score += 8;
      if (bit & odd) m.score += 4;
      if (m.square == hash_move) m.score += 1 << 20;
      if (n > kTableMinEmpties) ctx_.table.Prefetch(Key(m.player, m.opponent));
    }
  }

  // Lines of the board in the four axes (rows, columns, both diagonals).
  struct Lines {
    Bits masks[4][2 * N];
    int count[4] = {0, 0, 0, 0};
  };
  static constexpr Lines MakeLines() {
    Lines lines{};
    constexpr int kDc[4] = {1, 0, 1, -1}, kDr[4] = {0, 1, 1, 1};
    for (int axis = 0; axis < 4; ++axis) {
      for (int start = 0; start < N * N; ++start) {
        const int c = start % N, r = start / N;
        const int pc = c - kDc[axis], pr = r - kDr[axis];
        if (pc >= 0 && pc < N && pr >= 0 && pr < N) continue;  // not the first of its line
        Bits m = 0;
        for (int cc = c, rr = r; cc >= 0 && cc < N && rr >= 0 && rr < N;
             cc += kDc[axis], rr += kDr[axis]) {
          m |= Bits{1} << (rr * N + cc);
        }
        lines.masks[axis][lines.count[axis]++] = m;
      }
    }
    return lines;
  }
  static constexpr Lines kLines = MakeLines();
  // Squares with no on-board neighbour on one side of each axis.
  static constexpr Bits kEdge[4] = {
      G::ColumnMask(0) | G::ColumnMask(N - 1),
      (Bits{1} << N) - 1 | (((Bits{1} << N) - 1) << (N * (N - 1))),
      G::ColumnMask(0) | G::ColumnMask(N - 1) | (Bits{1} << N) - 1 |
          (((Bits{1} << N) - 1) << (N * (N - 1))),
      G::ColumnMask(0) | G::ColumnMask(N - 1) | (Bits{1} << N) - 1 |
          (((Bits{1} << N) - 1) << (N * (N - 1)))};

  // Discs of `discs` that can never be flipped: along each axis the line is full, or a
  // neighbour is the edge or another such disc (found by iterating to a fixpoint).
  static Bits Stable(Bits discs, Bits occupied) {
    Bits full[4] = {0, 0, 0, 0};
    for (int axis = 0; axis < 4; ++axis) {
      for (int i = 0; i < kLines.count[axis]; ++i) {
        const Bits m = kLines.masks[axis][i];
        if ((occupied & m) == m) full[axis] |= m;
      }
    }
    Bits stable = discs & full[0] & full[1] & full[2] & full[3];
    Bits anchored = discs & ((full[0] | kEdge[0]) & (full[1] | kEdge[1]) &
                             (full[2] | kEdge[2]) & (full[3] | kEdge[3]));
    stable |= anchored & kCorners;
    while (true) {
      const Bits grown =
          stable | (discs & (full[0] | kEdge[0] | G::Shift(stable, 0) | G::Shift(stable, 1)) &
                    (full[1] | kEdge[1] | G::Shift(stable, 2) | G::Shift(stable, 3)) &
                    (full[2] | kEdge[2] | G::Shift(stable, 4) | G::Shift(stable, 5)) &
                    (full[3] | kEdge[3] | G::Shift(stable, 6) | G::Shift(stable, 7)));
      if (grown == stable) return stable;
      stable = grown;
    }
  }

  // Upper bound on the side to move's score from the discs it can never lose (normal
  // goal: the opponent's stable discs; anti-Othello: its own).
  int StabilityBound(Bits player, Bits opponent) const {
    const Bits counted = ctx_.anti ? player : opponent;
    return kSquares - 2 * PopCount(Stable(counted, player | opponent));
  }

  // Enhanced transposition cutoff: a child already known to score below -alpha
  // proves this node's score > alpha without searching. Returns that bound, or -kInf.
  int TranspositionCutoff(const MoveList& list, int alpha) const {
    for (int i = 0; i < list.count; ++i) {
      const Move& m = list.moves[i];
      const TableEntry* e = ctx_.table.Probe(Key(m.player, m.opponent));
      if (e && -e->upper > alpha) return -e->upper;
    }
    return -kInf;
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
    if (n <= kSmallEmpties) return Small(player, opponent, alpha, beta, n);
    ctx_.Tick();
    const Bits moves = G::Moves(player, opponent);
    if (!moves) {
      if (!G::Moves(opponent, player)) return Final(player, opponent);
      return -Pvs(opponent, player, -beta, -alpha, n);
    }
    const std::uint64_t key = Key(player, opponent);
    Square hash_move = -1;
    if (const TableEntry* e = ctx_.table.Probe(key)) {
      if (e->lower >= beta) return e->lower;
      if (e->upper <= alpha) return e->upper;
      if (e->lower == e->upper) return e->lower;
      hash_move = e->move;
    }
    MoveList list;
    Order(player, opponent, moves, hash_move, n, list);
    Square best_square = -1;
    const int best = SearchMoves(list, alpha, beta, n, &best_square);
    const int lower = best > alpha ? best : -kInf;
    const int upper = best < beta ? best : kInf;
    ctx_.table.Store(key, n, lower, upper, best_square);
    return best;
  }

  // Is the score > alpha? Returns a fail-soft bound.
  int Nws(Bits player, Bits opponent, int alpha, int n) {
    if (n <= kSmallEmpties) return Small(player, opponent, alpha, alpha + 1, n);
    ctx_.Tick();
    const Bits moves = G::Moves(player, opponent);
    if (!moves) {
      if (!G::Moves(opponent, player)) return Final(player, opponent);
      return -Nws(opponent, player, -alpha - 1, n);
    }
    if (n >= kStabilityMinEmpties &&
        alpha >= kSquares - 2 * PopCount(ctx_.anti ? player : opponent)) {
      const int bound = StabilityBound(player, opponent);
      if (bound <= alpha) return bound;
    }
    std::uint64_t key = 0;
    Square hash_move = -1;
    if (n >= kTableMinEmpties) {
      key = Key(player, opponent);
      if (const TableEntry* e = ctx_.table.Probe(key)) {
        if (e->lower > alpha) return e->lower;
        if (e->upper <= alpha) return e->upper;
        hash_move = e->move;
      }
    }
    MoveList list;
    Order(player, opponent, moves, hash_move, n, list);
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
    }
    if (n >= kTableMinEmpties) {
      if (best > alpha) {
        ctx_.table.Store(key, n, best, kInf, best_square);
      } else {
        ctx_.table.Store(key, n, -kInf, best, -1);
      }
    }
    return best;
  }

  // The last few empties: the squares are listed once, odd quadrants first, and each
  // is tried directly (no move generation, no table).
  int Small(Bits player, Bits opponent, int alpha, int beta, int n) {
    const Bits empties = G::kFull & ~(player | opponent);
    const Bits odd = OddQuadrants(empties);
    Square squares[kMaxSmallEmpties];
    int count = 0;
    for (Bits rest = empties & odd; rest; rest &= rest - 1) squares[count++] = LowestSquare(rest);
    for (Bits rest = empties & ~odd; rest; rest &= rest - 1) squares[count++] = LowestSquare(rest);
    return SolveSquares(player, opponent, alpha, beta, squares, n, /*passed=*/false);
  }

  int SolveSquares(Bits player, Bits opponent, int alpha, int beta, Square* squares, int n,
                   bool passed) {
    if (n == 1) return Last1(player, opponent, squares[0]);
    ctx_.Tick();
    int best = -kInf;
    for (int i = 0; i < n; ++i) {
      const Square sq = squares[i];
      const Bits flipped = G::Flips(sq, player, opponent);
      if (!flipped) continue;
      std::swap(squares[i], squares[n - 1]);  // the rest stay in squares[0, n-1)
      const int v = -SolveSquares(opponent ^ flipped, player ^ flipped ^ (Bits{1} << sq), -beta,
                                  -std::max(alpha, best), squares, n - 1, false);
      std::swap(squares[i], squares[n - 1]);
      if (v > best) {
        best = v;
        if (v >= beta) return best;
      }
    }
    if (best != -kInf) return best;
    if (passed) return Final(player, opponent);  // neither side can move
    return -SolveSquares(opponent, player, -beta, -alpha, squares, n, /*passed=*/true);
  }

  int Last1(Bits player, Bits opponent, Square sq) {
    ctx_.Tick();
    const int p = PopCount(player), o = PopCount(opponent);
    if (const Bits flipped = G::Flips(sq, player, opponent)) {
      const int f = PopCount(flipped);
      return FinalCounts(p + f + 1, o - f);
    }
    if (const Bits flipped = G::Flips(sq, opponent, player)) {
      const int f = PopCount(flipped);
      return FinalCounts(p - f, o + f + 1);
    }
    return FinalCounts(p, o);
  }

  Context& ctx_;
};

}  // namespace othello::core::solver_detail
