#include "nn/loss.h"

namespace othello::nn {

namespace {

// The cross-entropy of `logits` against `target` rows, averaged over the rows whose
// `weight` is 1.
torch::Tensor MaskedCrossEntropy(const torch::Tensor& logits, const torch::Tensor& target,
                                 const torch::Tensor& weight) {
  const torch::Tensor ce = -(target * torch::log_softmax(logits, 1)).sum(1);
  const torch::Tensor w = weight.to(ce.dtype());
  return (ce * w).sum() / w.sum().clamp_min(1.0);
}

}  // namespace

LossTerms ComputeLoss(const NetOutput& output, const TrainingTargets& targets,
                      const LossWeights& weights) {
  LossTerms terms;
  terms.policy = MaskedCrossEntropy(output.policy_logits, targets.policy, targets.policy_weight);
  terms.value = -(targets.wdl * torch::log_softmax(output.wdl_logits, 1)).sum(1).mean();
  terms.ownership = (output.ownership - targets.ownership).pow(2).mean();
  terms.disc_difference = (output.disc_difference - targets.disc_difference).pow(2).mean();
  terms.total = weights.policy * terms.policy + weights.value * terms.value +
                weights.ownership * terms.ownership +
                weights.disc_difference * terms.disc_difference;
  terms.auxiliary = torch::zeros_like(terms.total);
  return terms;
}

torch::Tensor SoftPolicyTarget(const torch::Tensor& policy) {
  const torch::Tensor soft = policy.clamp_min(0).pow(0.25);
  return soft / soft.sum(1, /*keepdim=*/true).clamp_min(1e-12);
}

torch::Tensor ComputeAuxLoss(const AuxOutput& output, const TrainingTargets& targets,
                             const LossWeights& weights) {
  torch::Tensor total = torch::zeros({}, output.short_term.options().dtype(torch::kFloat32));
  if (weights.soft_policy > 0) {
    total = total + weights.soft_policy * MaskedCrossEntropy(output.soft_policy_logits,
                                                             SoftPolicyTarget(targets.policy),
                                                             targets.policy_weight);
  }
  if (weights.reply_policy > 0) {
    total = total + weights.reply_policy * MaskedCrossEntropy(output.reply_policy_logits,
                                                              targets.reply_policy,
                                                              targets.reply_weight);
  }
  if (weights.short_term_value > 0) {
    const torch::Tensor w = targets.short_term_weight.to(torch::kFloat32);
    const torch::Tensor error = (output.short_term - targets.short_term).pow(2).mean(1);
    total = total + weights.short_term_value * (error * w).sum() / w.sum().clamp_min(1.0);
  }
  return total;
}

}  // namespace othello::nn
