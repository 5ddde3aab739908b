#pragma once
// Random-symmetry evaluation in front of any evaluator: each position is evaluated in
// one of its board's 8 symmetric forms, drawn at random, and the outputs (policy and
// ownership) are mapped back to the original orientation, as AlphaZero and KataGo do
// in self-play to average out the network's orientation biases. The inner evaluator
// sees the transformed positions as one batch of their own per submitted batch.
//
// The draws: Submit() number k (counted from 0 across all threads) seeds its own
// generator with Mix64(seed ^ k) and draws one symmetry per position in order, so one
// thread's evaluations are reproducible (self-play's signature tests pin them).
//
// Thread safety: the contract of evaluator.h; the pending batches are a
// PendingBatches (one mutex), the call count is a relaxed atomic.
// Lifetime: `inner` is shared; destroy this evaluator only when no batch is between
// Submit() and Wait().
#include <atomic>
#include <cstdint>
#include <memory>

#include "mcts/evaluator.h"
#include "mcts/pending_batches.h"

namespace othello::mcts {

class RandomSymmetryEvaluator : public Evaluator {
 public:
  RandomSymmetryEvaluator(std::shared_ptr<Evaluator> inner, std::uint64_t seed);
  ~RandomSymmetryEvaluator() override;
  RandomSymmetryEvaluator(const RandomSymmetryEvaluator&) = delete;
  RandomSymmetryEvaluator& operator=(const RandomSymmetryEvaluator&) = delete;
  void Submit(EvalBatch& batch) override;
  void Wait(EvalBatch& batch) override;

 private:
  struct Transformed;  // one submitted batch in its drawn orientations
  const std::shared_ptr<Evaluator> inner_;
  const std::uint64_t seed_;
  std::atomic<std::uint64_t> calls_{0};
  PendingBatches<Transformed> pending_;  // batches between Submit() and Wait()
};

}  // namespace othello::mcts
