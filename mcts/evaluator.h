#pragma once
// The search's view of a position evaluator (the network, or a cheap stand-in).
//
// Evaluation is batched and asynchronous: a search thread collects leaves from one or
// many trees into an EvalBatch, Submit()s it and later Wait()s for the outputs, so an
// implementation can merge the batches of many threads into one network call (see
// BatchingEvaluator) or answer some positions from a cache (CachingEvaluator, in
// eval_cache.h). Cheap evaluators may compute everything inside Submit().
//
// Contract of Submit/Wait:
// - Submit() and Wait() may be called from any number of threads at once, each thread
//   with its own batches. One EvalBatch belongs to one owner at a time, and is in at
//   most one evaluation: each Submit(batch) is followed by exactly one Wait(batch) on
//   the same evaluator (a Submit() that throws leaves nothing to wait for).
// - Between Submit() and the return of Wait() the owner neither reads nor changes the
//   batch, and the batch must outlive Wait(): the evaluator may write its outputs from
//   another thread until then.
// - Wait() returns when every output is written, or rethrows the evaluator's failure.
#include <array>
#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <vector>

#include "core/bitboard.h"
#include "core/position.h"
#include "core/thread_annotations.h"

namespace othello::mcts {

using core::Position;
using core::Square;

// Index of a move in the policy: the square, or size*size for a pass.
inline int PolicyIndex(Square move, int size) { return move == core::kPass ? size * size : move; }

struct EvalOutput {
  // Probabilities over size*size squares then pass (only the first size*size+1 are
  // used); an evaluator may leave illegal moves non-zero, the search renormalises.
  std::array<float, core::kMaxSquares + 1> policy{};
  // Win, draw and loss probabilities for the side to move.
  float win = 0, draw = 0, loss = 0;
  // Optional auxiliary predictions: final owner of each square (+1 side to move,
  // -1 opponent) and the final disc difference for the side to move.
  bool has_aux = false;
  std::array<float, core::kMaxSquares> ownership{};
  float disc_difference = 0;

  float value() const { return win - loss; }  // expected result in [-1, 1]
};

// The positions of one evaluation and their outputs. Its done/error state is guarded
// by its own mutex: the evaluator calls MarkDone() or Fail() once its outputs are
// written, and WaitDone() returning makes them visible to the waiting owner.
class EvalBatch {
 public:
  void Clear() {
    positions_.clear();
    Restart();
  }
  int Add(const Position& position) {
    positions_.push_back(position);
    return static_cast<int>(positions_.size()) - 1;
  }
  int size() const { return static_cast<int>(positions_.size()); }
  const std::vector<Position>& positions() const { return positions_; }
  std::vector<EvalOutput>& outputs() { return outputs_; }
  const EvalOutput& output(int i) const { return outputs_[i]; }

  // For evaluators: a new evaluation of this batch starts (clears done and errors).
  void Restart() {
    core::MutexLock lock(done_mutex_);
    error_ = nullptr;
    done_ = false;
  }
  // For evaluators: the outputs are complete; wakes the thread in WaitDone().
  // (Notified under the lock: the waiter may destroy the batch as soon as it wakes.)
  void MarkDone() {
    core::MutexLock lock(done_mutex_);
    done_ = true;
    done_cv_.NotifyAll();
  }
  // For evaluators: the evaluation failed; Wait() rethrows `error` to the submitter.
  void Fail(std::exception_ptr error) {
    core::MutexLock lock(done_mutex_);
    error_ = error;
    done_ = true;
    done_cv_.NotifyAll();
  }
  // Blocks until MarkDone() or Fail(), then rethrows a failure. Only this batch's
  // waiter wakes (no thundering herd when many threads wait on one evaluator).
  void WaitDone() const {
    core::MutexLock lock(done_mutex_);
    while (!done_) done_cv_.Wait(done_mutex_);
    if (error_) std::rethrow_exception(error_);
  }

 private:
  std::vector<Position> positions_;
  std::vector<EvalOutput> outputs_;
  mutable core::Mutex done_mutex_;
  mutable core::CondVar done_cv_;
  bool done_ GUARDED_BY(done_mutex_) = false;
  std::exception_ptr error_ GUARDED_BY(done_mutex_);
};

class Evaluator {
 public:
  virtual ~Evaluator() = default;
  // Starts evaluating every position of `batch` (outputs are resized to match).
  virtual void Submit(EvalBatch& batch) = 0;
  // Blocks until `batch` has its outputs; rethrows the evaluation's failure.
  virtual void Wait(EvalBatch& batch) = 0;

  // Submit() then Wait().
  void Evaluate(EvalBatch& batch) {
    Submit(batch);
    Wait(batch);
  }
};

// Uniform policy over the legal moves and an even value (a draw probability of 1):
// the cheapest evaluator, for tests and for measuring the search itself. Stateless.
class UniformEvaluator : public Evaluator {
 public:
  void Submit(EvalBatch& batch) override;
  void Wait(EvalBatch& batch) override { batch.WaitDone(); }
};

// Uniform policy, and a value from `rollouts` random games played to the end
// (wins/draws/losses counted from the side to move). A classic baseline player.
// Thread safety: each Submit() seeds its own generator from `seed` and an atomic count
// of calls, so results are reproducible for one thread and not across threads.
class RolloutEvaluator : public Evaluator {
 public:
  explicit RolloutEvaluator(int rollouts = 1, bool anti = false, std::uint64_t seed = 0)
      : rollouts_(rollouts), anti_(anti), seed_(seed) {}
  void Submit(EvalBatch& batch) override;
  void Wait(EvalBatch& batch) override { batch.WaitDone(); }

 private:
  int rollouts_;
  bool anti_;
  std::uint64_t seed_;
  std::atomic<std::uint64_t> calls_{0};
};

// Fills `out` with a uniform policy over the legal moves of `position`.
void SetUniformPolicy(const Position& position, EvalOutput& out);

// A backend's view of a batch: evaluates positions[i] into *outputs[i] for every i.
using EvalFunction = std::function<void(const std::vector<const Position*>& positions,
                                        const std::vector<EvalOutput*>& outputs)>;
// Calls `run` once per board size present, with the positions of that size and their
// outputs in their original order (a network runs one board size per forward pass);
// not at all for no positions.
void ForEachBoardSize(const std::vector<const Position*>& positions,
                      const std::vector<EvalOutput*>& outputs, const EvalFunction& run);

// A backend function run synchronously inside Submit(), on the submitting thread (no
// hand-off, no thread pool): the Eigen network's evaluator. A failure of the function
// is rethrown by Wait(). Thread safety: as the function's (EigenNet::Forward: any
// number of threads at once).
class FunctionEvaluator : public Evaluator {
 public:
  explicit FunctionEvaluator(EvalFunction run) : run_(std::move(run)) {}
  void Submit(EvalBatch& batch) override;
  void Wait(EvalBatch& batch) override { batch.WaitDone(); }

 private:
  const EvalFunction run_;
};

}  // namespace othello::mcts
