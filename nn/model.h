#pragma once
// The policy/value network: a residual tower with global-pooling biases (KataGo, Wu
// 2019), so that one set of weights serves every board size.
//
//   input [B, kInputPlanes, N, N]
//   stem: 3x3 conv -> BN -> ReLU
//   blocks: 3x3 conv -> BN -> ReLU (+ a bias from the mean and max of the channels,
//           every global_pool_every-th block) -> 3x3 conv -> BN, + skip, ReLU
//   policy: 1x1 conv -> BN -> ReLU -> 1x1 conv gives N*N logits; the pass logit comes
//           from the head's pooled features
//   value: 1x1 conv -> BN -> ReLU -> mean/max pool -> FC -> ReLU -> FC to win/draw/loss
//          logits, and FC to the final disc difference (as a fraction of N*N)
//   ownership: 1x1 conv -> tanh, the final owner of each square (+1 side to move)
//
// Without batch statistics (SetBatchNorm(false), train.batch_norm): every BatchNorm layer
// is a fixed per-channel scale and bias in training too (its running statistics, 0 and 1
// in a fresh net, are used instead of the batch's and not updated), and a fresh net's
// blocks start as the identity (the last scale of each residual branch 0, as SkipInit).
// Inference is the same either way, so checkpoints and exported models do not change.
//
// Thread safety: forward() in eval mode under NoGradGuard may run on several threads;
// training needs exclusive access.
#include <torch/torch.h>

#include "nn/net_config.h"

namespace othello::nn {

struct NetOutput {
  torch::Tensor policy_logits;    // [B, N*N + 1], the last one is the pass
  torch::Tensor wdl_logits;       // [B, 3]: win, draw, loss for the side to move
  torch::Tensor ownership;        // [B, N*N] in [-1, 1]
  torch::Tensor disc_difference;  // [B], final margin / (N*N), in [-1, 1]
};

class ResidualBlockImpl : public torch::nn::Module {
 public:
  ResidualBlockImpl(int channels, bool global_pool);
  torch::Tensor forward(const torch::Tensor& x);
  void SetBatchNorm(bool on) { batch_norm_ = on; }
  // Makes the residual branch start at zero (SkipInit), for training without batch norm.
  void ZeroResidual();

 private:
  bool batch_norm_ = true;
  torch::nn::Conv2d conv1_{nullptr}, conv2_{nullptr};
  torch::nn::BatchNorm2d bn1_{nullptr}, bn2_{nullptr};
  torch::nn::Linear pool_bias_{nullptr};  // null without global pooling
};
TORCH_MODULE(ResidualBlock);

class OthelloNetImpl : public torch::nn::Module {
 public:
  explicit OthelloNetImpl(const NetConfig& config);
  NetOutput forward(const torch::Tensor& input);
  // The same, with the trunk's output (the last block's, [B, channels, N, N]) in `trunk`
  // for the auxiliary heads (nn/aux_heads.h).
  NetOutput ForwardWithTrunk(const torch::Tensor& input, torch::Tensor& trunk);
  const NetConfig& config() const { return config_; }
  // Batch statistics in training (the default), or fixed scales and biases (see above).
  void SetBatchNorm(bool on);
  bool batch_norm() const { return batch_norm_; }
  // A fresh net's initialisation for training without batch norm: every block's residual
  // branch starts at zero.
  void InitWithoutBatchNorm();
  // Block `block`'s residual branch starts at zero: the block is the identity (GrowNet).
  void ZeroResidual(int block);

 private:
  NetConfig config_;
  bool batch_norm_ = true;
  torch::nn::Conv2d stem_{nullptr};
  torch::nn::BatchNorm2d stem_bn_{nullptr};
  std::vector<ResidualBlock> blocks_;
  torch::nn::Conv2d policy_conv_{nullptr}, policy_out_{nullptr};
  torch::nn::BatchNorm2d policy_bn_{nullptr};
  torch::nn::Linear pass_fc_{nullptr};
  torch::nn::Conv2d value_conv_{nullptr};
  torch::nn::BatchNorm2d value_bn_{nullptr};
  torch::nn::Linear value_fc_{nullptr}, wdl_fc_{nullptr}, disc_fc_{nullptr};
  torch::nn::Conv2d ownership_conv_{nullptr};
};
TORCH_MODULE(OthelloNet);

// `bn` applied to `x`: as the layer itself with `batch_stats`, otherwise with its running
// statistics in training too (a fixed per-channel scale and bias).
torch::Tensor Normalise(torch::nn::BatchNorm2d& bn, const torch::Tensor& x, bool batch_stats);

// Mean and max over the board: [B, C, N, N] -> [B, 2C].
torch::Tensor GlobalPool(const torch::Tensor& x);

// A deep copy of `net` (weights and buffers) with the same configuration.
OthelloNet CloneNet(OthelloNet& net);

// `net` with `blocks` residual blocks (at least its own): its weights and buffers, and
// new blocks at the end of the tower whose residual branches start at zero (SkipInit), so
// that the grown net computes what `net` does, in training and in inference. The new net
// has `net`'s batch-norm mode; it lives on the CPU until moved.
OthelloNet GrowNet(OthelloNet& net, int blocks);

}  // namespace othello::nn
