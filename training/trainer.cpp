#include "training/trainer.h"

#include <cmath>

#include "core/fault.h"
#include "nn/encoding.h"
#include "nn/inference.h"

namespace othello::training {

Minibatch Collate(const std::vector<Sample>& samples, const torch::Device& device) {
  const auto b = static_cast<std::int64_t>(samples.size());
  const int size = samples.front().size, area = size * size;
  torch::Tensor input = torch::empty({b, nn::kInputPlanes, size, size});
  torch::Tensor policy = torch::empty({b, area + 1}), policy_weight = torch::empty({b});
  torch::Tensor wdl = torch::empty({b, 3}), ownership = torch::empty({b, area});
  torch::Tensor disc = torch::empty({b});
  float* in = input.data_ptr<float>();
  float* p = policy.data_ptr<float>();
  float* pw = policy_weight.data_ptr<float>();
  float* v = wdl.data_ptr<float>();
  float* own = ownership.data_ptr<float>();
  float* d = disc.data_ptr<float>();
  for (std::int64_t i = 0; i < b; ++i) {
    const Sample& s = samples[i];
    nn::EncodePosition(s.ToPosition(), in + i * nn::kInputPlanes * area);
    for (int a = 0; a <= area; ++a) p[i * (area + 1) + a] = s.policy[a] / 65535.0f;
    pw[i] = s.has_policy ? 1.0f : 0.0f;
    for (int k = 0; k < 3; ++k) v[i * 3 + k] = s.wdl[k] / 65535.0f;
    for (int sq = 0; sq < area; ++sq) own[i * area + sq] = s.ownership[sq];
    d[i] = static_cast<float>(s.final_margin) / area;
  }
  Minibatch batch;
  batch.input = input.to(device);
  batch.targets.policy = policy.to(device);
  batch.targets.policy_weight = policy_weight.to(device);
  batch.targets.wdl = wdl.to(device);
  batch.targets.ownership = ownership.to(device);
  batch.targets.disc_difference = disc.to(device);
  return batch;
}

Trainer::Trainer(const TrainingConfig& config, nn::Checkpoint checkpoint,
                 const std::string& source)
    : config_(config), device_(nn::ResolveDevice(config.inference.device)) {
  net_ = checkpoint.net ? checkpoint.net : nn::OthelloNet(config.net);
  step_ = checkpoint.step;
  net_->to(device_);
  if (config.optimizer == "adamw") {
    optimizer_ = std::make_unique<torch::optim::AdamW>(
        net_->parameters(),
        torch::optim::AdamWOptions(config.learning_rate).weight_decay(config.weight_decay));
  } else {
    optimizer_ = std::make_unique<torch::optim::SGD>(
        net_->parameters(), torch::optim::SGDOptions(config.learning_rate)
                                .momentum(config.momentum)
                                .weight_decay(config.weight_decay));
  }
  nn::RestoreOptimizer(checkpoint, *optimizer_, source);
}

double LearningRateAt(const TrainingConfig& config, std::int64_t step) {
  const double base = config.learning_rate;
  if (step < config.warmup_steps) return base * (step + 1) / config.warmup_steps;
  if (config.lr_schedule == "cosine") {
    const double t = std::min(1.0, static_cast<double>(step - config.warmup_steps) /
                                       config.lr_schedule_steps);
    return base * (0.05 + 0.95 * 0.5 * (1 + std::cos(M_PI * t)));
  }
  return base;
}

double Trainer::LearningRate() const { return LearningRateAt(config_, step_); }

nn::LossTerms Trainer::Step(const std::vector<Sample>& samples) {
  if (core::InjectFault("train.step")) {
    throw std::runtime_error("injected fault (OZ_FAULT=train.step)");
  }
  const double lr = LearningRate();
  for (auto& group : optimizer_->param_groups()) group.options().set_lr(lr);
  const Minibatch batch = Collate(samples, device_);
  net_->train();
  optimizer_->zero_grad();
  nn::LossTerms loss = nn::ComputeLoss(net_->forward(batch.input), batch.targets, config_.loss);
  loss.total.backward();
  if (config_.grad_clip > 0) torch::nn::utils::clip_grad_norm_(net_->parameters(), config_.grad_clip);
  optimizer_->step();
  ++step_;
  return loss;
}

}  // namespace othello::training
