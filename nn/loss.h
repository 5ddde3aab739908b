#pragma once
// The training loss: policy cross-entropy + value (win/draw/loss) cross-entropy +
// weighted auxiliary losses (ownership, final disc difference).
#include <torch/torch.h>

#include "nn/loss_weights.h"
#include "nn/model.h"

namespace othello::nn {

struct TrainingTargets {
  torch::Tensor policy;           // [B, N*N + 1] probabilities
  torch::Tensor policy_weight;    // [B]: 1 where the policy target is valid, else 0
  torch::Tensor wdl;              // [B, 3] probabilities for the side to move
  torch::Tensor ownership;        // [B, N*N] in [-1, 1]
  torch::Tensor disc_difference;  // [B] final margin / (N*N)
};

struct LossTerms {
  torch::Tensor total, policy, value, ownership, disc_difference;  // scalars
};

LossTerms ComputeLoss(const NetOutput& output, const TrainingTargets& targets,
                      const LossWeights& weights = {});

}  // namespace othello::nn
