#pragma once
// Internal to the solver (solver.cpp includes it, with the nodes, solver_nodes.h, and
// the parallel search, solver_parallel.h, each of which includes it): the search context with its
// limits, and the search itself, templated on the internal board layout (layout.h) so
// that 4x4, 6x6 and 8x8 all run on the tuned 8x8 move generator.
//
// Layers of the search, by number of empty squares n:
//   Root     the move loop at the root (best move, pass handling);
//   Pvs      principal-variation nodes with a full window, table and move ordering;
//   Nws      null-window nodes (is the score > alpha?): table, enhanced transposition
//            cutoff, stability cutoff, move ordering (solver_order.h);
//   Shallow  n <= kShallowEmpties: no move generation or table; at each node the empty
//            squares of odd quadrants first and good squares before bad ones, and a
//            square is tried only when it touches an opponent disc;
//   Last2    two empties, both orders written out;
//   Last1    the last empty square, scored directly.
// Every node counts towards the node limit; a hit limit throws Aborted, which unwinds
// without storing anything from unfinished nodes, so the table only ever holds
// proven bounds.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>

#include "core/hash.h"
#include "core/layout.h"
#include "core/solver.h"
#include "core/solver_table.h"

namespace othello::core::solver_detail {

// Tuned on FFO #40-#48 and random 20-empty positions (the solver benchmarks).
inline constexpr int kShallowEmpties = 6;       // Shallow() at and below this many empties
inline constexpr int kTableMinEmpties = 9;      // table probes and stores from here up
inline constexpr int kEtcMinEmpties = 12;       // enhanced transposition cutoff from here up
inline constexpr int kStabilityMinEmpties = 9;  // Nws()'s stability cutoff from here up
inline constexpr int kSplitMinEmpties = 13;     // parallel solves split nodes from here up
inline constexpr int kSymmetryPlies = 6;        // symmetric twins dropped this near the start

struct Aborted {
  SolveStatus status;
};

// Thrown inside a parallel search when a split point above has been cut off: the work
// is no longer needed. Unwinds like Aborted, storing nothing from unfinished nodes.
struct Cancelled {};

// A split point as its workers see it (solver_parallel.h): cut off, and its parent.
struct SplitLink {
  std::atomic<bool> cutoff{false};
  const SplitLink* parent = nullptr;

  bool CutAbove() const {
    for (const SplitLink* s = this; s; s = s->parent) {
      if (s->cutoff.load(std::memory_order_relaxed)) return true;
    }
    return false;
  }
};

// What the threads of one parallel solve share for their limits: the node total and
// the first limit hit (as a SolveStatus; -1 while none).
struct SharedLimits {
  std::atomic<std::uint64_t> nodes{0};
  std::atomic<int> aborted{-1};
};

// Per-search state: scoring rule, node count and limits. One per thread.
class Context {
 public:
  Context(Table& table, const Rules& rules, const SolveLimits& limits,
          SharedLimits* shared = nullptr)
      : table(table),
        anti(rules.anti),
        tournament(rules.empties_to_winner),
        salt(Mix64(1 + rules.anti * 2 + rules.empties_to_winner)),
        limits_(limits),
        shared_(shared),
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
  // The split point whose child this thread is searching (parallel solves only).
  const SplitLink* split = nullptr;

  // Throws when a limit is hit (here or, in a parallel solve, by another thread) or
  // when the work has been cancelled.
  void Check() {
    next_check_ = nodes + 4096;
    std::uint64_t total = nodes;
    if (shared_) {
      total = shared_->nodes.fetch_add(nodes - reported_, std::memory_order_relaxed) + nodes -
              reported_;
      reported_ = nodes;
      const int aborted = shared_->aborted.load(std::memory_order_relaxed);
      if (aborted >= 0) throw Aborted{static_cast<SolveStatus>(aborted)};
    }
    if (limits_.max_nodes && total >= limits_.max_nodes) Abort(SolveStatus::kNodeLimit);
    if (limits_.stop && limits_.stop->load(std::memory_order_relaxed)) {
      Abort(SolveStatus::kStopped);
    }
    if (limits_.max_seconds > 0 && Seconds() >= limits_.max_seconds) {
      Abort(SolveStatus::kTimeLimit);
    }
    if (split && split->CutAbove()) throw Cancelled{};
    if (limits_.max_nodes) next_check_ = std::min(next_check_, nodes + limits_.max_nodes - total);
  }

 private:
  [[noreturn]] void Abort(SolveStatus status) {
    if (shared_) {
      int none = -1;
      shared_->aborted.compare_exchange_strong(none, static_cast<int>(status));
    }
    throw Aborted{status};
  }

  const SolveLimits limits_;
  SharedLimits* const shared_;
  const std::chrono::steady_clock::time_point start_;
  std::uint64_t next_check_ = 4096;
  std::uint64_t reported_ = 0;  // nodes already added to shared_->nodes
};

// Constant masks of a layout: corners, quadrants, square classes, lines, edges.
template <class L>
struct Masks {
  using Bits = typename L::Bits;
  static constexpr int N = L::kSize;

  static constexpr Bits kCorners =
      L::At(0, 0) | L::At(0, N - 1) | L::At(N - 1, 0) | L::At(N - 1, N - 1);

  static constexpr Bits Quadrant(int q) {
    Bits m = 0;
    for (int r = 0; r < N / 2; ++r) {
      for (int c = 0; c < N / 2; ++c) m |= L::At(r + (q / 2) * (N / 2), c + (q % 2) * (N / 2));
    }
    return m;
  }
  struct Quadrants {
    Bits q[4];
  };
  static constexpr Quadrants kQuadrants = {{Quadrant(0), Quadrant(1), Quadrant(2), Quadrant(3)}};

  // Squares of the quadrants that hold an odd number of empties.
  static Bits OddQuadrants(Bits empties) {
    Bits odd = 0;
    for (const Bits quad : kQuadrants.q) {
      if (PopCount(empties & quad) & 1) odd |= quad;
    }
    return odd;
  }

  // Square classes, best first: corners, edges, the inside, then the squares next to
  // a corner (C and X squares), which tend to give the corner away.
  static constexpr Bits Class(int k) {
    Bits m = 0;
    for (int r = 0; r < N; ++r) {
      for (int c = 0; c < N; ++c) {
        const int dr = std::min(r, N - 1 - r), dc = std::min(c, N - 1 - c);
        const bool corner = dr == 0 && dc == 0;
        const bool next_to_corner = !corner && dr <= 1 && dc <= 1;
        const bool edge = !corner && !next_to_corner && (dr == 0 || dc == 0);
        const int cls = corner ? 0 : edge ? 1 : next_to_corner ? 3 : 2;
        if (cls == k) m |= L::At(r, c);
      }
    }
    return m;
  }
  static constexpr Bits kClasses[4] = {Class(0), Class(1), Class(2), Class(3)};

  // Lines of the board in the four axes (rows, columns, both diagonals).
  struct Lines {
    Bits masks[4][2 * N];
    int count[4] = {0, 0, 0, 0};
  };
  static constexpr Lines MakeLines() {
    Lines lines{};
    constexpr int kDc[4] = {1, 0, 1, -1}, kDr[4] = {0, 1, 1, 1};
    for (int axis = 0; axis < 4; ++axis) {
      for (int r = 0; r < N; ++r) {
        for (int c = 0; c < N; ++c) {
          if (L::OnBoard(r - kDr[axis], c - kDc[axis])) continue;  // not the first of its line
          Bits m = 0;
          for (int cc = c, rr = r; L::OnBoard(rr, cc); cc += kDc[axis], rr += kDr[axis]) {
            m |= L::At(rr, cc);
          }
          lines.masks[axis][lines.count[axis]++] = m;
        }
      }
    }
    return lines;
  }
  static constexpr Lines kLines = MakeLines();

  static constexpr Bits Row(int r) {
    Bits m = 0;
    for (int c = 0; c < N; ++c) m |= L::At(r, c);
    return m;
  }
  static constexpr Bits Column(int c) {
    Bits m = 0;
    for (int r = 0; r < N; ++r) m |= L::At(r, c);
    return m;
  }
  // Squares with no on-board neighbour on one side of each axis.
  static constexpr Bits kSides = Column(0) | Column(N - 1);
  static constexpr Bits kEnds = Row(0) | Row(N - 1);
  static constexpr Bits kEdge[4] = {kSides, kEnds, kSides | kEnds, kSides | kEnds};

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
    const Bits f0 = full[0] | kEdge[0], f1 = full[1] | kEdge[1];
    const Bits f2 = full[2] | kEdge[2], f3 = full[3] | kEdge[3];
    Bits stable = discs & ((full[0] & full[1] & full[2] & full[3]) | (f0 & f1 & f2 & f3 & kCorners));
    if (!stable) return 0;
    while (true) {
      const Bits grown =
          stable | (discs & (f0 | L::Shift(stable, 0) | L::Shift(stable, 1)) &
                    (f1 | L::Shift(stable, 2) | L::Shift(stable, 3)) &
                    (f2 | L::Shift(stable, 4) | L::Shift(stable, 5)) &
                    (f3 | L::Shift(stable, 6) | L::Shift(stable, 7)));
      if (grown == stable) return stable;
      stable = grown;
    }
  }
};

}  // namespace othello::core::solver_detail
