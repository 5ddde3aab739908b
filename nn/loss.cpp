#include "nn/loss.h"

namespace othello::nn {

LossTerms ComputeLoss(const NetOutput& output, const TrainingTargets& targets,
                      const LossWeights& weights) {
  LossTerms terms;
  const torch::Tensor policy_ce =
      -(targets.policy * torch::log_softmax(output.policy_logits, 1)).sum(1);
  const torch::Tensor policy_weight = targets.policy_weight.to(policy_ce.dtype());
  terms.policy = (policy_ce * policy_weight).sum() / policy_weight.sum().clamp_min(1.0);
  terms.value = -(targets.wdl * torch::log_softmax(output.wdl_logits, 1)).sum(1).mean();
  terms.ownership = (output.ownership - targets.ownership).pow(2).mean();
  terms.disc_difference = (output.disc_difference - targets.disc_difference).pow(2).mean();
  terms.total = weights.policy * terms.policy + weights.value * terms.value +
                weights.ownership * terms.ownership +
                weights.disc_difference * terms.disc_difference;
  return terms;
}

}  // namespace othello::nn
