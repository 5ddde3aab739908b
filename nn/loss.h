#pragma once
// The training loss: policy cross-entropy + value (win/draw/loss) cross-entropy +
// weighted auxiliary losses (ownership, final disc difference), and those of the
// auxiliary heads (nn/aux_heads.h) where their weights are above 0.
#include <torch/torch.h>

#include "nn/aux_heads.h"
#include "nn/loss_weights.h"
#include "nn/model.h"

namespace othello::nn {

struct TrainingTargets {
  torch::Tensor policy;           // [B, N*N + 1] probabilities
  torch::Tensor policy_weight;    // [B]: 1 where the policy target is valid, else 0
  torch::Tensor wdl;              // [B, 3] probabilities for the side to move
  torch::Tensor ownership;        // [B, N*N] in [-1, 1]
  torch::Tensor disc_difference;  // [B] final margin / (N*N)
  // For the auxiliary heads (undefined when none is trained):
  torch::Tensor reply_policy;       // [B, N*N + 1] the opponent's next policy target
  torch::Tensor reply_weight;       // [B]: 1 where it is valid, else 0
  torch::Tensor short_term;         // [B, 2] in [-1, 1]
  torch::Tensor short_term_weight;  // [B]: 1 where they are valid, else 0
};

struct LossTerms {
  torch::Tensor total, policy, value, ownership, disc_difference;  // scalars
  // The auxiliary heads' weighted sum (part of `total`; 0 without them).
  torch::Tensor auxiliary;
};

LossTerms ComputeLoss(const NetOutput& output, const TrainingTargets& targets,
                      const LossWeights& weights = {});

// The soft policy target: `policy` ([B, A] probabilities) raised to the power 1/4 and
// renormalised per row (rows of zeros stay zero).
torch::Tensor SoftPolicyTarget(const torch::Tensor& policy);

// The auxiliary heads' loss, weighted by `weights` (soft_policy, reply_policy,
// short_term_value): cross-entropies against the soft policy target (where the policy
// target is valid) and the reply policy (where it is valid), and the squared error of the
// short-term values (where valid), each a mean over the valid records. A scalar.
torch::Tensor ComputeAuxLoss(const AuxOutput& output, const TrainingTargets& targets,
                             const LossWeights& weights);

}  // namespace othello::nn
