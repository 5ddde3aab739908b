#pragma once
// The network's forward pass in plain C++ with Eigen, from an exported model file: play
// needs no LibTorch. Activations live in a zero-padded grid of squares, each square's
// channels contiguous; a 3x3 convolution is an AVX2+FMA kernel over that grid (Eigen
// products on CPUs without AVX2/FMA or for widths not a multiple of 8), large batches
// run in chunks that stay in the L2 cache. Outputs are turned into
// probabilities exactly as the LibTorch evaluator does (softmax over N*N+1 moves and
// over win/draw/loss; tanh ownership; disc difference scaled to the board).
//
// nn::MakeEvaluator (nn/evaluator.h) puts it behind the search's evaluator interface,
// computing on the calling thread (no hand-off, no thread pool).
// Thread safety: EigenNet is immutable after construction, so Forward() may run on
// many threads at once.
#include <cstdint>
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

}  // namespace othello::nn
