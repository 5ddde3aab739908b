// Descent, expansion, backup and proofs (see search.h).
#include <algorithm>
#include <cmath>

#include "core/solver.h"
#include "mcts/search.h"

namespace othello::mcts {
namespace {

constexpr auto kRelaxed = std::memory_order_relaxed;

std::int64_t Fixed(float p) { return std::llround(static_cast<double>(p) * kValueScale); }

}  // namespace

TreeSearch::TreeSearch(Tree& tree, Evaluator& evaluator, const SearchParams& params,
                       std::uint64_t seed)
    : tree_(tree), evaluator_(evaluator), params_(params), rng_(seed) {}

bool TreeSearch::Done() const {
  if (root_pending_) return false;  // the root's evaluation is due in the next round
  if (stop_.load(kRelaxed)) return true;
  if (tree_.root().proven.load(std::memory_order_acquire) != Proven::kUnknown) return true;
  if (limits_.playouts && finished_.load(kRelaxed) >= limits_.playouts) return true;
  if (limits_.stop && limits_.stop->load(kRelaxed)) return true;
  if (limits_.tree_nodes && tree_.pool().used() >= limits_.tree_nodes) return true;
  return limits_.seconds > 0 && SecondsLeft() <= 0;
}

double TreeSearch::SecondsLeft() const {
  return limits_.seconds -
         std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void TreeSearch::Gather(EvalBatch& batch, LeafBuffer& leaves, int max_leaves) {
  if (root_pending_) {  // no leaves below a root not yet expanded
    GatherRoot(batch, leaves);
    return;
  }
  std::uint64_t finished = 0;  // counted once per round: the counter is shared
  if (limits_.playouts) {
    // Reserve this round's playouts at once, and give back what goes unused.
    const std::uint64_t before = started_.fetch_add(max_leaves, kRelaxed);
    const std::uint64_t allowed = before >= limits_.playouts ? 0 : limits_.playouts - before;
    if (allowed < static_cast<std::uint64_t>(max_leaves)) {
      started_.fetch_sub(max_leaves - allowed, kRelaxed);
      max_leaves = static_cast<int>(allowed);
    }
  }
  int begun = 0;
  for (; begun < max_leaves; ++begun) {
    PendingLeaf& leaf = leaves.Next();
    const Descent d = Descend(leaf);
    if (d == Descent::kLeaf) {
      batch.Add(leaf.position);
      continue;
    }
    leaves.DropLast();
    if (d == Descent::kBackedUp) {
      ++finished;
      continue;
    }
    collisions_.fetch_add(1, kRelaxed);
    break;  // a collision: the rest of the tree is busy; evaluate what we have
  }
  if (limits_.playouts && begun < max_leaves) started_.fetch_sub(max_leaves - begun, kRelaxed);
  if (finished) finished_.fetch_add(finished, kRelaxed);
}

void TreeSearch::Apply(const EvalBatch& batch, int offset, LeafBuffer& leaves) {
  if (root_pending_) {  // the root, not a playout
    ApplyRoot(batch.output(offset));
    return;
  }
  for (std::size_t i = 0; i < leaves.size(); ++i) {
    ExpandAndBackup(leaves[i], batch.output(offset + static_cast<int>(i)), leaves.cursor());
  }
  finished_.fetch_add(leaves.size(), kRelaxed);
}

void TreeSearch::ExpandAndBackup(const PendingLeaf& leaf, const EvalOutput& eval,
                                 NodePool::Cursor& cursor) {
  // The leaf node's statistics are for the player who moved into it.
  float win = eval.loss, loss = eval.win;
  NodeBias bias;
  if (bias_nodes_) bias = StartValueBias(leaf, &win, &loss);
  Expand(leaf.path.back(), leaf.position, eval, cursor, bias_nodes_ ? &bias : nullptr);
  const int area = leaf.position.size() * leaf.position.size();
  Backup(leaf.path, win, loss, eval.has_aux ? -eval.disc_difference / area : 0.0f);
}

NodeBias TreeSearch::StartValueBias(const PendingLeaf& leaf, float* win, float* loss) {
  const Node& node = tree_.node(leaf.path.back());
  // A node expanded again (its first expansion found the pool full) already holds a
  // value: it stays out of the buckets.
  if (leaf.path.size() < 2 || node.Visits() != 0) return {};
  NodeBias bias;
  bias.slot = bias_table_->Find(ValueBiasKey(leaf.position, node.move));
  if (bias.slot == 0) return {};
  bias.nn_value = *win - *loss;
  if (params_.value_bias > 0) {
    // Move the value, keep the draw probability: win and loss stay in [0, 1].
    const float decisive = *win + *loss;
    const float shift = params_.value_bias * static_cast<float>(bias_table_->Bias(bias.slot));
    const float corrected = std::clamp(bias.nn_value + shift, -decisive, decisive);
    *win = (decisive + corrected) / 2;
    *loss = (decisive - corrected) / 2;
  }
  bias.own_value = static_cast<std::int32_t>(Fixed(*win) - Fixed(*loss));
  return bias;
}

void TreeSearch::FinishBiasedPlayout(Node& node, const NodeBias& bias, std::int64_t win,
                                     std::int64_t loss, std::int64_t score) {
  core::MutexLock lock(bias_table_->Shard(bias.slot));
  const float exponent = params_.value_bias_exponent;
  const BiasContribution before = NodeContribution(node, bias, exponent);
  node.FinishPlayout(win, loss, score, shared_);
  bias_table_->Replace(bias.slot, before, NodeContribution(node, bias, exponent));
}

void TreeSearch::BackupProven(const std::vector<std::uint32_t>& path, const Node& node) {
  const float v = ProvenValue(node);
  const int size = tree_.root_position().size();
  // The exact margin where the solver found it; a proof by win/draw/loss alone keeps the
  // node's expected margin so far.
  const float score = node.exact.load(kRelaxed)
                          ? static_cast<float>(node.exact_score.load(kRelaxed)) / (size * size)
                          : node.ScoreMean(0.0f);
  Backup(path, v > 0 ? 1.0f : 0.0f, v < 0 ? 1.0f : 0.0f, score);
}

TreeSearch::Descent TreeSearch::Descend(PendingLeaf& leaf) {
  leaf.path.clear();
  std::uint32_t index = tree_.root_index();
  leaf.path.push_back(index);
  core::Position pos = tree_.root_position();
  // The root's own counters are not touched by playouts (every playout would write the
  // same cache line from every thread); its statistics are its children's.
  while (true) {
    Node& node = tree_.node(index);
    if (node.proven.load(std::memory_order_acquire) != Proven::kUnknown) {
      BackupProven(leaf.path, node);
      return Descent::kBackedUp;
    }
    NodeState state = node.state.load(std::memory_order_acquire);
    if (state == NodeState::kUnexpanded) {
      if (!node.state.compare_exchange_strong(state, NodeState::kExpanding,
                                              std::memory_order_acq_rel)) {
        CancelPath(leaf.path);
        return Descent::kCollision;
      }
      if (SolveLeaf(node, pos)) {
        node.state.store(NodeState::kUnexpanded, std::memory_order_release);
        BackupProven(leaf.path, node);
        PropagateProof(leaf.path);
        return Descent::kBackedUp;
      }
      leaf.position = pos;
      return Descent::kLeaf;
    }
    if (state == NodeState::kExpanding) {
      CancelPath(leaf.path);
      return Descent::kCollision;
    }
    index = SelectChild(index, leaf.path.size() == 1);
    Node& child = tree_.node(index);
    child.BeginPlayout(shared_);
    leaf.path.push_back(index);
    pos = pos.Play(child.move);
  }
}

float ExplorationStdevFactor(const SearchParams& params, double visits, double value_sum,
                             double square_sum) {
  if (params.cpuct_stdev_scale <= 0) return 1.0f;
  const double prior = params.cpuct_stdev_prior, weight = params.cpuct_stdev_prior_weight;
  double stdev = prior;
  if (visits > 1) {
    const double mean = value_sum / visits;
    const double variance = std::max(0.0, square_sum / visits - mean * mean);
    stdev = std::sqrt((variance * visits + prior * prior * weight) / (visits + weight - 1));
  }
  return static_cast<float>(1.0 + params.cpuct_stdev_scale * (stdev / prior - 1.0));
}

std::uint32_t TreeSearch::SelectChild(std::uint32_t parent_index, bool at_root) {
  if (at_root && params_.gumbel && full_) return SelectGumbelChild();
  const Node& parent = tree_.node(parent_index);
  const std::uint32_t first = parent.first_child;
  const int count = parent.num_children;
  const Node* children = &tree_.node(first);
  // Children's visits add up to the parent's (less its own evaluation).
  std::uint32_t total = 0;
  const bool spread = params_.cpuct_stdev_scale > 0;
  double visits = 0, value_sum = 0, square_sum = 0;  // of the parent's values, for `spread`
  if (at_root) {
    // The root's own statistics are its children's (Backup stops below it).
    for (int i = 0; i < count; ++i) {
      std::uint32_t v, f;
      children[i].Counts(&v, &f);
      total += v + f;
      if (spread) {
        visits += v;
        value_sum += static_cast<double>(children[i].ValueSum());
        square_sum += static_cast<double>(children[i].SquareSum());
      }
    }
  } else {
    std::uint32_t parent_visits, parent_in_flight;
    parent.Counts(&parent_visits, &parent_in_flight);
    total = parent_visits + parent_in_flight;
    if (spread) {
      visits = parent_visits;
      value_sum = static_cast<double>(parent.ValueSum());
      square_sum = static_cast<double>(parent.SquareSum());
    }
  }
  float explore = params_.c_puct * std::sqrt(static_cast<float>(std::max(total, 1u)));
  if (spread) {
    explore *= ExplorationStdevFactor(params_, visits, value_sum / kValueScale,
                                      square_sum / kValueScale);
  }
  const bool forced = at_root && params_.forced_playouts && full_;
  const float score_weight = params_.score_utility;
  // One pass: visited children are scored directly; among unvisited ones, whose score
  // is fpu + explore * prior, only the one with the highest prior matters.
  std::uint32_t best = first;
  float best_score = -1e30f;
  int best_unvisited = -1;
  float visited_prior = 0;
  float best_unvisited_prior = 0;
  for (int i = 0; i < count; ++i) {
    const Node& c = children[i];
    const Proven proven = c.proven.load(kRelaxed);
    if (proven == Proven::kWin) return first + i;  // a proven winning move
    std::uint32_t visits, in_flight;
    c.Counts(&visits, &in_flight);
    const std::uint32_t n = visits + in_flight;
    if (n == 0 && proven == Proven::kUnknown) {
      if (best_unvisited < 0 || c.prior > best_unvisited_prior) {
        best_unvisited = i;
        best_unvisited_prior = c.prior;
      }
      if (forced) return first + i;  // every child gets a forced playout first
      continue;
    }
    visited_prior += c.prior;
    // Virtual loss: each playout under way counts as a loss.
    float q = (static_cast<float>(c.ValueSum()) - static_cast<float>(in_flight) * kValueScale) /
              (static_cast<float>(kValueScale) * n);
    if (score_weight != 0) {  // the score utility (playouts under way add no margin)
      q += score_weight * static_cast<float>(c.ScoreSum()) / (static_cast<float>(kValueScale) * n);
    }
    if (proven == Proven::kLoss) q = -10.0f;
    float score = q + explore * c.prior / (1.0f + n);
    if (forced && proven != Proven::kLoss && n < ForcedPlayouts(c, total)) {
      score = 1e20f - static_cast<float>(n);
    }
    if (score > best_score) {
      best_score = score;
      best = first + i;
    }
  }
  if (best_unvisited >= 0) {
    const float reduction = at_root ? params_.root_fpu_reduction : params_.fpu_reduction;
    float fpu = -parent.Q(0.0f) - reduction * std::sqrt(visited_prior);
    if (score_weight != 0) fpu -= score_weight * parent.ScoreMean(0.0f);
    if (fpu + explore * best_unvisited_prior > best_score) {
      return first + best_unvisited;
    }
  }
  return best;
}

bool TreeSearch::Expand(std::uint32_t index, const core::Position& position,
                        const EvalOutput& eval, NodePool::Cursor& cursor, const NodeBias* bias) {
  Node& node = tree_.node(index);
  const core::Bitboard legal = position.LegalMoves();
  const int count = legal ? core::PopCount(legal) : 1;
  const std::int64_t block = tree_.pool().Allocate(count, cursor);
  if (block < 0) {  // the pool is full: keep the value, stop the search
    stop_.store(true, kRelaxed);
    node.state.store(NodeState::kUnexpanded, std::memory_order_release);
    return false;
  }
  if (!legal) {
    Node& pass = tree_.node(block);
    pass.move = static_cast<std::int8_t>(core::kPass);
    pass.prior = 1.0f;
  } else {
    float sum = 0;
    core::ForEachSquare(legal, [&](core::Square sq) { sum += std::max(eval.policy[sq], 0.0f); });
    int i = 0;
    core::ForEachSquare(legal, [&](core::Square sq) {
      Node& child = tree_.node(block + i++);
      child.move = static_cast<std::int8_t>(sq);
      child.prior = sum > 0 ? std::max(eval.policy[sq], 0.0f) / sum : 1.0f / count;
    });
  }
  if (bias_nodes_) {
    std::fill_n(bias_nodes_ + block, count, NodeBias{});  // no bucket until expanded
    if (bias) bias_nodes_[index] = *bias;
  }
  node.first_child = static_cast<std::uint32_t>(block);
  node.num_children = static_cast<std::uint8_t>(count);
  node.state.store(NodeState::kExpanded, std::memory_order_release);
  return true;
}

void TreeSearch::Backup(const std::vector<std::uint32_t>& path, float win, float loss,
                        float score) {
  std::int64_t w = Fixed(win), l = Fixed(loss), m = Fixed(std::clamp(score, -1.0f, 1.0f));
  for (std::size_t i = path.size(); i-- > 1;) {  // not the root (see Descend)
    Node& node = tree_.node(path[i]);
    if (bias_nodes_ && bias_nodes_[path[i]].slot != 0) {
      FinishBiasedPlayout(node, bias_nodes_[path[i]], w, l, m);
    } else {
      node.FinishPlayout(w, l, m, shared_);
    }
    std::swap(w, l);
    m = -m;
  }
}

void TreeSearch::CancelPath(const std::vector<std::uint32_t>& path) {
  for (std::size_t i = 1; i < path.size(); ++i) tree_.node(path[i]).CancelPlayout(shared_);
}

float TreeSearch::ProvenValue(const Node& node) const {
  switch (node.proven.load(std::memory_order_acquire)) {
    case Proven::kWin: return 1.0f;
    case Proven::kLoss: return -1.0f;
    default: return 0.0f;
  }
}

bool TreeSearch::SolveLeaf(Node& node, const core::Position& position, core::Square* best_move) {
  const bool over = position.IsGameOver();
  if (!over && (params_.solver_empties <= 0 || position.EmptyCount() > params_.solver_empties)) {
    return false;
  }
  int margin;  // for the side to move
  if (over) {
    margin = core::Score(position, params_.rules).MarginFor(position.side_to_move());
  } else {
    // A timed search's solves end with its time (on a slow machine a batch of leaf
    // solves could otherwise overrun a clock); an unfinished solve proves nothing.
    core::SolveLimits limits;
    limits.stop = limits_.stop;
    if (limits_.seconds > 0) {
      limits.max_seconds = SecondsLeft();
      if (limits.max_seconds <= 0) return false;
    }
    const core::SolveResult r = core::SolveExact(position, params_.rules, limits);
    if (!r.exact()) return false;
    margin = r.score;
    if (best_move && r.best_move != core::SolveResult::kNoMove) *best_move = r.best_move;
  }
  node.exact_score.store(static_cast<std::int8_t>(-margin), kRelaxed);
  node.exact.store(true, kRelaxed);
  node.proven.store(margin < 0 ? Proven::kWin : margin > 0 ? Proven::kLoss : Proven::kDraw,
                    std::memory_order_release);
  return true;
}

void TreeSearch::PropagateProof(const std::vector<std::uint32_t>& path) {
  for (std::size_t i = path.size() - 1; i-- > 0;) {
    Node& parent = tree_.node(path[i]);
    if (parent.proven.load(std::memory_order_acquire) != Proven::kUnknown) return;
    bool any_win = false, all_known = true, all_exact = true;
    Proven best = Proven::kLoss;  // for the side to move at the parent
    int best_score = -128;
    for (int c = 0; c < parent.num_children; ++c) {
      const Node& child = tree_.node(parent.first_child + c);
      const Proven p = child.proven.load(std::memory_order_acquire);
      if (p == Proven::kUnknown) {
        all_known = false;
        continue;
      }
      any_win |= p == Proven::kWin;
      if (static_cast<int>(p) > static_cast<int>(best)) best = p;
      if (child.exact.load(kRelaxed)) {
        best_score = std::max<int>(best_score, child.exact_score.load(kRelaxed));
      } else {
        all_exact = false;
      }
    }
    if (!any_win && !all_known) return;
    if (all_known && all_exact) {
      parent.exact_score.store(static_cast<std::int8_t>(-best_score), kRelaxed);
      parent.exact.store(true, kRelaxed);
    }
    parent.proven.store(Flip(best), std::memory_order_release);
  }
}

}  // namespace othello::mcts
