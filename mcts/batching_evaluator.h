#pragma once
// Merges the EvalBatches of many search threads into calls of one backend function
// (typically a network forward pass) of at most `max_batch` positions. A worker
// thread runs the backend as soon as `max_batch` positions wait, or when the oldest
// waiting position has waited `max_wait`. A batch may be split across backend calls;
// it is done when all its positions are.
//
// Thread safety: Submit/Wait from any number of threads (the contract of evaluator.h).
// The backend runs only on the worker threads, several calls at once when there are
// several workers, each call on its own positions. The queue and the progress of every
// queued batch are guarded by mutex_.
// An exception thrown by the backend fails the batches of that call; their Wait()
// rethrows it.
// Lifetime: shutdown (destructor) sets the stop flag, wakes the workers and joins them
// (a backend call under way finishes first); any batch still queued then fails with an
// error instead of hanging its waiter, and a Submit() racing with it throws. The
// backend must stay usable until the destructor returns.
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <thread>
#include <vector>

#include "core/thread_annotations.h"
#include "mcts/evaluator.h"

namespace othello::mcts {

class BatchingEvaluator : public Evaluator {
 public:
  using Backend = EvalFunction;

  BatchingEvaluator(Backend backend, int max_batch, std::chrono::microseconds max_wait,
                    int workers = 1);
  ~BatchingEvaluator() override;
  BatchingEvaluator(const BatchingEvaluator&) = delete;
  BatchingEvaluator& operator=(const BatchingEvaluator&) = delete;

  void Submit(EvalBatch& batch) override;
  void Wait(EvalBatch& batch) override;

  // Backend calls and positions evaluated so far.
  std::uint64_t backend_calls() const { return calls_.load(std::memory_order_relaxed); }
  std::uint64_t positions_evaluated() const {
    return positions_.load(std::memory_order_relaxed);
  }

 private:
  // One submitted batch; every field guarded by mutex_ (unchecked: the analysis cannot
  // name the evaluator's mutex from a Pending).
  struct Pending {
    EvalBatch* batch;
    int next;       // first position not yet taken by a worker
    int remaining;  // positions not yet evaluated
    std::chrono::steady_clock::time_point since;
    std::exception_ptr error;  // the first failure of one of its slices
  };
  struct Slice {
    Pending* pending;
    int begin, end;
  };

  void WorkerLoop() EXCLUDES(mutex_);
  // Takes up to max_batch_ queued positions.
  std::vector<Slice> TakeSlices() REQUIRES(mutex_);

  Backend backend_;
  const int max_batch_;
  const std::chrono::microseconds max_wait_;

  core::Mutex mutex_;
  core::CondVar work_cv_;             // workers wait for positions
  std::deque<Pending*> queue_ GUARDED_BY(mutex_);  // batches with untaken positions
  int queued_positions_ GUARDED_BY(mutex_) = 0;    // untaken positions in queue_
  bool stop_ GUARDED_BY(mutex_) = false;
  std::atomic<std::uint64_t> calls_{0}, positions_{0};  // statistics, relaxed
  std::vector<std::thread> workers_;  // started by the constructor, joined by the destructor
};

}  // namespace othello::mcts
