#pragma once
// One search tree: the root position and a node pool. The tree is kept between moves:
// Advance() makes the child for the move played the new root and compacts its subtree
// into the spare pool (so memory stays bounded and is reused, never reallocated).
// Thread safety: node statistics follow the protocol of node.h, so a running search
// may read and update them from many threads; Advance() and Reset() need exclusive
// access (no search running) and invalidate every Node reference and index taken
// before them. The value-bias state (value_bias.h) follows the same rules: made by
// EnableValueBias(), kept by Advance() (with the nodes it keeps), cleared by Reset().
#include <cstdint>
#include <memory>

#include "core/position.h"
#include "mcts/node.h"
#include "mcts/value_bias.h"

namespace othello::mcts {

class Tree {
 public:
  // `capacity`: the most nodes the tree may hold. A second pool of the same size is
  // allocated on the first Advance() that keeps a subtree.
  Tree(const core::Position& root, std::size_t capacity);

  const core::Position& root_position() const { return root_position_; }
  Node& root() { return (*pool_)[root_]; }
  const Node& root() const { return (*pool_)[root_]; }
  std::uint32_t root_index() const { return root_; }
  NodePool& pool() { return *pool_; }
  const NodePool& pool() const { return *pool_; }
  Node& node(std::uint32_t index) { return (*pool_)[index]; }
  const Node& node(std::uint32_t index) const { return (*pool_)[index]; }

  // Plays `move` (legal in the root position): keeps the matching subtree if any (and
  // the value-bias table: the game goes on).
  void Advance(core::Square move);
  // Starts afresh from `root`: a new game (the value-bias table is emptied).
  void Reset(const core::Position& root);

  // The value-bias table and the nodes' state, parallel to the pool (indexed as nodes
  // are); both null until EnableValueBias(). Exclusive access, as Advance().
  void EnableValueBias();
  ValueBiasTable* value_bias() { return bias_table_.get(); }
  const ValueBiasTable* value_bias() const { return bias_table_.get(); }
  NodeBias* bias_nodes() { return bias_nodes_.get(); }
  const NodeBias* bias_nodes() const { return bias_nodes_.get(); }

 private:
  // A fresh pool with only `root` (the value-bias table kept).
  void ResetNodes(const core::Position& root);
  // Copies the subtree under pool_[from] into spare_, returning its new index.
  std::uint32_t CopySubtree(std::uint32_t from);

  core::Position root_position_;
  std::unique_ptr<NodePool> pool_, spare_;
  std::uint32_t root_ = 0;
  std::unique_ptr<ValueBiasTable> bias_table_;
  std::unique_ptr<NodeBias[]> bias_nodes_, spare_bias_nodes_;  // as pool_ and spare_
};

}  // namespace othello::mcts
