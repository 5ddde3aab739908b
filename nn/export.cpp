#include "nn/export.h"

namespace othello::nn {

namespace {

std::vector<float> Values(const torch::Tensor& t) {
  const torch::Tensor c = t.detach().to(torch::kCPU, torch::kFloat32).contiguous();
  return std::vector<float>(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
}

std::vector<int> Shape(const torch::Tensor& t) {
  return std::vector<int>(t.sizes().begin(), t.sizes().end());
}

void Put(ModelFile& model, const std::string& name, const torch::Tensor& weight,
         const torch::Tensor& bias) {
  model.tensors[name + ".weight"] = {Shape(weight), Values(weight)};
  model.tensors[name + ".bias"] = {Shape(bias), Values(bias)};
}

}  // namespace

ModelFile ExportModel(OthelloNet& net, const core::Rules& rules, std::int64_t step) {
  torch::NoGradGuard no_grad;
  ModelFile model;
  model.net = net->config();
  model.rules = rules;
  model.step = step;
  const auto params = net->named_parameters();
  const auto buffers = net->named_buffers();
  // conv (no bias) followed by batch norm: w' = w * g / sqrt(var + eps), b' = beta - mean * that.
  auto fold = [&](const std::string& conv, const std::string& bn, const std::string& name) {
    const torch::Tensor w = params[conv + ".weight"];
    const torch::Tensor scale =
        params[bn + ".weight"] / torch::sqrt(buffers[bn + ".running_var"] + 1e-5);
    Put(model, name, w * scale.view({-1, 1, 1, 1}),
        params[bn + ".bias"] - buffers[bn + ".running_mean"] * scale);
  };
  auto plain = [&](const std::string& name) {
    Put(model, name, params[name + ".weight"], params[name + ".bias"]);
  };
  fold("stem", "stem_bn", "stem");
  for (int i = 0; i < model.net.blocks; ++i) {
    const std::string b = "block" + std::to_string(i);
    fold(b + ".conv1", b + ".bn1", b + ".conv1");
    fold(b + ".conv2", b + ".bn2", b + ".conv2");
    if (params.contains(b + ".pool_bias.weight")) plain(b + ".pool_bias");
  }
  fold("policy_conv", "policy_bn", "policy_conv");
  plain("policy_out");
  plain("pass_fc");
  fold("value_conv", "value_bn", "value_conv");
  for (const char* name : {"value_fc", "wdl_fc", "disc_fc", "ownership_conv"}) plain(name);
  return model;
}

}  // namespace othello::nn
