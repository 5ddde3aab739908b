#pragma once
// Monte-Carlo tree search guided by an Evaluator (AlphaZero-style PUCT).
//
// A playout descends from the root by PUCT (with a first-play-urgency reduction for
// unvisited children and virtual loss for playouts under way), expands the leaf with
// the evaluator's policy and backs the evaluator's value up the path. Leaves that are
// finished games, or have at most `solver_empties` empty squares, are solved exactly
// by the core solver and their proven results propagate up (MCTS-solver, Winands et
// al. 2008); a proven root is played at once.
//
// Root methods for self-play (each optional): Dirichlet noise with concentration
// scaled by the number of legal moves; forced playouts and policy-target pruning
// (KataGo, Wu 2019); Gumbel root selection with sequential halving and the
// completed-Q improved policy (Danihelka et al., ICLR 2022); playout cap
// randomisation (a fraction of full searches that yield policy targets); a
// temperature schedule for the move choice.
//
// Files: search.cpp (descent, expansion, backup, proofs), search_root.cpp (root
// set-up and its evaluation, root methods, results, move choice), search_run.cpp
// (threads, many trees per thread).
//
// Thread safety and lifetime: a TreeSearch keeps references to its Tree and its
// Evaluator, which must outlive it. One search runs from Begin() to Finish(): in
// between, Gather/Apply/Done/SecondsLeft may be called from any number of threads at
// once (RunSearch) and nothing else may touch the tree; Begin, Finish, DrawFullSearch
// and BeginSelfPlayMove are for one thread while no Gather or Apply runs (they use the
// search's generator and root state without a lock). A search begun by
// BeginSelfPlayMove whose root waits for its evaluation is driven by one thread only
// (RunSearchRound), as its first Gather and Apply finish the root's set-up without a
// lock. The node protocol is in node.h; the Gumbel root state is guarded by
// root_mutex_ during a search.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <vector>

#include "core/hash.h"
#include "core/rng.h"
#include "core/rules.h"
#include "core/thread_annotations.h"
#include "mcts/evaluator.h"
#include "mcts/tree.h"

namespace othello::mcts {

// The most empties at which any setting (search.solver_empties, an arena player's
// solver=N) lets the search solve leaves exactly: deeper solves take longer than a
// playout can wait (the solver's speed: docs/benchmarks.md).
inline constexpr int kMaxSolverEmpties = 20;

struct SearchParams {
  core::Rules rules;            // scoring of finished games and solved leaves
  // Play's and analysis's exploration constant (its measurement against 1.5:
  // docs/benchmarks.md#levers-measured-with-the-strength-benchmark). Self-play keeps 1.5
  // (training::SelfPlaySearchDefaults), the value its recipe was measured with.
  float c_puct = 0.7f;
  // KataGo's exploration scaled by the spread of the values (ExplorationStdevFactor): off
  // at 0; KataGo uses scale 0.85, prior 0.4, prior weight 2.
  float cpuct_stdev_scale = 0.0f;
  float cpuct_stdev_prior = 0.4f;
  float cpuct_stdev_prior_weight = 2.0f;
  // The score utility (after KataGo's): a child's value in the selection and the move
  // choice is P(win) - P(loss) plus this times its expected final margin over the board's
  // area (the network's disc-difference head; exact margins where the solver proves
  // them), so that among moves of equal value the larger margin is preferred. 0: off
  // (win/draw/loss alone; evaluators without the head give no margin).
  float score_utility = 0.0f;
  // KataGo's subtree value-bias correction (mcts/value_bias.h): a new leaf's value moves
  // by this fraction of the mean error (subtree mean less the evaluator's value) that
  // its move's local context has shown in the tree this game. 0: off (no table is made);
  // KataGo uses 0.35.
  float value_bias = 0.0f;
  // Each node's error weighs (visits - 1)^this in its context's mean (KataGo: 0.8).
  float value_bias_exponent = 0.8f;
  float fpu_reduction = 0.2f;   // unvisited child's value: parent's minus this * sqrt(visited prior)
  float root_fpu_reduction = 0.0f;
  int solver_empties = 10;      // solve leaves with at most this many empties (0: never;
                                // at most kMaxSolverEmpties)
  int leaves_per_batch = 16;    // leaves a thread gathers per evaluator call
  int threads = 1;              // threads on one tree (RunSearch)

  // Root methods for self-play, off by default (play and analysis); self-play's defaults
  // are training/config.h's SelfPlaySearchDefaults().
  bool dirichlet_noise = false;
  float dirichlet_total = 10.0f;     // concentration alpha = total / number of legal moves
  float dirichlet_fraction = 0.25f;
  bool forced_playouts = false;      // with policy-target pruning
  float forced_playout_k = 2.0f;
  bool gumbel = false;               // Gumbel root selection (sequential halving)
  int gumbel_actions = 16;           // actions sampled at the root (m)
  float gumbel_c_visit = 50.0f;
  float gumbel_c_scale = 1.0f;
  // KataGo's root policy temperature: a full search's root priors become p^(1/T),
  // renormalised, before the noise (above 1: flatter, more exploration of the
  // network's unlikely moves); the policy target and the recorded priors are unchanged.
  float root_policy_temperature = 1.0f;
  // Move choice: temperature start -> end, halving every `temperature_halflife` plies.
  float temperature_start = 0.0f;    // 0: most visits
  float temperature_end = 0.0f;
  float temperature_halflife = 8.0f;
  // The final move's choice without temperature: the most visits or, with lcb_stdevs
  // above 0, the lower confidence bound of the value (LcbChoice below; play sets it,
  // play::kPlayLcbStdevs).
  float lcb_stdevs = 0.0f;
  float lcb_min_visit_share = 0.1f;  // of the most visited move's visits
  // Playout cap randomisation: a search is full with this probability (full_visits,
  // noise, policy target), otherwise fast (fast_visits, no root methods). full_visits
  // is also a Gumbel search's budget when its limits set no playouts.
  float full_search_probability = 1.0f;
  std::uint64_t full_visits = 800;
  std::uint64_t fast_visits = 100;

  float Temperature(int ply) const;
};

// The factor on c_puct at a node whose backed-up values number `visits` with these sums
// (in value units, [-1, 1] each): 1 + scale * (stdev / prior - 1), where stdev is the
// values' standard deviation shrunk towards cpuct_stdev_prior with the weight of
// cpuct_stdev_prior_weight playouts, sqrt((variance * visits + prior^2 * weight) /
// (visits + weight - 1)) (after KataGo's cpuctUtilityStdevScale). A node whose values
// disagree explores more, one whose values agree less. 1 when the scale is 0 or the node
// has at most one value.
float ExplorationStdevFactor(const SearchParams& params, double visits, double value_sum,
                             double square_sum);

// A root child's statistics for the move choice.
struct ChildValue {
  std::uint32_t visits = 0;
  float mean = 0;         // value for the mover (with the score utility, if any)
  float variance = 0;     // of the values backed up through it
  bool excluded = false;  // a proven loss for the mover: never chosen by its bound
};

// Lower-confidence-bound move choice (as Leela Zero's and KataGo's): among the children
// with at least `min_share` of the most visited child's visits (and at least 2), the one
// whose mean - stdevs * sqrt(variance / visits) is highest. `most` (the most visited
// child) is kept unless another's bound is strictly higher.
int LcbChoice(const std::vector<ChildValue>& children, int most, float stdevs, float min_share);

struct SearchLimits {
  std::uint64_t playouts = 0;        // playouts this search (0: unlimited)
  std::uint64_t tree_nodes = 0;      // stop when the tree holds this many nodes (0: pool size)
  double seconds = 0;                // wall time (0: unlimited)
  const std::atomic<bool>* stop = nullptr;  // set from any thread to stop
};

struct SearchResult {
  core::Square move = core::kPass;
  struct Child {
    core::Square move;
    std::uint32_t visits;
    float prior;
    float q;  // mean value for the side to move at the root, in [-1, 1]
    float score;  // expected final margin in discs for the side to move at the root
  };
  std::vector<Child> children;
  std::vector<float> policy_target;  // size*size + 1 entries; empty after a fast search
  float win = 0, draw = 0, loss = 0;  // root value for the side to move
  float q = 0;                        // win - loss
  float score = 0;  // expected final margin in discs (the exact one when `exact`)
  // The evaluator gave margins (its disc-difference head: EvalOutput::has_aux), or the
  // root is solved exactly: `score` and the children's are margins, not 0 or partial.
  bool has_score = false;
  std::vector<core::Square> pv;
  bool proven = false;   // the root's result is known exactly (win/draw/loss)
  bool exact = false;    // ... and so is its final margin
  int exact_score = 0;   // margin for the side to move when exact
  bool full_search = true;
  std::uint64_t playouts = 0;
  std::uint64_t collisions = 0;  // descents abandoned at a leaf another playout expands
  double seconds = 0;
};

// A position the search explored: a node of the tree other than the root, with its own
// search statistics (for training samples from side positions, OLIVAW's idea).
struct ExploredNode {
  core::Position position;          // the node's position
  std::vector<float> policy;        // its children's visit shares (size*size + 1 entries)
  float win = 0, draw = 0, loss = 0;  // its subtree's mean value, for its side to move
  float score = 0;                  // expected final margin in discs, for its side to move
  bool exact = false;               // the solver proved its final margin ...
  int exact_score = 0;              // ... this, for its side to move
  std::uint32_t visits = 0;
};

// A leaf waiting for its evaluation: the path of node indices from the root, and the
// position at its end. Owned by the thread that gathered it.
struct PendingLeaf {
  std::vector<std::uint32_t> path;
  core::Position position;
};

// One thread's reusable storage for the leaves of a gather round (keeps the paths'
// capacity) and its reserved run of tree nodes.
class LeafBuffer {
 public:
  void Clear() { size_ = 0; }
  PendingLeaf& Next() {
    if (size_ == leaves_.size()) leaves_.emplace_back();
    return leaves_[size_++];
  }
  void DropLast() { --size_; }
  std::size_t size() const { return size_; }
  const PendingLeaf& operator[](std::size_t i) const { return leaves_[i]; }
  NodePool::Cursor& cursor() { return cursor_; }

 private:
  NodePool::Cursor cursor_;  // the gathering thread's reserved nodes
  std::vector<PendingLeaf> leaves_;
  std::size_t size_ = 0;
};

class TreeSearch {
 public:
  // `evaluator` evaluates the root in Begin() (BeginSelfPlayMove leaves it to the
  // caller's batch); the leaves that Gather() collects are evaluated by the caller
  // (RunSearch, RunSearchesBatched). `seed` drives noise, Gumbel and move sampling.
  TreeSearch(Tree& tree, Evaluator& evaluator, const SearchParams& params, std::uint64_t seed);

  // --- search_root.cpp: one thread, while no Gather or Apply runs --------------------

  // Prepares a search of the current root: expands it, applies the root methods of a
  // full search (full == false: a fast search, none of them), starts the clock.
  void Begin(const SearchLimits& limits, bool full = true);
  // Begin() for a self-play move: draws full or fast (playout cap randomisation) and
  // limits the search to params.full_visits or params.fast_visits playouts. A root that
  // needs an evaluation makes no evaluator call: the first Gather adds the root's position
  // alone to the caller's batch, and its Apply does the rest of Begin() (expansion, root
  // methods; the generator drawn in the same order); until then Done() is false.
  void BeginSelfPlayMove();
  // Decides full or fast for the next search (playout cap randomisation).
  bool DrawFullSearch();
  // The result; restores the root priors changed by noise. Call after the last Apply.
  SearchResult Finish(int ply);
  // The nodes other than the root (and the subtree of `skip`, a root move: the one
  // played, whose positions the game records itself) that the search visited at least
  // `min_visits` times (at least 2), whose side to move has a move (no forced pass) and
  // whose children were visited: their positions, visit distributions and values. Call
  // while no search runs (after Finish(), before the tree advances).
  std::vector<ExploredNode> ExploredNodes(std::uint32_t min_visits, core::Square skip) const;
  // Promises that until Finish() only the calling thread runs Gather and Apply (and
  // nothing else writes the tree): the node statistics are then updated without
  // locked read-modify-writes (node.h). Begin() withdraws the promise.
  void SetOneThread() { shared_ = false; }

  // --- search.cpp: any number of threads at once, between Begin() and Finish() -------

  // Gathers up to `max_leaves` leaves, appending their positions to `batch` and the
  // leaves to `leaves` (finished and solved leaves are backed up at once).
  void Gather(EvalBatch& batch, LeafBuffer& leaves, int max_leaves);
  // Expands and backs up `leaves`, whose outputs are batch.output(offset + i) (the
  // batch's evaluation has been waited for).
  void Apply(const EvalBatch& batch, int offset, LeafBuffer& leaves);
  // True when a limit is reached or the root is proven.
  bool Done() const;
  // With a time limit: the seconds it leaves (negative once past).
  double SecondsLeft() const;

  // --- Accessors: any thread ---------------------------------------------------------
  const SearchParams& params() const { return params_; }
  Tree& tree() { return tree_; }

 private:
  // How a descent ended: at a leaf to evaluate, backed up (a proven node), or at a
  // node another playout is expanding.
  enum class Descent { kLeaf, kBackedUp, kCollision };

  // search.cpp
  Descent Descend(PendingLeaf& leaf);
  void ExpandAndBackup(const PendingLeaf& leaf, const EvalOutput& eval,
                       NodePool::Cursor& cursor);
  std::uint32_t SelectChild(std::uint32_t parent, bool at_root);
  // Expands the node (false: the pool is full); `bias`, if given, becomes its value-bias
  // state before the expansion is published.
  bool Expand(std::uint32_t index, const core::Position& position, const EvalOutput& eval,
              NodePool::Cursor& cursor, const NodeBias* bias = nullptr);
  // Backs a playout's result up the path (not into the root): win/loss probabilities and
  // the final margin over the area, for the player who moved into the path's last node.
  void Backup(const std::vector<std::uint32_t>& path, float win, float loss, float score);
  // A new leaf's value-bias state (value_bias.h): its bucket and evaluator value; moves
  // `win` and `loss` (for the mover into it) by params_.value_bias times its bucket's
  // bias, and records the value they back up.
  NodeBias StartValueBias(const PendingLeaf& leaf, float* win, float* loss);
  // Node::FinishPlayout for a node with a bucket: with its slot's shard held, and its
  // error in the bucket replaced by the new one.
  void FinishBiasedPlayout(Node& node, const NodeBias& bias, std::int64_t win,
                           std::int64_t loss, std::int64_t score);
  // Backs up the result of a proven node at the path's end.
  void BackupProven(const std::vector<std::uint32_t>& path, const Node& node);
  void CancelPath(const std::vector<std::uint32_t>& path);
  // Proves a finished or small enough position; `best_move`, if given, receives the
  // solver's move (kPass when none).
  bool SolveLeaf(Node& node, const core::Position& position, core::Square* best_move = nullptr);
  void PropagateProof(const std::vector<std::uint32_t>& path);
  float ProvenValue(const Node& node) const;

  // search_root.cpp
  void Restart(const SearchLimits& limits, bool full);  // a new search's counters, clock
  // Whether the root needs an evaluation (also after tree reuse, for Gumbel's value
  // estimate): not when it is proven and expanded, or solved now.
  bool RootNeedsEvaluation();
  void ExpandRoot(const EvalOutput& eval);  // keeps the root's evaluation, expands it
  void StartRootMethods();                  // saves the priors; a full search's noise, Gumbel
  void GatherRoot(EvalBatch& batch, LeafBuffer& leaves);  // a waiting root, as a leaf
  void ApplyRoot(const EvalOutput& eval);                  // its evaluation: the set-up's rest
  void ApplyDirichletNoise();
  void ApplyRootPolicyTemperature();
  void StartGumbel() EXCLUDES(root_mutex_);
  std::uint32_t SelectGumbelChild() EXCLUDES(root_mutex_);
  void AdvanceGumbelPhase() REQUIRES(root_mutex_);
  float ForcedPlayouts(const Node& child, std::uint32_t total) const;
  std::vector<float> CompletedQ() const;
  float GumbelSigma() const;
  // A child's mean value with the score utility (params_.score_utility), for its mover.
  float Utility(const Node& child) const;
  // The root's mean win and loss probabilities and final margin over the area, for the
  // side to move at the root.
  void RootValue(float* win, float* loss, float* score) const;
  // The root children's visits; in a full search with forced playouts, less those that
  // PUCT against the most visited child would not have given (KataGo's pruning).
  std::vector<float> PrunedVisits() const;
  std::vector<float> PolicyTarget() const;
  core::Square ChooseMove(int ply) EXCLUDES(root_mutex_);

  Tree& tree_;
  Evaluator& evaluator_;
  const SearchParams params_;
  core::Rng rng_;                      // used by Begin, DrawFullSearch and Finish only
  // Set by Begin(), read-only during the search.
  SearchLimits limits_;
  bool full_ = true;
  bool shared_ = true;                 // several threads may run Gather/Apply (SetOneThread)
  // The root waits for its evaluation: set by BeginSelfPlayMove, cleared by the first
  // Apply, read by Gather and Done, all on the one thread driving the search.
  bool root_pending_ = false;
  std::chrono::steady_clock::time_point start_;
  // The tree's value-bias state (Tree::value_bias(), bias_nodes()), null when it has
  // none; set by Restart(), read-only during the search.
  ValueBiasTable* bias_table_ = nullptr;
  NodeBias* bias_nodes_ = nullptr;
  // Counters written by every search thread, on their own cache line so that they do
  // not invalidate the read-mostly fields above.
  alignas(64) std::atomic<std::uint64_t> started_{0};  // playouts begun (visit limit)
  std::atomic<std::uint64_t> finished_{0};
  std::atomic<std::uint64_t> collisions_{0};
  std::atomic<bool> stop_{false};      // set when the pool is full (cleared by Begin)
  [[maybe_unused]] alignas(64) char padding_ = 0;
  // Set by Begin(), read-only during the search.
  EvalOutput root_eval_;
  core::Square root_solved_move_ = core::kPass;  // when the root itself was solved
  std::vector<float> saved_priors_;    // root priors before noise

  // Gumbel state: set up by Begin(), changed during the search by SelectGumbelChild only,
  // read by Finish(); each of them holds root_mutex_ (uncontended outside the search).
  mutable core::Mutex root_mutex_;
  std::vector<float> gumbel_ GUARDED_BY(root_mutex_);  // g(a) + logit(a) per root child
  // Root child offsets still in the halving, and the visits of each in this phase.
  std::vector<int> considered_ GUARDED_BY(root_mutex_);
  std::vector<std::uint32_t> quota_ GUARDED_BY(root_mutex_);
  int phases_left_ GUARDED_BY(root_mutex_) = 0;
};

// --- search_run.cpp: drivers; each owns its searches until it returns ------------------

// Runs a full search of tree's root with params.threads threads; each gathers
// params.leaves_per_batch leaves per evaluator call. The first exception of a thread
// stops the others and is rethrown here.
SearchResult RunSearch(TreeSearch& search, Evaluator& evaluator, const SearchLimits& limits,
                       int ply = 0, bool full = true);

// Searches many trees on the calling thread, gathering leaves from all of them into
// one batch per evaluator call (self-play with many games in flight). Each search
// must have had Begin() or BeginSelfPlayMove() called, and no other thread may drive
// it until its Finish(); returns when every one is Done().
void RunSearchesBatched(const std::vector<TreeSearch*>& searches, Evaluator& evaluator,
                        int leaves_per_search);

// What one RunSearchRound keeps between calls (kept by the caller to spare allocations).
struct SearchRoundBuffers {
  EvalBatch batch;
  std::vector<LeafBuffer> leaves;
  std::vector<int> offsets;
};

// One round of RunSearchesBatched: gathers up to leaves_per_search leaves from every
// search not yet Done() (the root alone from one whose root waits for its evaluation,
// BeginSelfPlayMove), evaluates them as one batch and applies them. The calling
// thread is the only one to drive these searches until their Finish() (SetOneThread).
// Returns how many searches were not Done() (0: nothing was gathered). Self-play calls
// it in a loop and begins each game's next move as soon as its search is done, so that
// every round's batch stays full and holds the new searches' roots.
int RunSearchRound(const std::vector<TreeSearch*>& searches, Evaluator& evaluator,
                   int leaves_per_search, SearchRoundBuffers& buffers);

}  // namespace othello::mcts
