#include "training/trainer.h"

#include <algorithm>
#include <cmath>

#include "core/fault.h"
#include "nn/encoding.h"
#include "nn/inference.h"

namespace othello::training {
namespace {

// A minibatch's tensors on the host, filled one record at a time.
class HostBatch {
 public:
  HostBatch(std::int64_t count, int size)
      : area_(size * size),
        input_(torch::empty({count, nn::kInputPlanes, size, size})),
        policy_(torch::empty({count, area_ + 1})),
        policy_weight_(torch::empty({count})),
        wdl_(torch::empty({count, 3})),
        ownership_(torch::empty({count, area_})),
        disc_(torch::empty({count})) {}

  // Writes `s` as record `i`.
  void Write(std::int64_t i, const Sample& s) {
    nn::EncodePosition(s.ToPosition(), input_.data_ptr<float>() + i * nn::kInputPlanes * area_);
    float* policy = policy_.data_ptr<float>() + i * (area_ + 1);
    for (int a = 0; a <= area_; ++a) policy[a] = s.policy[a] / 65535.0f;
    policy_weight_.data_ptr<float>()[i] = s.has_policy ? 1.0f : 0.0f;
    for (int k = 0; k < 3; ++k) wdl_.data_ptr<float>()[i * 3 + k] = s.wdl[k] / 65535.0f;
    float* ownership = ownership_.data_ptr<float>() + i * area_;
    for (int sq = 0; sq < area_; ++sq) ownership[sq] = s.ownership[sq];
    disc_.data_ptr<float>()[i] = static_cast<float>(s.final_margin) / area_;
  }

  Minibatch To(const torch::Device& device) const {
    Minibatch batch;
    batch.input = input_.to(device);
    batch.targets.policy = policy_.to(device);
    batch.targets.policy_weight = policy_weight_.to(device);
    batch.targets.wdl = wdl_.to(device);
    batch.targets.ownership = ownership_.to(device);
    batch.targets.disc_difference = disc_.to(device);
    return batch;
  }

 private:
  const int area_;
  torch::Tensor input_, policy_, policy_weight_, wdl_, ownership_, disc_;
};

std::unique_ptr<torch::optim::Optimizer> MakeOptimizer(const TrainingConfig& config,
                                                       nn::OthelloNet& net) {
  switch (config.optimizer) {
    case Optimizer::kSgd:
      return std::make_unique<torch::optim::SGD>(net->parameters(),
                                                 torch::optim::SGDOptions(config.learning_rate)
                                                     .momentum(config.momentum)
                                                     .weight_decay(config.weight_decay));
    case Optimizer::kAdamW:
      return std::make_unique<torch::optim::AdamW>(
          net->parameters(),
          torch::optim::AdamWOptions(config.learning_rate).weight_decay(config.weight_decay));
  }
  return nullptr;  // not reached
}

// The cosine schedule's factor `t` of the way (0..1) to its end: 1 down to 5%.
double CosineFactor(double t) { return 0.05 + 0.95 * 0.5 * (1 + std::cos(M_PI * t)); }

}  // namespace

Minibatch Collate(const std::vector<Sample>& samples, const torch::Device& device) {
  HostBatch batch(static_cast<std::int64_t>(samples.size()), samples.front().size);
  for (std::size_t i = 0; i < samples.size(); ++i) {
    batch.Write(static_cast<std::int64_t>(i), samples[i]);
  }
  return batch.To(device);
}

Trainer::Trainer(const TrainingConfig& config, nn::Checkpoint checkpoint,
                 const std::string& source)
    : config_(config), device_(nn::ResolveDevice(config.inference.device)) {
  net_ = checkpoint.net ? checkpoint.net : nn::OthelloNet(config.net);
  step_ = checkpoint.step;
  net_->to(device_);
  optimizer_ = MakeOptimizer(config, net_);
  nn::RestoreOptimizer(checkpoint, *optimizer_, source);
}

double LearningRateAt(const TrainingConfig& config, std::int64_t step, double run_fraction) {
  const double base = config.learning_rate;
  if (step < config.warmup_steps) return base * (step + 1) / config.warmup_steps;
  switch (config.lr_schedule) {
    case LrSchedule::kConstant:
      return base;
    case LrSchedule::kCosine: {
      double done = 0;
      if (config.lr_schedule_steps > 0) {
        done = static_cast<double>(step - config.warmup_steps) / config.lr_schedule_steps;
      } else if (config.minutes > 0) {
        done = run_fraction;
      } else {  // over run.steps (the config reader refuses neither)
        done = static_cast<double>(step - config.warmup_steps) /
               std::max<std::int64_t>(1, config.steps - config.warmup_steps);
      }
      return base * CosineFactor(std::clamp(done, 0.0, 1.0));
    }
  }
  return base;  // not reached
}

double Trainer::LearningRate() const { return LearningRateAt(config_, step_, run_fraction_); }

nn::LossTerms Trainer::Step(const std::vector<Sample>& samples) {
  if (core::InjectFault("train.step")) {
    throw std::runtime_error("injected fault (OZ_FAULT=train.step)");
  }
  // OpenMP thread counts are per calling thread: set on the thread that trains.
  if (device_.is_cpu() && config_.train_threads > 0 &&
      torch::get_num_threads() != config_.train_threads) {
    torch::set_num_threads(config_.train_threads);
  }
  const double lr = LearningRate();
  for (auto& group : optimizer_->param_groups()) group.options().set_lr(lr);
  const Minibatch batch = Collate(samples, device_);
  net_->train();
  optimizer_->zero_grad();
  nn::LossTerms loss = nn::ComputeLoss(net_->forward(batch.input), batch.targets, config_.loss);
  loss.total.backward();
  if (config_.grad_clip > 0) {
    torch::nn::utils::clip_grad_norm_(net_->parameters(), config_.grad_clip);
  }
  optimizer_->step();
  ++step_;
  return loss;
}

}  // namespace othello::training
