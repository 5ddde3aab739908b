// The root's set-up (Begin; a self-play search's root evaluated in the caller's batch),
// root methods (noise, forced playouts, Gumbel sequential halving), results and the
// move choice (see search.h).
#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/rng.h"
#include "mcts/search.h"

namespace othello::mcts {
namespace {

constexpr auto kRelaxed = std::memory_order_relaxed;

// Gamma(alpha, 1) by Marsaglia and Tsang (2000), boosted for alpha < 1.
double SampleGamma(core::Rng& rng, double alpha) {
  if (alpha < 1.0) {
    const double u = std::max(rng.Uniform(), 1e-300);
    return SampleGamma(rng, alpha + 1.0) * std::pow(u, 1.0 / alpha);
  }
  const double d = alpha - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
  while (true) {
    double x, v;
    do {
      // Standard normal by Box-Muller.
      const double u1 = std::max(rng.Uniform(), 1e-300), u2 = rng.Uniform();
      x = std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
      v = 1.0 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const double u = std::max(rng.Uniform(), 1e-300);
    if (std::log(u) < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v;
  }
}

}  // namespace

float SearchParams::Temperature(int ply) const {
  return temperature_end + (temperature_start - temperature_end) *
                               std::pow(0.5f, static_cast<float>(ply) / temperature_halflife);
}

bool TreeSearch::DrawFullSearch() {
  return rng_.Uniform() < params_.full_search_probability;
}

void TreeSearch::BeginSelfPlayMove() {
  const bool full = DrawFullSearch();
  SearchLimits limits;
  limits.playouts = full ? params_.full_visits : params_.fast_visits;
  Restart(limits, full);
  // The root's evaluation joins the caller's next batch (GatherRoot): no call of its own.
  root_pending_ = RootNeedsEvaluation();
  if (!root_pending_) StartRootMethods();
}

void TreeSearch::Begin(const SearchLimits& limits, bool full) {
  Restart(limits, full);
  if (RootNeedsEvaluation()) {
    EvalBatch batch;
    batch.Add(tree_.root_position());
    evaluator_.Evaluate(batch);
    ExpandRoot(batch.output(0));
  }
  StartRootMethods();
}

void TreeSearch::Restart(const SearchLimits& limits, bool full) {
  limits_ = limits;
  full_ = full;
  shared_ = true;
  root_pending_ = false;
  started_.store(0, kRelaxed);
  finished_.store(0, kRelaxed);
  collisions_.store(0, kRelaxed);
  stop_.store(false, kRelaxed);
  start_ = std::chrono::steady_clock::now();
  if (params_.value_bias > 0) tree_.EnableValueBias();
  bias_table_ = tree_.value_bias();
  bias_nodes_ = tree_.bias_nodes();
  saved_priors_.clear();
  root_solved_move_ = core::kPass;
}

bool TreeSearch::RootNeedsEvaluation() {
  Node& root = tree_.root();
  const NodeState state = root.state.load(std::memory_order_acquire);
  if (root.proven.load(std::memory_order_acquire) != Proven::kUnknown &&
      state == NodeState::kExpanded) {
    return false;
  }
  return state != NodeState::kUnexpanded ||
         !SolveLeaf(root, tree_.root_position(), &root_solved_move_);
}

void TreeSearch::ExpandRoot(const EvalOutput& eval) {
  root_eval_ = eval;
  Node& root = tree_.root();
  if (root.state.load(std::memory_order_acquire) != NodeState::kUnexpanded) return;
  const core::Position& pos = tree_.root_position();
  root.state.store(NodeState::kExpanding, std::memory_order_relaxed);
  NodePool::Cursor cursor;
  if (Expand(tree_.root_index(), pos, root_eval_, cursor)) {
    const float area = static_cast<float>(pos.size() * pos.size());
    const float score = root_eval_.has_aux ? -root_eval_.disc_difference / area : 0.0f;
    root.FinishPlayout(std::llround(root_eval_.loss * kValueScale),
                       std::llround(root_eval_.win * kValueScale),
                       std::llround(std::clamp(score, -1.0f, 1.0f) * kValueScale),
                       /*shared=*/false, /*begun=*/false);
  }
}

void TreeSearch::StartRootMethods() {
  const Node& root = tree_.root();
  if (root.state.load(std::memory_order_acquire) != NodeState::kExpanded) return;
  for (int i = 0; i < root.num_children; ++i) {
    saved_priors_.push_back(tree_.node(root.first_child + i).prior);
  }
  if (full_ && params_.root_policy_temperature != 1.0f) ApplyRootPolicyTemperature();
  if (full_ && params_.dirichlet_noise) ApplyDirichletNoise();
  if (full_ && params_.gumbel) StartGumbel();
}

void TreeSearch::ApplyRootPolicyTemperature() {
  Node& root = tree_.root();
  const int n = root.num_children;
  if (n < 2) return;
  const double inverse = 1.0 / params_.root_policy_temperature;
  std::vector<double> weight(n);
  double sum = 0;
  for (int i = 0; i < n; ++i) {
    const double p = std::max(static_cast<double>(tree_.node(root.first_child + i).prior), 0.0);
    sum += (weight[i] = p > 0 ? std::pow(p, inverse) : 0.0);
  }
  if (sum <= 0) return;
  for (int i = 0; i < n; ++i) {
    tree_.node(root.first_child + i).prior = static_cast<float>(weight[i] / sum);
  }
}

void TreeSearch::GatherRoot(EvalBatch& batch, LeafBuffer& leaves) {
  PendingLeaf& leaf = leaves.Next();
  leaf.path.assign(1, tree_.root_index());
  leaf.position = tree_.root_position();
  batch.Add(leaf.position);
}

void TreeSearch::ApplyRoot(const EvalOutput& eval) {
  root_pending_ = false;
  ExpandRoot(eval);
  StartRootMethods();
}

void TreeSearch::ApplyDirichletNoise() {
  Node& root = tree_.root();
  const int n = root.num_children;
  if (n < 2) return;
  const double alpha = params_.dirichlet_total / n;
  std::vector<double> noise(n);
  double sum = 0;
  for (double& x : noise) sum += (x = SampleGamma(rng_, alpha));
  if (sum <= 0) return;
  const float eps = params_.dirichlet_fraction;
  for (int i = 0; i < n; ++i) {
    Node& child = tree_.node(root.first_child + i);
    child.prior = (1 - eps) * child.prior + eps * static_cast<float>(noise[i] / sum);
  }
}

float TreeSearch::ForcedPlayouts(const Node& child, std::uint32_t total) const {
  return std::sqrt(params_.forced_playout_k * child.prior * static_cast<float>(total));
}

// --- Gumbel root selection (Danihelka et al. 2022) ---------------------------------

void TreeSearch::StartGumbel() {
  core::MutexLock lock(root_mutex_);
  const Node& root = tree_.root();
  const int n = root.num_children;
  gumbel_.assign(n, 0.0f);
  for (int i = 0; i < n; ++i) {
    const double u = std::clamp(rng_.Uniform(), 1e-12, 1.0 - 1e-12);
    const float g = static_cast<float>(-std::log(-std::log(u)));
    gumbel_[i] = g + std::log(std::max(tree_.node(root.first_child + i).prior, 1e-12f));
  }
  considered_.resize(n);
  std::iota(considered_.begin(), considered_.end(), 0);
  const int m = std::max(1, std::min(params_.gumbel_actions, n));
  std::partial_sort(considered_.begin(), considered_.begin() + m, considered_.end(),
                    [&](int a, int b) REQUIRES(root_mutex_) { return gumbel_[a] > gumbel_[b]; });
  considered_.resize(m);
  phases_left_ = std::max(1, static_cast<int>(std::ceil(std::log2(m))));
  AdvanceGumbelPhase();
}

// Sets the visit quota of each considered action for the next phase.
void TreeSearch::AdvanceGumbelPhase() {
  const Node& root = tree_.root();
  const std::uint64_t budget = limits_.playouts ? limits_.playouts : params_.full_visits;
  const int phases = std::max(1, static_cast<int>(std::ceil(std::log2(
                                     std::max(1, std::min<int>(params_.gumbel_actions,
                                                               root.num_children))))));
  const auto per_action = static_cast<std::uint32_t>(
      std::max<std::uint64_t>(1, budget / (phases * considered_.size())));
  quota_.resize(considered_.size());
  for (std::size_t i = 0; i < considered_.size(); ++i) {
    const Node& c = tree_.node(root.first_child + considered_[i]);
    // The last phase gives the remaining budget to what is left.
    quota_[i] = phases_left_ <= 1 || considered_.size() == 1
                    ? ~0u
                    : c.Visits() + c.InFlight() + per_action;
  }
}

std::vector<float> TreeSearch::CompletedQ() const {
  const Node& root = tree_.root();
  const int n = root.num_children;
  float visited_prior = 0, weighted_q = 0;
  std::uint32_t total = 0;
  for (int i = 0; i < n; ++i) {
    const Node& c = tree_.node(root.first_child + i);
    const std::uint32_t v = c.Visits();
    total += v;
    if (v) {
      visited_prior += c.prior;
      weighted_q += c.prior * Utility(c);
    }
  }
  // The root's own evaluation, for the side to move at the root.
  const int size = tree_.root_position().size();
  const float v_hat = root_eval_.value() + (root_eval_.has_aux ? params_.score_utility *
                                                                     root_eval_.disc_difference /
                                                                     (size * size)
                                                               : 0.0f);
  const float v_mix = visited_prior > 0
                          ? (v_hat + total * weighted_q / visited_prior) / (1.0f + total)
                          : v_hat;
  std::vector<float> q(n);
  for (int i = 0; i < n; ++i) {
    const Node& c = tree_.node(root.first_child + i);
    q[i] = ((c.Visits() ? Utility(c) : v_mix) + 1.0f) * 0.5f;  // in [0, 1] (without a score)
  }
  return q;
}

// The scale of sigma(q) = (c_visit + max_b N(b)) * c_scale * q.
float TreeSearch::GumbelSigma() const {
  const Node& root = tree_.root();
  std::uint32_t max_visits = 0;
  for (int i = 0; i < root.num_children; ++i) {
    max_visits = std::max(max_visits, tree_.node(root.first_child + i).Visits());
  }
  return (params_.gumbel_c_visit + max_visits) * params_.gumbel_c_scale;
}

std::uint32_t TreeSearch::SelectGumbelChild() {
  core::MutexLock lock(root_mutex_);
  const Node& root = tree_.root();
  while (true) {
    int pick = -1;
    std::uint32_t fewest = ~0u;
    for (std::size_t i = 0; i < considered_.size(); ++i) {
      const Node& c = tree_.node(root.first_child + considered_[i]);
      const std::uint32_t n = c.Visits() + c.InFlight();
      if (n < quota_[i] && n < fewest) {
        fewest = n;
        pick = static_cast<int>(i);
      }
    }
    if (pick >= 0) return root.first_child + considered_[pick];
    // Every quota is met: keep the better half by g + logit + sigma(q).
    const std::vector<float> q = CompletedQ();
    const float sigma = GumbelSigma();
    std::sort(considered_.begin(), considered_.end(), [&](int a, int b) REQUIRES(root_mutex_) {
      return gumbel_[a] + sigma * q[a] > gumbel_[b] + sigma * q[b];
    });
    considered_.resize(std::max<std::size_t>(1, (considered_.size() + 1) / 2));
    phases_left_ = std::max(1, phases_left_ - 1);
    AdvanceGumbelPhase();
  }
}

// --- Results -------------------------------------------------------------------------

float TreeSearch::Utility(const Node& child) const {
  return child.Q(0) + params_.score_utility * child.ScoreMean(0);
}

void TreeSearch::RootValue(float* win, float* loss, float* score) const {
  // The root's own evaluation (its statistics are the opponent's) and its children's.
  const Node& root = tree_.root();
  float w = 0, l = 0;
  root.MeanWinLoss(&l, &w);
  double visits = root.Visits(), win_sum = w * visits, loss_sum = l * visits;
  double score_sum = -static_cast<double>(root.ScoreSum()) / kValueScale;
  if (root.state.load(std::memory_order_acquire) == NodeState::kExpanded) {
    for (int i = 0; i < root.num_children; ++i) {
      const Node& c = tree_.node(root.first_child + i);
      c.MeanWinLoss(&w, &l);
      win_sum += static_cast<double>(w) * c.Visits();
      loss_sum += static_cast<double>(l) * c.Visits();
      score_sum += static_cast<double>(c.ScoreSum()) / kValueScale;
      visits += c.Visits();
    }
  }
  *win = visits ? static_cast<float>(win_sum / visits) : 0.0f;
  *loss = visits ? static_cast<float>(loss_sum / visits) : 0.0f;
  *score = visits ? static_cast<float>(score_sum / visits) : 0.0f;
}

std::vector<float> TreeSearch::PrunedVisits() const {
  const Node& root = tree_.root();
  const int n = root.num_children;
  std::vector<float> weight(n, 0.0f);
  std::uint32_t total = 0;
  int best = 0;
  double value_sum = 0, square_sum = 0;
  for (int i = 0; i < n; ++i) {
    const Node& c = tree_.node(root.first_child + i);
    weight[i] = static_cast<float>(c.Visits());
    total += c.Visits();
    value_sum += static_cast<double>(c.ValueSum());
    square_sum += static_cast<double>(c.SquareSum());
    if (weight[i] > weight[best]) best = i;
  }
  if (!params_.forced_playouts || !full_ || n == 0) return weight;
  // Take away forced playouts that the child would not have received by PUCT against the
  // best child (KataGo), with the selection's c_puct.
  const Node& b = tree_.node(root.first_child + best);
  const float explore = params_.c_puct * std::sqrt(static_cast<float>(std::max(total, 1u))) *
                        ExplorationStdevFactor(params_, total, value_sum / kValueScale,
                                               square_sum / kValueScale);
  const float best_puct = Utility(b) + explore * b.prior / (1.0f + weight[best]);
  for (int i = 0; i < n; ++i) {
    if (i == best || weight[i] == 0) continue;
    const Node& c = tree_.node(root.first_child + i);
    const float gap = best_puct - Utility(c);
    float keep = weight[i];
    if (gap > 0) {
      const float needed = std::ceil(explore * c.prior / gap - 1.0f);
      keep = std::max(weight[i] - ForcedPlayouts(c, total), std::min(weight[i], needed));
    }
    weight[i] = keep <= 1.0f ? 0.0f : keep;
  }
  return weight;
}

std::vector<float> TreeSearch::PolicyTarget() const {
  const Node& root = tree_.root();
  const int size = tree_.root_position().size();
  std::vector<float> target(size * size + 1, 0.0f);
  const int n = root.num_children;
  if (n == 0) return target;
  std::vector<float> weight(n, 0.0f);
  if (params_.gumbel) {
    // Improved policy: softmax(logit + sigma(completed Q)).
    const std::vector<float> q = CompletedQ();
    const float sigma = GumbelSigma();
    float top = -1e30f;
    for (int i = 0; i < n; ++i) {
      const float prior = saved_priors_.empty() ? tree_.node(root.first_child + i).prior
                                                : saved_priors_[i];
      weight[i] = std::log(std::max(prior, 1e-12f)) + sigma * q[i];
      top = std::max(top, weight[i]);
    }
    for (float& w : weight) w = std::exp(w - top);
  } else {
    weight = PrunedVisits();
  }
  const float sum = std::accumulate(weight.begin(), weight.end(), 0.0f);
  for (int i = 0; i < n; ++i) {
    const Node& c = tree_.node(root.first_child + i);
    target[PolicyIndex(c.move, size)] = sum > 0 ? weight[i] / sum : 1.0f / n;
  }
  return target;
}

std::vector<ExploredNode> TreeSearch::ExploredNodes(std::uint32_t min_visits,
                                                     core::Square skip) const {
  std::vector<ExploredNode> out;
  const int size = tree_.root_position().size();
  const float area = static_cast<float>(size * size);
  min_visits = std::max<std::uint32_t>(min_visits, 2);
  // Depth first; a node's visits bound its descendants', so a light node ends the walk.
  struct Pending {
    std::uint32_t index;
    core::Position position;
  };
  std::vector<Pending> stack;
  const auto push_children = [&](std::uint32_t index, const core::Position& position,
                                 bool at_root) {
    const Node& node = tree_.node(index);
    if (node.state.load(std::memory_order_acquire) != NodeState::kExpanded) return;
    for (int i = 0; i < node.num_children; ++i) {
      const std::uint32_t c = node.first_child + i;
      const Node& child = tree_.node(c);
      if (at_root && child.move == skip) continue;
      if (child.Visits() < min_visits) continue;
      stack.push_back({c, position.Play(child.move)});
    }
  };
  push_children(tree_.root_index(), tree_.root_position(), true);
  while (!stack.empty()) {
    const Pending p = stack.back();
    stack.pop_back();
    const Node& node = tree_.node(p.index);
    push_children(p.index, p.position, false);
    if (p.position.MustPass() || p.position.IsGameOver()) continue;
    if (node.state.load(std::memory_order_acquire) != NodeState::kExpanded) continue;
    ExploredNode e;
    e.position = p.position;
    e.policy.assign(size * size + 1, 0.0f);
    double total = 0;
    for (int i = 0; i < node.num_children; ++i) total += tree_.node(node.first_child + i).Visits();
    if (total <= 0) continue;
    for (int i = 0; i < node.num_children; ++i) {
      const Node& c = tree_.node(node.first_child + i);
      e.policy[PolicyIndex(c.move, size)] = static_cast<float>(c.Visits() / total);
    }
    // The node's statistics are for the player who moved into it: the other side.
    float mover_win = 0, mover_loss = 0;
    node.MeanWinLoss(&mover_win, &mover_loss);
    e.win = mover_loss;
    e.loss = mover_win;
    e.draw = std::max(0.0f, 1.0f - e.win - e.loss);
    e.score = -node.ScoreMean(0) * area;
    e.visits = node.Visits();
    if (node.proven.load(std::memory_order_acquire) != Proven::kUnknown &&
        node.exact.load(kRelaxed)) {
      e.exact = true;
      e.exact_score = -node.exact_score.load(kRelaxed);
    }
    out.push_back(std::move(e));
  }
  return out;
}

int LcbChoice(const std::vector<ChildValue>& children, int most, float stdevs, float min_share) {
  const auto bound = [stdevs](const ChildValue& c) {
    return c.mean - stdevs * std::sqrt(c.variance / static_cast<float>(c.visits));
  };
  const float least = std::max(2.0f, min_share * static_cast<float>(children[most].visits));
  int best = most;
  float best_bound = children[most].visits >= least && !children[most].excluded
                         ? bound(children[most])
                         : -1e30f;
  for (std::size_t i = 0; i < children.size(); ++i) {
    const ChildValue& c = children[i];
    if (static_cast<int>(i) == most || c.excluded || static_cast<float>(c.visits) < least) continue;
    const float b = bound(c);
    if (b > best_bound) {
      best_bound = b;
      best = static_cast<int>(i);
    }
  }
  return best;
}

core::Square TreeSearch::ChooseMove(int ply) {
  const Node& root = tree_.root();
  const int n = root.num_children;
  if (n == 0) return core::kPass;
  // A proven root: the best proven child (highest exact margin among equals).
  if (root.proven.load(std::memory_order_acquire) != Proven::kUnknown) {
    int best = -1;
    for (int i = 0; i < n; ++i) {
      const Node& c = tree_.node(root.first_child + i);
      const Proven p = c.proven.load(std::memory_order_acquire);
      if (p == Proven::kUnknown) continue;
      if (best < 0) {
        best = i;
        continue;
      }
      const Node& b = tree_.node(root.first_child + best);
      const Proven bp = b.proven.load(std::memory_order_acquire);
      const int score = c.exact.load(kRelaxed) ? c.exact_score.load(kRelaxed) : -200;
      const int best_score = b.exact.load(kRelaxed) ? b.exact_score.load(kRelaxed) : -200;
      if (static_cast<int>(p) > static_cast<int>(bp) || (p == bp && score > best_score)) best = i;
    }
    if (best >= 0) return tree_.node(root.first_child + best).move;
  }
  if (params_.gumbel && full_) {
    core::MutexLock lock(root_mutex_);
    if (!considered_.empty()) {
      const std::vector<float> q = CompletedQ();
      const float sigma = GumbelSigma();
      const int best = *std::max_element(considered_.begin(), considered_.end(),
                                         [&](int a, int b) REQUIRES(root_mutex_) {
                                           return gumbel_[a] + sigma * q[a] <
                                                  gumbel_[b] + sigma * q[b];
                                         });
      return tree_.node(root.first_child + best).move;
    }
  }
  const float temperature = params_.Temperature(ply);
  // The visit counts, less the forced playouts of a full search (as the policy target):
  // a move that got only its forced playouts is never played for them.
  const std::vector<float> visits = PrunedVisits();
  std::vector<double> weight(n);
  int most = 0;
  for (int i = 0; i < n; ++i) {
    weight[i] = visits[i];
    const Node& c = tree_.node(root.first_child + i);
    const Node& m = tree_.node(root.first_child + most);
    if (weight[i] > weight[most] || (weight[i] == weight[most] && c.Q(-1) > m.Q(-1))) most = i;
  }
  if (weight[most] == 0) return tree_.node(root.first_child + most).move;
  if (temperature < 0.01f) {
    if (params_.lcb_stdevs <= 0) return tree_.node(root.first_child + most).move;
    std::vector<ChildValue> values(n);
    for (int i = 0; i < n; ++i) {
      const Node& c = tree_.node(root.first_child + i);
      values[i] = {c.Visits(), Utility(c), c.ValueVariance(),
                   c.proven.load(std::memory_order_acquire) == Proven::kLoss || visits[i] == 0};
    }
    const int chosen = LcbChoice(values, most, params_.lcb_stdevs, params_.lcb_min_visit_share);
    return tree_.node(root.first_child + chosen).move;
  }
  double sum = 0;
  for (double& w : weight) sum += (w = std::pow(w, 1.0 / temperature));
  double r = rng_.Uniform() * sum;
  for (int i = 0; i < n; ++i) {
    if ((r -= weight[i]) < 0) return tree_.node(root.first_child + i).move;
  }
  return tree_.node(root.first_child + most).move;
}

SearchResult TreeSearch::Finish(int ply) {
  SearchResult result;
  Node& root = tree_.root();
  result.full_search = full_;
  result.playouts = finished_.load(kRelaxed);
  result.collisions = collisions_.load(kRelaxed);
  result.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const Proven proven = root.proven.load(std::memory_order_acquire);
  const int area = tree_.root_position().size() * tree_.root_position().size();
  float score = 0;  // over the area
  RootValue(&result.win, &result.loss, &score);
  result.score = score * area;
  if (proven != Proven::kUnknown) {
    result.proven = true;
    result.exact = root.exact.load(kRelaxed);
    result.exact_score = -root.exact_score.load(kRelaxed);
    if (result.exact) result.score = static_cast<float>(result.exact_score);
    result.has_score = result.exact;
    result.win = proven == Proven::kLoss ? 1.0f : 0.0f;  // root stats are the opponent's
    result.loss = proven == Proven::kWin ? 1.0f : 0.0f;
  }
  result.draw = std::max(0.0f, 1.0f - result.win - result.loss);
  result.q = result.win - result.loss;
  result.has_score = result.has_score || root_eval_.has_aux;
  if (root.state.load(std::memory_order_acquire) == NodeState::kExpanded) {
    for (int i = 0; i < root.num_children; ++i) {
      const Node& c = tree_.node(root.first_child + i);
      result.children.push_back({c.move, c.Visits(),
                                 saved_priors_.empty() ? c.prior : saved_priors_[i], c.Q(0),
                                 c.ScoreMean(0) * area});
    }
    if (full_) result.policy_target = PolicyTarget();
    result.move = ChooseMove(ply);
    // Principal variation: the move chosen, then most visits down the tree.
    const Node* node = &root;
    while (node->state.load(std::memory_order_acquire) == NodeState::kExpanded &&
           node->num_children > 0) {
      const bool at_root = node == &root;
      const Node* best = nullptr;
      for (int i = 0; i < node->num_children; ++i) {
        const Node& c = tree_.node(node->first_child + i);
        if (at_root ? c.move == result.move : (!best || c.Visits() > best->Visits())) best = &c;
      }
      if (best == nullptr || best->Visits() == 0) break;
      result.pv.push_back(best->move);
      node = best;
    }
    for (std::size_t i = 0; i < saved_priors_.size(); ++i) {
      tree_.node(root.first_child + i).prior = saved_priors_[i];
    }
  } else {
    // The root was solved without being expanded: the solver's move (or a pass).
    result.move = root_solved_move_;
  }
  return result;
}

}  // namespace othello::mcts
