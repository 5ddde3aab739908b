#pragma once
// What an evaluator in front of another (CachingEvaluator, RandomSymmetryEvaluator)
// keeps for each batch between its Submit() and its Wait(): the per-batch State that
// Submit() made, found again by Wait() through the caller's batch, and the States of
// finished batches, kept for reuse so that no evaluator call allocates once warm.
// State needs a default constructor and Clear() (empties it, keeping its capacity).
// Thread safety: every call from any thread (one mutex).
#include <memory>
#include <unordered_map>
#include <vector>

#include "core/thread_annotations.h"
#include "mcts/evaluator.h"

namespace othello::mcts {

template <class State>
class PendingBatches {
 public:
  // An empty State: a reused one, or a new one.
  std::unique_ptr<State> Take() EXCLUDES(mutex_) {
    core::MutexLock lock(mutex_);
    if (spare_.empty()) return std::make_unique<State>();
    std::unique_ptr<State> state = std::move(spare_.back());
    spare_.pop_back();
    return state;
  }
  // `batch` is between Submit() and Wait() with `state`.
  void Add(const EvalBatch& batch, std::unique_ptr<State> state) EXCLUDES(mutex_) {
    core::MutexLock lock(mutex_);
    pending_.emplace(&batch, std::move(state));
  }
  // The State that Add() gave `batch`, no longer pending; null when there is none.
  std::unique_ptr<State> Remove(const EvalBatch& batch) EXCLUDES(mutex_) {
    core::MutexLock lock(mutex_);
    const auto it = pending_.find(&batch);
    if (it == pending_.end()) return nullptr;
    std::unique_ptr<State> state = std::move(it->second);
    pending_.erase(it);
    return state;
  }
  // Keeps `state`, emptied, for a later Take().
  void Recycle(std::unique_ptr<State> state) EXCLUDES(mutex_) {
    state->Clear();
    core::MutexLock lock(mutex_);
    spare_.push_back(std::move(state));
  }

 private:
  core::Mutex mutex_;
  std::unordered_map<const EvalBatch*, std::unique_ptr<State>> pending_ GUARDED_BY(mutex_);
  std::vector<std::unique_ptr<State>> spare_ GUARDED_BY(mutex_);
};

}  // namespace othello::mcts
