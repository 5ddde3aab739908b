#pragma once
// Self-play: a worker thread plays `games_per_thread` games at once with the latest
// published model, one evaluator batch per round holding leaves of all its games,
// and adds every finished game's positions, with their targets, to the replay buffer.
//
// Resignation (optional): see TrainingConfig; a resigned game's value targets say the
// resigning side lost, and its ownership and disc targets come from the last board.
// Targets per position: the policy target of full searches (playout cap
// randomisation: fast searches give none), the game result as win/draw/loss for the
// side to move (or the lambda-return over the later search values, value_lambda;
// mixed with the search value by value_target_mix), the final ownership and disc
// difference, and the exact score where the search proved it or the solver finds it
// (at most exact_target_empties empties), which then replaces the game result as
// value target. With policy_surprise_weight a game's records are repeated by their
// policy surprise (WeightBySurprise) on their way to the buffer.
//
// Time shares: each worker splits its thread's wall time into tree work, the evaluator,
// the exact solver and the rest (SelfPlayStats), with a few steady-clock reads per
// round and per move (off the per-playout path); `othello-zero bench selfplay` reports them.
//
// Thread safety: ModelSource is shared by the trainer (Publish) and the workers
// (Current); a SelfPlayWorker belongs to its thread.
// Lifetime: an evaluator that Current() returned stays valid while its holder keeps
// it, after later Publish() calls too.
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "core/rng.h"
#include "core/thread_annotations.h"
#include "mcts/evaluator.h"
#include "mcts/search.h"
#include "nn/evaluator.h"
#include "nn/model.h"
#include "training/config.h"
#include "training/replay_buffer.h"

namespace othello::training {

// The model self-play uses: replaced by the trainer, picked up between moves. Each
// published network becomes nn::MakeEvaluator(net, rules, step, options) (nn/evaluator.h:
// on the CPU the exported model's Eigen forward pass on the self-play thread itself,
// else LibTorch batched; random symmetries and a result cache as the options ask).
class ModelSource {
 public:
  ModelSource(const nn::EvaluatorOptions& options, const core::Rules& rules)
      : options_(options), rules_(rules) {
    nn::UsesEigen(options);  // a bad backend or device fails here, before self-play starts
  }
  // Publishes nn::MakeEvaluator(net, rules, step, options).
  void Publish(nn::OthelloNet& net, std::int64_t step);
  // Publishes `evaluator` as it is (benchmarks: a stand-in for the network).
  void Publish(std::shared_ptr<mcts::Evaluator> evaluator, std::int64_t step);
  std::shared_ptr<mcts::Evaluator> Current(std::int64_t* step = nullptr) const;

 private:
  const nn::EvaluatorOptions options_;
  const core::Rules rules_;
  mutable core::Mutex mutex_;
  std::shared_ptr<mcts::Evaluator> current_ GUARDED_BY(mutex_);
  std::int64_t step_ GUARDED_BY(mutex_) = 0;
};

struct SelfPlayStats {
  std::atomic<std::uint64_t> games{0}, positions{0}, playouts{0};
  // Of the positions, the side positions searches explored (train.explored_min_visits).
  std::atomic<std::uint64_t> explored{0};
  // Resignation: games resigned; check games in which a side would have resigned, and
  // those of them it did not lose (false positives).
  std::atomic<std::uint64_t> resigned{0}, resign_checks{0}, resign_false_positives{0};
  // Searches finished (moves played, forced passes included); evaluator calls of the
  // workers and the positions they sent; of those, the calls of search rounds (one per
  // round) and their positions. A search's root is evaluated in the next round's batch
  // (TreeSearch::BeginSelfPlayMove), so every call is a round's: evaluator_calls and
  // round_calls are equal, and bench selfplay's root_evaluations_per_s is 0.
  std::atomic<std::uint64_t> moves{0}, evaluator_calls{0}, evaluator_positions{0};
  std::atomic<std::uint64_t> round_calls{0}, round_positions{0};
  // The workers' wall time by phase, nanoseconds summed over threads, added by each
  // worker every 10 ms or so and when it stops:
  //   tree       descents, expansions, backups, root set-up and move choice, tree reuse,
  //              new games' trees (RunSearchRound, BeginSelfPlayMove, Finish, Advance)
  //   evaluator  from Submit() to Wait()'s return: the result cache, and the network
  //              (on this thread on the Eigen path) or waiting for it (LibTorch batched)
  //   solver     core::SolveExact: the search's leaf and root solves and exact targets
  //   other      the rest: samples, targets, games handed to the buffer, the loop
  std::atomic<std::uint64_t> tree_ns{0}, evaluator_ns{0}, solver_ns{0}, other_ns{0};
};

// A game's records as self-play collects them: one per searched position, with the
// side to move and the search's win/draw/loss estimate (for value_target_mix).
struct GameRecords {
  std::vector<Sample> samples;
  std::vector<core::Color> movers;
  std::vector<float> search_wdl;  // win, draw, loss per sample (side to move)
  // KL(policy target || the network's prior) per sample: how much the search changed
  // the policy (0 after a fast search, which has no policy target).
  std::vector<float> surprise;
  // Side positions the searches explored but the game did not play (ExploredSamples),
  // and their movers: outside the game's sequence of records, their targets filled by
  // FillExploredTargets.
  std::vector<Sample> explored;
  std::vector<core::Color> explored_movers;
};

// A sample for each explored node (mcts::TreeSearch::ExploredNodes): its position, its
// children's visit shares as the policy target, and its subtree's value and margin (or
// its exact score) kept in the value and disc targets until FillExploredTargets.
Sample ExploredSample(const mcts::ExploredNode& node);

// The targets of a game's explored samples: with `use_result`, the game's result for
// each one's side to move as its value and disc targets (an exact score kept); else
// the search's, as ExploredSample set them. Ownership from the final discs for both; no
// reply or short-term targets.
void FillExploredTargets(GameRecords& game, const core::Position& final_position,
                         const core::Outcome& outcome, bool use_result);

// KL(target || prior) in nats over a search's root children: the policy surprise of
// KataGo's weighting (terms where the target is 0 add nothing; a prior of 0 counts as
// 1e-6).
float PolicySurprise(const mcts::SearchResult& result, int board_size);

// KataGo's policy-surprise weighting of a game's records: among the records of full
// searches (those with a policy target), each one's weight is (1 - share) plus share x
// (their number x its surprise / their total surprise), so their weights add up to their
// number and those whose search most changed the policy are trained on more; the other
// records keep weight 1. Returns the records to keep, each repeated floor(weight) times
// and once more with the probability of its fraction (the order kept); without surprise
// (or share 0) the records unchanged.
std::vector<Sample> WeightBySurprise(const GameRecords& game, float share, core::Rng& rng);

// The result a finished (or resigned) game's targets are computed from: the scored
// final position, or with `resigned`, a loss for that side by the board's margin
// (at least 1 disc, so that a resigned game is never a draw).
core::Outcome GameResult(const core::Position& final_position, const core::Rules& rules,
                         std::optional<core::Color> resigned);

// Fills the value, ownership and disc targets of every record from `outcome`: the
// result from the mover's side (an exact score replaces it and is not mixed), or with
// `value_lambda` below 1 the lambda-return over the later records' search values
// (TD(lambda): 0 is the next record's search value, 1 the result), mixed with the
// record's own search estimate by `value_mix`; ownership from the final discs; the
// opponent's reply policy (the next record's policy target, where the opponent moves next
// and that record has one) and the short-term values (FillShortTermTargets). With
// `exact_outcome` the next exact score after a record (from its mover's side) replaces
// the game's result for that record, and the disc target of every record is its result
// (exact scores included): the moves self-play made after a solved position, imperfect
// under its temperature, no longer reach the targets of the positions before it.
void FillTargets(GameRecords& game, const core::Position& final_position,
                 const core::Outcome& outcome, float value_mix, float value_lambda = 1.0f,
                 bool exact_outcome = false);

// The short-term value targets (Sample::short_term): for each of kShortTermHorizons h,
// from the last record back, (1/h) x the record's own search value (win - loss) + (1 -
// 1/h) x the next record's target turned to this mover's side; the game's result (its
// sign) follows the last record, and a record with an exact score has that score's sign.
// FillTargets calls it.
void FillShortTermTargets(GameRecords& game, const core::Outcome& outcome);

// Where a worker's finished games go (called on the worker's thread).
using SampleSink = std::function<void(const std::vector<Sample>& game)>;

class SelfPlayWorker {
 public:
  SelfPlayWorker(const TrainingConfig& config, ModelSource& models, ReplayBuffer& buffer,
                 SelfPlayStats& stats, std::uint64_t seed);
  // Finished games go to `sink` instead of a replay buffer (benchmarks).
  SelfPlayWorker(const TrainingConfig& config, ModelSource& models, SampleSink sink,
                 SelfPlayStats& stats, std::uint64_t seed);
  ~SelfPlayWorker();
  SelfPlayWorker(const SelfPlayWorker&) = delete;
  SelfPlayWorker& operator=(const SelfPlayWorker&) = delete;
  // Plays until `stop` is set; games in flight are dropped.
  void Run(const std::atomic<bool>& stop);

 private:
  struct Game;
  class PhaseClock;      // the time shares (self_play.cpp)
  class TimedEvaluator;  // the model behind the clock's evaluator phase
  // The timed wrapper of `model`, made anew when the model changes.
  std::shared_ptr<mcts::Evaluator> Timed(const std::shared_ptr<mcts::Evaluator>& model);
  void StartGame(Game& game);
  void FinishGame(Game& game, std::optional<core::Color> resigned);
  // Starts the search of the game's next move, with `current` if a newer model (its
  // root is evaluated in the next round's batch).
  void BeginMove(Game& game, const std::shared_ptr<mcts::Evaluator>& current);
  // Records the finished search's sample, plays its move and ends or restarts the game.
  void FinishMove(Game& game);
  // Updates the resignation state after a search; the side that resigns now, if any.
  std::optional<core::Color> Resigns(Game& game, core::Color mover, float value);

  const TrainingConfig config_;
  ModelSource& models_;
  SampleSink sink_;
  SelfPlayStats& stats_;
  core::Rng rng_;
  std::unique_ptr<PhaseClock> clock_;               // made by Run, on the worker's thread
  std::shared_ptr<TimedEvaluator> timed_;           // the current model's wrapper
};

// Self-play threads, each running a SelfPlayWorker (seeded Mix64(seed + thread)) into
// `sink` (called on the workers' threads: it must be thread-safe). Stop() (also run by
// the destructor, so that an error unwinding through the owner never meets a joinable
// thread) sets the stop flag and joins them; a thread that fails records its error and
// stops the others. Threads: made and stopped by one owning thread.
class SelfPlayThreads {
 public:
  SelfPlayThreads(const TrainingConfig& config, ModelSource& models, SampleSink sink,
                  SelfPlayStats& stats, std::uint64_t seed);
  SelfPlayThreads(const SelfPlayThreads&) = delete;
  SelfPlayThreads& operator=(const SelfPlayThreads&) = delete;
  ~SelfPlayThreads() { Stop(); }

  bool stopped() const { return stop_.load(); }
  void Stop();
  // After Stop(): throws the first thread's error as std::runtime_error
  // "self-play thread N failed: <why>".
  void RethrowError() const;

 private:
  std::atomic<bool> stop_{false};
  std::vector<std::exception_ptr> errors_;  // one per thread, written by it before it ends
  std::vector<std::thread> threads_;
};

}  // namespace othello::training
