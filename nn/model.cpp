#include "nn/model.h"

#include <stdexcept>
#include <string>

#include "nn/encoding.h"

namespace othello::nn {
namespace {

torch::nn::Conv2d Conv(int in, int out, int kernel) {
  return torch::nn::Conv2d(
      torch::nn::Conv2dOptions(in, out, kernel).padding(kernel / 2).bias(false));
}

}  // namespace

torch::Tensor GlobalPool(const torch::Tensor& x) {
  const torch::Tensor flat = x.flatten(2);
  return torch::cat({flat.mean(2), std::get<0>(flat.max(2))}, 1);
}

ResidualBlockImpl::ResidualBlockImpl(int channels, bool global_pool)
    : conv1_(register_module("conv1", Conv(channels, channels, 3))),
      conv2_(register_module("conv2", Conv(channels, channels, 3))),
      bn1_(register_module("bn1", torch::nn::BatchNorm2d(channels))),
      bn2_(register_module("bn2", torch::nn::BatchNorm2d(channels))) {
  if (global_pool) {
    pool_bias_ = register_module("pool_bias", torch::nn::Linear(2 * channels, channels));
  }
}

torch::Tensor Normalise(torch::nn::BatchNorm2d& bn, const torch::Tensor& x, bool batch_stats) {
  if (batch_stats) return bn(x);
  const auto& options = bn->options;
  return torch::batch_norm(x, bn->weight, bn->bias, bn->running_mean, bn->running_var,
                           /*training=*/false, options.momentum().value_or(0.1), options.eps(),
                           /*cudnn_enabled=*/true);
}

torch::Tensor ResidualBlockImpl::forward(const torch::Tensor& x) {
  torch::Tensor y = torch::relu(Normalise(bn1_, conv1_(x), batch_norm_));
  if (pool_bias_) y = y + pool_bias_(GlobalPool(y)).unsqueeze(-1).unsqueeze(-1);
  y = Normalise(bn2_, conv2_(y), batch_norm_);
  return torch::relu(x + y);
}

void ResidualBlockImpl::ZeroResidual() {
  torch::NoGradGuard no_grad;
  bn2_->weight.zero_();
}

OthelloNetImpl::OthelloNetImpl(const NetConfig& config) : config_(config) {
  config_.Validate();
  const int c = config.channels, h = config.head_channels;
  stem_ = register_module("stem", Conv(kInputPlanes, c, 3));
  stem_bn_ = register_module("stem_bn", torch::nn::BatchNorm2d(c));
  for (int i = 0; i < config.blocks; ++i) {
    const bool pool = config.global_pool_every > 0 && (i + 1) % config.global_pool_every == 0;
    blocks_.push_back(register_module("block" + std::to_string(i), ResidualBlock(c, pool)));
  }
  policy_conv_ = register_module("policy_conv", Conv(c, h, 1));
  policy_bn_ = register_module("policy_bn", torch::nn::BatchNorm2d(h));
  policy_out_ = register_module(
      "policy_out", torch::nn::Conv2d(torch::nn::Conv2dOptions(h, 1, 1).bias(true)));
  pass_fc_ = register_module("pass_fc", torch::nn::Linear(2 * h, 1));
  value_conv_ = register_module("value_conv", Conv(c, h, 1));
  value_bn_ = register_module("value_bn", torch::nn::BatchNorm2d(h));
  value_fc_ = register_module("value_fc", torch::nn::Linear(2 * h, config.value_hidden));
  wdl_fc_ = register_module("wdl_fc", torch::nn::Linear(config.value_hidden, 3));
  disc_fc_ = register_module("disc_fc", torch::nn::Linear(config.value_hidden, 1));
  ownership_conv_ = register_module(
      "ownership_conv", torch::nn::Conv2d(torch::nn::Conv2dOptions(c, 1, 1).bias(true)));
}

void OthelloNetImpl::SetBatchNorm(bool on) {
  batch_norm_ = on;
  for (auto& block : blocks_) block->SetBatchNorm(on);
}

void OthelloNetImpl::InitWithoutBatchNorm() {
  for (auto& block : blocks_) block->ZeroResidual();
}

void OthelloNetImpl::ZeroResidual(int block) { blocks_.at(block)->ZeroResidual(); }

NetOutput OthelloNetImpl::forward(const torch::Tensor& input) {
  torch::Tensor trunk;
  return ForwardWithTrunk(input, trunk);
}

NetOutput OthelloNetImpl::ForwardWithTrunk(const torch::Tensor& input, torch::Tensor& trunk) {
  torch::Tensor x = torch::relu(Normalise(stem_bn_, stem_(input), batch_norm_));
  for (auto& block : blocks_) x = block(x);
  trunk = x;

  NetOutput out;
  const torch::Tensor p = torch::relu(Normalise(policy_bn_, policy_conv_(x), batch_norm_));
  const torch::Tensor square_logits = policy_out_(p).flatten(1);
  out.policy_logits = torch::cat({square_logits, pass_fc_(GlobalPool(p))}, 1);

  const torch::Tensor v = torch::relu(Normalise(value_bn_, value_conv_(x), batch_norm_));
  const torch::Tensor hidden = torch::relu(value_fc_(GlobalPool(v)));
  out.wdl_logits = wdl_fc_(hidden);
  out.disc_difference = torch::tanh(disc_fc_(hidden)).squeeze(1);
  out.ownership = torch::tanh(ownership_conv_(x)).flatten(1);
  return out;
}

OthelloNet CloneNet(OthelloNet& net) {
  OthelloNet copy(net->config());
  torch::NoGradGuard no_grad;
  const auto source = net->named_parameters(), target = copy->named_parameters();
  for (const auto& item : source) target[item.key()].copy_(item.value());
  const auto source_buffers = net->named_buffers(), target_buffers = copy->named_buffers();
  for (const auto& item : source_buffers) target_buffers[item.key()].copy_(item.value());
  return copy;
}

OthelloNet GrowNet(OthelloNet& net, int blocks) {
  NetConfig config = net->config();
  if (blocks < config.blocks) {
    throw std::invalid_argument("GrowNet: " + std::to_string(blocks) + " blocks is fewer than the net's " +
                                std::to_string(config.blocks));
  }
  const int old_blocks = config.blocks;
  config.blocks = blocks;
  OthelloNet grown(config);
  grown->SetBatchNorm(net->batch_norm());
  torch::NoGradGuard no_grad;
  auto target = grown->named_parameters();
  for (const auto& item : net->named_parameters()) {
    target[item.key()].copy_(item.value().to(torch::kCPU));
  }
  auto target_buffers = grown->named_buffers();
  for (const auto& item : net->named_buffers()) {
    target_buffers[item.key()].copy_(item.value().to(torch::kCPU));
  }
  for (int i = old_blocks; i < blocks; ++i) grown->ZeroResidual(i);
  return grown;
}

}  // namespace othello::nn
