#pragma once
// Search tree nodes and their pool.
//
// A node stands for the position after `move`; its statistics are from the point of
// view of the player who made that move (the parent's side to move), so a parent
// picks the child with the highest value. Children of a node are contiguous in the
// pool. Positions are not stored: a descent replays moves from the root.
//
// Concurrency protocol (several search threads on one tree):
// - visits, in_flight, win_sum, loss_sum: atomics updated with relaxed fetch_add;
//   readers tolerate slightly stale values (the usual lock-free MCTS convention).
// - state moves forward only: kUnexpanded -> kExpanding (one thread wins the CAS) ->
//   kExpanded. first_child, num_children and the children's fields are written by the
//   expanding thread before it stores kExpanded with release; readers load state with
//   acquire before touching children.
// - proven moves forward only (unknown -> win/draw/loss); exact_score and exact are
//   stored before proven is stored with release, and read after it is loaded with acquire.
#include <atomic>
#include <cstdint>
#include <vector>

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
  std::atomic<std::uint32_t> visits{0};     // finished playouts through this node
  std::atomic<std::uint32_t> in_flight{0};  // playouts under way (virtual loss)
  std::atomic<std::int64_t> win_sum{0};     // sum of P(win) for the mover, * kValueScale
  std::atomic<std::int64_t> loss_sum{0};    // sum of P(loss) for the mover, * kValueScale
  std::uint32_t first_child = 0;            // valid once state is kExpanded
  float prior = 0;                          // policy prior, set when the parent expands
  std::int8_t move = core::kPass;           // square or kPass (the root: kPass)
  std::uint8_t num_children = 0;            // valid once state is kExpanded
  std::atomic<NodeState> state{NodeState::kUnexpanded};
  std::atomic<Proven> proven{Proven::kUnknown};
  std::atomic<std::int8_t> exact_score{0};  // final margin for the mover, when `exact`
  std::atomic<bool> exact{false};

  void Reset() {
    visits.store(0, std::memory_order_relaxed);
    in_flight.store(0, std::memory_order_relaxed);
    win_sum.store(0, std::memory_order_relaxed);
    loss_sum.store(0, std::memory_order_relaxed);
    first_child = 0;
    prior = 0;
    move = core::kPass;
    num_children = 0;
    state.store(NodeState::kUnexpanded, std::memory_order_relaxed);
    proven.store(Proven::kUnknown, std::memory_order_relaxed);
    exact_score.store(0, std::memory_order_relaxed);
    exact.store(false, std::memory_order_relaxed);
  }

  // Mean value in [-1, 1] for the mover, or `fallback` when unvisited.
  float Q(float fallback) const {
    const std::uint32_t n = visits.load(std::memory_order_relaxed);
    if (n == 0) return fallback;
    const std::int64_t w = win_sum.load(std::memory_order_relaxed);
    const std::int64_t l = loss_sum.load(std::memory_order_relaxed);
    return static_cast<float>(w - l) / (static_cast<float>(kValueScale) * n);
  }
};

// A fixed-capacity arena of nodes; Allocate() hands out contiguous blocks.
// Thread safety: Allocate() is lock-free; Reset() needs exclusive access.
class NodePool {
 public:
  explicit NodePool(std::size_t capacity) : nodes_(capacity) {}

  // Index of the first of `count` fresh nodes, or -1 when the pool is full.
  std::int64_t Allocate(int count) {
    const std::size_t begin = used_.fetch_add(count, std::memory_order_relaxed);
    if (begin + count > nodes_.size()) return -1;
    for (int i = 0; i < count; ++i) nodes_[begin + i].Reset();
    return static_cast<std::int64_t>(begin);
  }
  Node& operator[](std::size_t i) { return nodes_[i]; }
  const Node& operator[](std::size_t i) const { return nodes_[i]; }
  std::size_t used() const { return std::min(used_.load(std::memory_order_relaxed), nodes_.size()); }
  std::size_t capacity() const { return nodes_.size(); }
  void Reset() { used_.store(0, std::memory_order_relaxed); }

 private:
  std::vector<Node> nodes_;
  std::atomic<std::size_t> used_{0};
};

}  // namespace othello::mcts
