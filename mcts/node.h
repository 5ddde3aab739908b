#pragma once
// Search tree nodes and their pool.
//
// A node stands for the position after `move`; its statistics are from the point of
// view of the player who made that move (the parent's side to move), so a parent
// picks the child with the highest value. Children of a node are contiguous in the
// pool. Positions are not stored: a descent replays moves from the root.
//
// Concurrency protocol (several search threads on one tree, see search.h):
// - counts (visits and in-flight playouts in one word), value, square, draw and score sums: atomics
//   updated with relaxed read-modify-writes; readers tolerate slightly stale values
//   (the usual lock-free MCTS convention). A search that one thread runs alone
//   (`shared` false, see TreeSearch) updates them with a relaxed load and store
//   instead: no locked instruction, and still atomic for any reader.
// - state: kUnexpanded -> kExpanding (one thread wins the CAS) -> kExpanded, which is
//   final. The expanding thread may instead fall back to kUnexpanded, when it proved
//   the node (proven is stored first) or when the pool is full. first_child,
//   num_children and the children's fields are written by the expanding thread before
//   it stores kExpanded with release; readers load state with acquire before touching
//   children. (The root is expanded by Begin(), or by the first Apply() of a search
//   begun by BeginSelfPlayMove(), while no other thread runs.)
// - proven moves forward only (unknown -> win/draw/loss); exact_score and exact are
//   stored before proven is stored with release, and read after it is loaded with
//   acquire. Threads that prove the same node store the same values.
// - the plain fields prior and move are written before the parent's kExpanded is
//   published; the root's children's priors change (noise) only as the root is set up
//   (as above) and in Finish(), when no playout runs.
// Reset() and CopyFrom() are for nodes no other thread can reach (fresh, or being
// copied while no search runs).
#include <algorithm>
#include <atomic>
#include <cstdint>

#include "core/bitboard.h"

namespace othello::mcts {

enum class NodeState : std::uint8_t { kUnexpanded, kExpanding, kExpanded };
// Game-theoretic value for the player who moved into the node.
enum class Proven : std::int8_t { kUnknown = 0, kLoss = 1, kDraw = 2, kWin = 3 };

inline Proven Flip(Proven p) {
  return p == Proven::kWin ? Proven::kLoss : p == Proven::kLoss ? Proven::kWin : p;
}

// Fixed-point scale of the value sums (probabilities in 1/2^20 steps).
inline constexpr std::int64_t kValueScale = 1 << 20;

struct Node {
  std::uint32_t first_child = 0;            // valid once state is kExpanded
  float prior = 0;                          // policy prior, set when the parent expands
  std::int8_t move = core::kPass;           // square or kPass (the root: kPass)
  std::uint8_t num_children = 0;            // valid once state is kExpanded
  std::atomic<NodeState> state{NodeState::kUnexpanded};
  std::atomic<Proven> proven{Proven::kUnknown};
  std::atomic<std::int8_t> exact_score{0};  // final margin for the mover, when `exact`
  std::atomic<bool> exact{false};

  // Visits and playouts under way, read together with one load.
  void Counts(std::uint32_t* visits, std::uint32_t* in_flight) const {
    const std::uint64_t c = counts_.load(std::memory_order_relaxed);
    *visits = static_cast<std::uint32_t>(c);
    *in_flight = static_cast<std::uint32_t>(c >> 32);
  }
  std::uint32_t Visits() const {
    return static_cast<std::uint32_t>(counts_.load(std::memory_order_relaxed));
  }
  std::uint32_t InFlight() const {
    return static_cast<std::uint32_t>(counts_.load(std::memory_order_relaxed) >> 32);
  }
  // A playout enters the node (virtual loss) / leaves it unfinished. `shared`: other
  // threads may update the node meanwhile (see the protocol above).
  void BeginPlayout(bool shared) { Add(counts_, kInFlightOne, shared); }
  void CancelPlayout(bool shared) { Add(counts_, 0 - kInFlightOne, shared); }
  // A playout through the node finishes with these win/loss probabilities and this
  // final margin (over the board's area, in [-1, 1]), all fixed point and for the
  // mover; `begun`: it had called BeginPlayout().
  void FinishPlayout(std::int64_t win, std::int64_t loss, std::int64_t score, bool shared,
                     bool begun = true) {
    const std::int64_t value = win - loss;  // |value| <= kValueScale: the square fits
    Add(value_sum_, value, shared);
    Add(square_sum_, value * value / kValueScale, shared);
    Add(draw_sum_, kValueScale - win - loss, shared);
    Add(score_sum_, score, shared);
    Add(counts_, begun ? 1 - kInFlightOne : 1, shared);
  }
  // Sum of (P(win) - P(loss)) for the mover, times kValueScale.
  std::int64_t ValueSum() const { return value_sum_.load(std::memory_order_relaxed); }

  // Sum of the expected final margins over the area for the mover, times kValueScale.
  std::int64_t ScoreSum() const { return score_sum_.load(std::memory_order_relaxed); }
  // Mean final margin over the area, in [-1, 1] for the mover, or `fallback` when unvisited.
  float ScoreMean(float fallback) const {
    const std::uint32_t n = Visits();
    if (n == 0) return fallback;
    return static_cast<float>(ScoreSum()) / (static_cast<float>(kValueScale) * n);
  }

  // Sum of (P(win) - P(loss))^2 for the mover, times kValueScale.
  std::int64_t SquareSum() const { return square_sum_.load(std::memory_order_relaxed); }
  // The variance of the values backed up through the node (0 with fewer than 2 visits).
  float ValueVariance() const {
    const std::uint32_t n = Visits();
    if (n < 2) return 0.0f;
    const double scale = static_cast<double>(kValueScale) * n;
    const double mean = ValueSum() / scale;
    return static_cast<float>(std::max(0.0, SquareSum() / scale - mean * mean));
  }

  // Mean value in [-1, 1] for the mover, or `fallback` when unvisited.
  float Q(float fallback) const {
    const std::uint32_t n = Visits();
    if (n == 0) return fallback;
    return static_cast<float>(ValueSum()) / (static_cast<float>(kValueScale) * n);
  }
  // Mean win and loss probabilities for the mover (0 when unvisited).
  void MeanWinLoss(float* win, float* loss) const {
    const std::uint32_t n = Visits();
    if (n == 0) {
      *win = *loss = 0;
      return;
    }
    const double scale = static_cast<double>(kValueScale) * n;
    const double v = value_sum_.load(std::memory_order_relaxed) / scale;
    const double d = draw_sum_.load(std::memory_order_relaxed) / scale;
    *win = static_cast<float>((1.0 - d + v) / 2);
    *loss = static_cast<float>((1.0 - d - v) / 2);
  }

  // Copies everything but the children links and the in-flight count.
  void CopyFrom(const Node& from) {
    counts_.store(from.Visits(), std::memory_order_relaxed);
    value_sum_.store(from.value_sum_.load(std::memory_order_relaxed), std::memory_order_relaxed);
    square_sum_.store(from.square_sum_.load(std::memory_order_relaxed), std::memory_order_relaxed);
    draw_sum_.store(from.draw_sum_.load(std::memory_order_relaxed), std::memory_order_relaxed);
    score_sum_.store(from.score_sum_.load(std::memory_order_relaxed), std::memory_order_relaxed);
    prior = from.prior;
    move = from.move;
    proven.store(from.proven.load(std::memory_order_relaxed), std::memory_order_relaxed);
    exact_score.store(from.exact_score.load(std::memory_order_relaxed), std::memory_order_relaxed);
    exact.store(from.exact.load(std::memory_order_relaxed), std::memory_order_relaxed);
  }

  void Reset() {
    counts_.store(0, std::memory_order_relaxed);
    value_sum_.store(0, std::memory_order_relaxed);
    square_sum_.store(0, std::memory_order_relaxed);
    draw_sum_.store(0, std::memory_order_relaxed);
    score_sum_.store(0, std::memory_order_relaxed);
    first_child = 0;
    prior = 0;
    move = core::kPass;
    num_children = 0;
    state.store(NodeState::kUnexpanded, std::memory_order_relaxed);
    proven.store(Proven::kUnknown, std::memory_order_relaxed);
    exact_score.store(0, std::memory_order_relaxed);
    exact.store(false, std::memory_order_relaxed);
  }

 private:
  static constexpr std::uint64_t kInFlightOne = std::uint64_t{1} << 32;
  // Adds `delta` (wrapping) to `field`: a read-modify-write when `shared`.
  template <typename T>
  static void Add(std::atomic<T>& field, T delta, bool shared) {
    if (shared) {
      field.fetch_add(delta, std::memory_order_relaxed);
    } else {
      field.store(field.load(std::memory_order_relaxed) + delta, std::memory_order_relaxed);
    }
  }
  std::atomic<std::uint64_t> counts_{0};     // visits (low 32 bits), in flight (high 32)
  std::atomic<std::int64_t> value_sum_{0};   // sum of P(win) - P(loss), * kValueScale
  std::atomic<std::int64_t> square_sum_{0};  // sum of (P(win) - P(loss))^2, * kValueScale
  std::atomic<std::int64_t> draw_sum_{0};    // sum of P(draw), * kValueScale
  std::atomic<std::int64_t> score_sum_{0};   // sum of margin / area, * kValueScale
};

// A fixed-capacity arena of nodes; Allocate() hands out contiguous blocks. Large
// pools are backed by transparent huge pages where the OS offers them (fewer TLB
// misses on the random walks of a big tree).
// Thread safety: Allocate() is lock-free (a Cursor belongs to one thread); Reset()
// needs exclusive access. Nodes live as long as the pool; Reset() makes every index
// free for reuse.
class NodePool {
 public:
  explicit NodePool(std::size_t capacity);
  ~NodePool();
  NodePool(const NodePool&) = delete;
  NodePool& operator=(const NodePool&) = delete;

  // Index of the first of `count` fresh nodes, or -1 when the pool is full.
  std::int64_t Allocate(int count) {
    const std::size_t begin = used_.fetch_add(count, std::memory_order_relaxed);
    if (begin + count > capacity_) return -1;
    return Fresh(begin, count);
  }

  // A thread's private run of reserved nodes: threads then rarely touch the shared
  // counter. A cursor is tied to one pool and one Reset() generation.
  struct Cursor {
    const NodePool* pool = nullptr;
    std::uint64_t generation = 0;
    std::size_t next = 0, end = 0;
  };
  std::int64_t Allocate(int count, Cursor& cursor) {
    if (cursor.pool != this || cursor.generation != generation_ ||
        cursor.next + count > cursor.end) {
      const std::size_t chunk = std::max<std::size_t>(count, kChunk);
      const std::size_t begin = used_.fetch_add(chunk, std::memory_order_relaxed);
      if (begin + count > capacity_) return -1;
      cursor = Cursor{this, generation_, begin, std::min(begin + chunk, capacity_)};
    }
    const std::size_t begin = cursor.next;
    cursor.next += count;
    return Fresh(begin, count);
  }

  Node& operator[](std::size_t i) { return nodes_[i]; }
  const Node& operator[](std::size_t i) const { return nodes_[i]; }
  std::size_t used() const { return std::min(used_.load(std::memory_order_relaxed), capacity_); }
  std::size_t capacity() const { return capacity_; }
  void Reset() {
    used_.store(0, std::memory_order_relaxed);
    ++generation_;
  }

 private:
  static constexpr std::size_t kChunk = 1024;
  std::int64_t Fresh(std::size_t begin, int count) {
    for (int i = 0; i < count; ++i) nodes_[begin + i].Reset();
    return static_cast<std::int64_t>(begin);
  }

  Node* nodes_ = nullptr;  // read on every node access
  std::size_t capacity_ = 0;
  std::uint64_t generation_ = 0;  // changes only in Reset()
  // Written by expansions: on its own cache line, away from nodes_.
  alignas(64) std::atomic<std::size_t> used_{0};
  [[maybe_unused]] alignas(64) char padding_ = 0;
};

}  // namespace othello::mcts
