#pragma once
// The network's forward pass in plain C++ with Eigen, from an exported model file: play
// needs no LibTorch. Activations are [channels, batch * squares] matrices; a 3x3
// convolution is one matrix product with the im2col patches. Outputs are turned into
// probabilities exactly as the LibTorch evaluator does (softmax over N*N+1 moves and
// over win/draw/loss; tanh ownership; disc difference scaled to the board).
//
// EigenEvaluator puts it behind the mcts Evaluator interface, computing synchronously
// in Submit() on the calling thread (Eigen's products use one thread each); a cache
// goes in front of it (mcts::CachingEvaluator).
// Thread safety: EigenNet is immutable after construction, so Forward() may run on
// many threads at once; EigenEvaluator shares it (shared_ptr) and keeps no other
// state, so Submit/Wait may too.
#include <memory>
#include <vector>

#include "mcts/evaluator.h"
#include "nn/model_file.h"

namespace othello::nn {

class EigenNet {
 public:
  explicit EigenNet(const ModelFile& model);
  ~EigenNet();
  EigenNet(const EigenNet&) = delete;
  EigenNet& operator=(const EigenNet&) = delete;

  // Positions of any sizes (each size is run as its own batch).
  void Forward(const std::vector<const core::Position*>& positions,
               const std::vector<mcts::EvalOutput*>& outputs) const;
  const NetConfig& config() const { return config_; }

 private:
  struct Layers;
  void ForwardSameSize(const std::vector<const core::Position*>& positions,
                       const std::vector<mcts::EvalOutput*>& outputs) const;

  NetConfig config_;
  std::unique_ptr<Layers> layers_;
};

class EigenEvaluator : public mcts::Evaluator {
 public:
  explicit EigenEvaluator(std::shared_ptr<const EigenNet> net);
  // Computes every output (a failure is rethrown by Wait).
  void Submit(mcts::EvalBatch& batch) override;
  void Wait(mcts::EvalBatch& batch) override { batch.WaitDone(); }

 private:
  std::shared_ptr<const EigenNet> net_;
};

}  // namespace othello::nn
