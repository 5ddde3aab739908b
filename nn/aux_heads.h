#pragma once
// Auxiliary heads, trained beside the network and never played: they exist to shape the
// trunk's features (KataGo, Wu 2019-2020). They read the trunk's output (the last block's,
// OthelloNetImpl::ForwardWithTrunk) and are trained only where their loss weight
// (nn/loss_weights.h, train.loss.*) is above 0; exported models and inference never see
// them. Checkpoints keep their weights beside the network's (nn/checkpoint.h, "aux/").
//
//   policy: 1x1 conv -> BN -> ReLU -> 1x1 conv to two planes of N*N logits, and the two
//           pass logits from the pooled features:
//     soft policy   the policy target raised to the power 1/4 and renormalised
//                   (KataGo's soft policy: it learns the ranking of the moves the search
//                   barely visited);
//     reply policy  the opponent's policy target at the next ply (Sample::reply_policy).
//   short-term value: 1x1 conv -> BN -> ReLU -> mean/max pool -> FC -> ReLU -> FC -> tanh,
//     two values for the side to move: the search values averaged over about 4 and 12
//     plies ahead (Sample::short_term), a lower-variance value target than the result.
// Thread safety: as OthelloNet (training needs exclusive access).
#include <torch/torch.h>

#include "nn/model.h"
#include "nn/net_config.h"

namespace othello::nn {

struct AuxOutput {
  torch::Tensor soft_policy_logits;   // [B, N*N + 1]
  torch::Tensor reply_policy_logits;  // [B, N*N + 1]
  torch::Tensor short_term;           // [B, 2] in [-1, 1]
};

class AuxHeadsImpl : public torch::nn::Module {
 public:
  explicit AuxHeadsImpl(const NetConfig& config);
  AuxOutput forward(const torch::Tensor& trunk);
  // As OthelloNetImpl::SetBatchNorm.
  void SetBatchNorm(bool on) { batch_norm_ = on; }

 private:
  bool batch_norm_ = true;
  torch::nn::Conv2d policy_conv_{nullptr}, policy_out_{nullptr};
  torch::nn::BatchNorm2d policy_bn_{nullptr};
  torch::nn::Linear pass_fc_{nullptr};
  torch::nn::Conv2d value_conv_{nullptr};
  torch::nn::BatchNorm2d value_bn_{nullptr};
  torch::nn::Linear value_fc_{nullptr}, short_term_fc_{nullptr};
};
TORCH_MODULE(AuxHeads);

}  // namespace othello::nn
