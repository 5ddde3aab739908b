#include "mcts/tree.h"

#include <algorithm>
#include <deque>
#include <stdexcept>
#include <utility>

namespace othello::mcts {

Tree::Tree(const core::Position& root, std::size_t capacity)
    : pool_(std::make_unique<NodePool>(std::max<std::size_t>(capacity, 1))) {
  Reset(root);
}

namespace {

// The value-bias table's slots for a tree of `capacity` nodes: room for a bucket per
// node, within 4 Ki to 256 Ki slots (a game meets far fewer contexts than a big tree
// has nodes).
std::size_t BiasSlots(std::size_t capacity) {
  return std::clamp<std::size_t>(capacity, std::size_t{1} << 12, std::size_t{1} << 18);
}

}  // namespace

void Tree::Reset(const core::Position& root) {
  ResetNodes(root);
  if (bias_table_) bias_table_->Clear();
}

void Tree::ResetNodes(const core::Position& root) {
  root_position_ = root;
  pool_->Reset();
  root_ = static_cast<std::uint32_t>(pool_->Allocate(1));
  if (bias_nodes_) bias_nodes_[root_] = NodeBias{};
}

void Tree::EnableValueBias() {
  if (bias_table_) return;
  bias_table_ = std::make_unique<ValueBiasTable>(BiasSlots(pool_->capacity()));
  // Zeroed: the nodes already in the tree have no bucket.
  bias_nodes_ = std::make_unique<NodeBias[]>(pool_->capacity());
}

std::uint32_t Tree::CopySubtree(std::uint32_t from) {
  if (!spare_) spare_ = std::make_unique<NodePool>(pool_->capacity());  // on first reuse
  if (bias_nodes_ && !spare_bias_nodes_) {
    spare_bias_nodes_ = std::make_unique<NodeBias[]>(spare_->capacity());
  }
  NodeBias* const bias_from = bias_nodes_.get();
  NodeBias* const bias_to = spare_bias_nodes_.get();
  spare_->Reset();
  const auto top = static_cast<std::uint32_t>(spare_->Allocate(1));
  (*spare_)[top].CopyFrom((*pool_)[from]);
  if (bias_from) bias_to[top] = bias_from[from];
  std::deque<std::pair<std::uint32_t, std::uint32_t>> queue{{from, top}};
  while (!queue.empty()) {
    const auto [old_index, new_index] = queue.front();
    queue.pop_front();
    const Node& old_node = (*pool_)[old_index];
    Node& new_node = (*spare_)[new_index];
    if (old_node.state.load(std::memory_order_acquire) != NodeState::kExpanded) continue;
    const std::int64_t block = spare_->Allocate(old_node.num_children);
    if (block < 0) continue;  // cannot happen: the subtree is no larger than the pool
    for (int i = 0; i < old_node.num_children; ++i) {
      (*spare_)[block + i].CopyFrom((*pool_)[old_node.first_child + i]);
      if (bias_from) bias_to[block + i] = bias_from[old_node.first_child + i];
      queue.emplace_back(old_node.first_child + i, static_cast<std::uint32_t>(block + i));
    }
    new_node.first_child = static_cast<std::uint32_t>(block);
    new_node.num_children = old_node.num_children;
    new_node.state.store(NodeState::kExpanded, std::memory_order_release);
  }
  return top;
}

void Tree::Advance(core::Square move) {
  if (!root_position_.IsLegal(move)) throw std::invalid_argument("Tree::Advance: illegal move");
  const Node& root_node = root();
  std::int64_t child = -1;
  if (root_node.state.load(std::memory_order_acquire) == NodeState::kExpanded) {
    for (int i = 0; i < root_node.num_children; ++i) {
      if ((*pool_)[root_node.first_child + i].move == move) child = root_node.first_child + i;
    }
  }
  root_position_ = root_position_.Play(move);
  if (child < 0) {
    ResetNodes(root_position_);
    return;
  }
  root_ = CopySubtree(static_cast<std::uint32_t>(child));
  std::swap(pool_, spare_);
  std::swap(bias_nodes_, spare_bias_nodes_);
}

}  // namespace othello::mcts
