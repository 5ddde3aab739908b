#include "nn/aux_heads.h"

namespace othello::nn {

AuxHeadsImpl::AuxHeadsImpl(const NetConfig& config) {
  config.Validate();
  const int c = config.channels, h = config.head_channels;
  const auto conv = [](int in, int out) {
    return torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, 1).bias(false));
  };
  policy_conv_ = register_module("policy_conv", conv(c, h));
  policy_bn_ = register_module("policy_bn", torch::nn::BatchNorm2d(h));
  policy_out_ = register_module(
      "policy_out", torch::nn::Conv2d(torch::nn::Conv2dOptions(h, 2, 1).bias(true)));
  pass_fc_ = register_module("pass_fc", torch::nn::Linear(2 * h, 2));
  value_conv_ = register_module("value_conv", conv(c, h));
  value_bn_ = register_module("value_bn", torch::nn::BatchNorm2d(h));
  value_fc_ = register_module("value_fc", torch::nn::Linear(2 * h, config.value_hidden));
  short_term_fc_ = register_module("short_term_fc", torch::nn::Linear(config.value_hidden, 2));
}

AuxOutput AuxHeadsImpl::forward(const torch::Tensor& trunk) {
  AuxOutput out;
  const torch::Tensor p = torch::relu(Normalise(policy_bn_, policy_conv_(trunk), batch_norm_));
  const torch::Tensor squares = policy_out_(p).flatten(2);  // [B, 2, N*N]
  const torch::Tensor pass = pass_fc_(GlobalPool(p));       // [B, 2]
  out.soft_policy_logits = torch::cat({squares.select(1, 0), pass.narrow(1, 0, 1)}, 1);
  out.reply_policy_logits = torch::cat({squares.select(1, 1), pass.narrow(1, 1, 1)}, 1);
  const torch::Tensor v = torch::relu(Normalise(value_bn_, value_conv_(trunk), batch_norm_));
  out.short_term = torch::tanh(short_term_fc_(torch::relu(value_fc_(GlobalPool(v)))));
  return out;
}

}  // namespace othello::nn
