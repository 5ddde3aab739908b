#pragma once
// Subtree value-bias correction (KataGo, docs/KataGoMethods.md, "Subtree Value Bias
// Correction", Wu 2020): the evaluator's errors are shared by similar situations, so a
// table learns them online, during the game, and corrects new leaves.
//
// Every expanded node belongs to the bucket of its move's local context (ValueBiasKey).
// A node n with c = visits - 1 > 0 backed-up values besides its own evaluation has an
// observed error: the mean of those values less the evaluator's value of n (both for
// the mover into n). A bucket's bias is the mean of its nodes' errors weighted by
// c^alpha (alpha: SearchParams::value_bias_exponent), each node counted with its latest
// error only. A new leaf's value is the evaluator's plus lambda (SearchParams::value_bias)
// times its bucket's bias, clamped so that the win and loss probabilities stay in
// [0, 1] (the draw probability is kept), and that corrected value is what its playout
// backs up. KataGo recomputes a node's value from its children on every visit, and so
// re-corrects its own term each time; the running sums here (node.h) fix it once, at
// expansion. The margin (score utility) is not corrected.
//
// The key (ValueBiasKey): the mover, the move's square and the owner of each of the 8
// squares around it after the move (mover, opponent, empty, off the board). KataGo keys
// on the move, the previous move and the 5x5 pattern around the move; in Othello a
// move's value swings with its immediate neighbours (an empty corner beside an X- or
// C-square, the edge, which neighbours it flipped), and a smaller key lets the few
// hundred nodes of a move's search share their errors.
//
// Lifetime: a Tree owns its table and the per-node state (NodeBias, parallel to its
// pool), made by the first search with the correction on and kept for the game (the
// tree's public Reset clears them); from then on every search of the tree keeps them up
// to date, so its recorded errors always match its nodes.
// Thread safety: ValueBiasTable::Find and Bias from any thread; a slot's sums and the
// statistics of every node in its bucket change only with the slot's shard locked
// (TreeSearch::Backup), so that a node's last recorded error is the one its statistics
// give before the next change.
#include <cstdint>
#include <memory>
#include <vector>

#include "core/position.h"
#include "core/thread_annotations.h"
#include "mcts/node.h"

namespace othello::mcts {

// The bucket of the node reached by `move` (kPass included) in the position `after`
// it: the board size, the mover, the square, and the 8 neighbours' owners after the
// move. Never 0.
std::uint32_t ValueBiasKey(const core::Position& after, core::Square move);

// A node's value-bias state, parallel to the nodes of its pool (Tree::bias_nodes()).
// Written by the thread that expands the node before it publishes the expansion;
// read by playouts through it (after the node.h acquire of its state).
struct NodeBias {
  std::uint32_t slot = 0;       // 1 + its bucket's slot in the table; 0: no bucket
  float nn_value = 0;           // the evaluator's value for the mover into the node
  std::int32_t own_value = 0;   // what its own evaluation added to its value sum (fixed point)
};

// A node's share of its bucket's bias: weight = c^exponent and weighted_error = weight *
// (mean of its c backed-up values other than its own - nn_value), c = visits - 1; zero
// while c is 0.
struct BiasContribution {
  double weighted_error = 0;
  double weight = 0;
};
BiasContribution NodeContribution(const Node& node, const NodeBias& bias, float exponent);

// Buckets keyed by ValueBiasKey, each with the weighted sum of its nodes' errors and
// their weights, in a fixed number of slots (open addressing; a key that finds no free
// slot among its probes gets none and its nodes are not corrected).
class ValueBiasTable {
 public:
  // `slots` is rounded up to a power of two (at least 64).
  explicit ValueBiasTable(std::size_t slots);
  ValueBiasTable(const ValueBiasTable&) = delete;
  ValueBiasTable& operator=(const ValueBiasTable&) = delete;

  // 1 + the slot of `key`'s bucket, claimed if new; 0 when the table is full there.
  std::uint32_t Find(std::uint32_t key);
  // The bucket's mean error (0 before any weight); takes the slot's shard.
  double Bias(std::uint32_t slot) const;
  // The mutex of a slot: held while its bucket's nodes or sums change.
  core::Mutex& Shard(std::uint32_t slot) const { return shards_[(slot - 1) % kShards]; }
  // Replaces a node's contribution `before` by `after`; the caller holds Shard(slot).
  void Replace(std::uint32_t slot, const BiasContribution& before, const BiasContribution& after);
  // Empties every bucket (exclusive access).
  void Clear();

  // For tests and reports: the bucket's key (0: free) and sums, read without a lock.
  std::uint32_t key(std::uint32_t slot) const;
  BiasContribution sums(std::uint32_t slot) const;
  std::size_t slots() const { return entries_.size(); }

 private:
  struct Entry {
    std::atomic<std::uint32_t> key{0};  // 0: free; claimed once, by compare-and-swap
    double weighted_error = 0;          // guarded by Shard(slot)
    double weight = 0;                  // guarded by Shard(slot)
  };
  static constexpr int kShards = 64;
  static constexpr int kProbes = 16;

  std::size_t mask_;
  // Slot i's sums guarded by shard i % kShards (unchecked: the analysis cannot name a
  // mutex chosen by index).
  std::vector<Entry> entries_;
  std::unique_ptr<core::Mutex[]> shards_;
};

}  // namespace othello::mcts
