#include "training/trainer.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>

#include "core/error.h"
#include "core/fault.h"
#include "nn/encoding.h"
#include "nn/inference.h"
#include "nn/optimizer_state.h"
#include "nn/tensor_io.h"

namespace othello::training {
namespace {

// A minibatch's tensors on the host, filled one record at a time.
// For a CUDA device they are in pinned memory, and To() copies them without waiting
// (LibTorch's pinned allocator keeps a buffer until its copy is done).
class HostBatch {
 public:
  HostBatch(std::int64_t count, int size, bool pinned, bool aux)
      : area_(size * size),
        aux_(aux),
        options_(torch::TensorOptions().dtype(torch::kFloat32).pinned_memory(pinned)),
        input_(torch::empty({count, nn::kInputPlanes, size, size}, options_)),
        policy_(torch::empty({count, area_ + 1}, options_)),
        policy_weight_(torch::empty({count}, options_)),
        wdl_(torch::empty({count, 3}, options_)),
        ownership_(torch::empty({count, area_}, options_)),
        disc_(torch::empty({count}, options_)) {
    if (!aux) return;
    reply_ = torch::empty({count, area_ + 1}, options_);
    reply_weight_ = torch::empty({count}, options_);
    short_term_ = torch::empty({count, 2}, options_);
    short_term_weight_ = torch::empty({count}, options_);
  }

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
    if (!aux_) return;
    float* reply = reply_.data_ptr<float>() + i * (area_ + 1);
    for (int a = 0; a <= area_; ++a) reply[a] = s.reply_policy[a] / 65535.0f;
    reply_weight_.data_ptr<float>()[i] = s.has_reply ? 1.0f : 0.0f;
    for (int h = 0; h < 2; ++h) short_term_.data_ptr<float>()[i * 2 + h] = s.short_term[h] / 32767.0f;
    short_term_weight_.data_ptr<float>()[i] = s.has_short_term ? 1.0f : 0.0f;
  }

  Minibatch To(const torch::Device& device) const {
    const bool non_blocking = options_.pinned_memory();
    Minibatch batch;
    batch.input = input_.to(device, non_blocking);
    batch.targets.policy = policy_.to(device, non_blocking);
    batch.targets.policy_weight = policy_weight_.to(device, non_blocking);
    batch.targets.wdl = wdl_.to(device, non_blocking);
    batch.targets.ownership = ownership_.to(device, non_blocking);
    batch.targets.disc_difference = disc_.to(device, non_blocking);
    if (aux_) {
      batch.targets.reply_policy = reply_.to(device, non_blocking);
      batch.targets.reply_weight = reply_weight_.to(device, non_blocking);
      batch.targets.short_term = short_term_.to(device, non_blocking);
      batch.targets.short_term_weight = short_term_weight_.to(device, non_blocking);
    }
    return batch;
  }

 private:
  const int area_;
  const bool aux_;  // the auxiliary heads' targets too
  const torch::TensorOptions options_;
  torch::Tensor input_, policy_, policy_weight_, wdl_, ownership_, disc_;
  torch::Tensor reply_, reply_weight_, short_term_, short_term_weight_;  // with aux_
};

std::unique_ptr<torch::optim::Optimizer> MakeOptimizer(const TrainingConfig& config,
                                                       const std::vector<torch::Tensor>& parameters) {
  switch (config.optimizer) {
    case Optimizer::kSgd:
      return std::make_unique<torch::optim::SGD>(parameters,
                                                 torch::optim::SGDOptions(config.learning_rate)
                                                     .momentum(config.momentum)
                                                     .weight_decay(config.weight_decay));
    case Optimizer::kAdamW:
      return std::make_unique<torch::optim::AdamW>(
          parameters,
          torch::optim::AdamWOptions(config.learning_rate).weight_decay(config.weight_decay));
  }
  return nullptr;  // not reached
}

// The outputs in fp32, for a loss computed outside autocast.
nn::NetOutput ToFloat(const nn::NetOutput& output) {
  return {output.policy_logits.to(torch::kFloat32), output.wdl_logits.to(torch::kFloat32),
          output.ownership.to(torch::kFloat32), output.disc_difference.to(torch::kFloat32)};
}

// An optimizer-state entry's name, "<optimizer>/<index>/<field>" (nn/optimizer_state.h),
// split; nullopt for any other form.
struct EntryName {
  std::string optimizer;
  std::size_t index = 0;
  std::string field;
};
std::optional<EntryName> SplitEntryName(const std::string& name) {
  const std::size_t a = name.find('/');
  const std::size_t b = a == std::string::npos ? a : name.find('/', a + 1);
  if (b == std::string::npos || b == a + 1 || b - a - 1 > 6) return std::nullopt;
  const std::string index = name.substr(a + 1, b - a - 1);
  if (index.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return EntryName{name.substr(0, a), std::stoul(index), name.substr(b + 1)};
}

// `state` without the entries of parameters from index `count` on (an optimizer state
// saved with auxiliary heads, for a trainer without them). Names of another form are left
// for RestoreOptimizer to refuse.
std::map<std::string, torch::Tensor> FirstParameters(std::map<std::string, torch::Tensor> state,
                                                     std::size_t count) {
  for (auto it = state.begin(); it != state.end();) {
    const std::optional<EntryName> entry = SplitEntryName(it->first);
    it = entry && entry->index >= count ? state.erase(it) : std::next(it);
  }
  return state;
}

// The cosine schedule's factor `t` of the way (0..1) to its end: 1 down to `floor`.
double CosineFactor(double t, double floor) {
  return floor + (1 - floor) * 0.5 * (1 + std::cos(M_PI * t));
}

}  // namespace

Minibatch Collate(const std::vector<Sample>& samples, const torch::Device& device, bool aux) {
  HostBatch batch(static_cast<std::int64_t>(samples.size()), samples.front().size,
                  /*pinned=*/device.is_cuda(), aux);
  for (std::size_t i = 0; i < samples.size(); ++i) {
    batch.Write(static_cast<std::int64_t>(i), samples[i]);
  }
  return batch.To(device);
}

Trainer::Trainer(const TrainingConfig& config, nn::Checkpoint checkpoint,
                 const std::string& source)
    : config_(config),
      device_(nn::ResolveDevice(config.inference.device)),
      precision_(nn::ResolveTrainingPrecision(config.train_precision, device_)),
      scaler_(/*enabled=*/precision_ == torch::kFloat16) {
  // A checkpoint written with an average holds it as `net` and the trained weights beside.
  const bool averaged = checkpoint.net && !checkpoint.trained_weights.empty();
  net_ = !checkpoint.net ? nn::OthelloNet(config.net)
         : averaged      ? nn::TrainedNet(checkpoint, source)
                         : checkpoint.net;
  step_ = checkpoint.step;
  net_->SetBatchNorm(config.batch_norm);
  if (!checkpoint.net && !config.batch_norm) net_->InitWithoutBatchNorm();
  net_->to(device_);
  if (config.ema_steps > 0) {
    // Go on with the saved average; a run that starts averaging starts from the weights.
    average_ = nn::CloneNet(averaged ? checkpoint.net : net_);
    average_->to(device_);
    average_->eval();
  }
  std::vector<torch::Tensor> parameters = net_->parameters();
  if (config.loss.aux_heads()) {
    // The heads a checkpoint kept, or fresh ones (a run that starts training them).
    aux_ = checkpoint.net && !checkpoint.aux_weights.empty()
               ? nn::CheckpointAuxHeads(checkpoint, source)
               : nn::AuxHeads(net_->config());
    aux_->SetBatchNorm(config.batch_norm);
    aux_->to(device_);
    const std::vector<torch::Tensor> aux = aux_->parameters();
    parameters.insert(parameters.end(), aux.begin(), aux.end());
  } else if (!checkpoint.aux_weights.empty()) {
    // A run that stops training its heads drops them and their optimizer state.
    checkpoint.optimizer_state =
        FirstParameters(std::move(checkpoint.optimizer_state), parameters.size());
  }
  optimizer_ = MakeOptimizer(config, parameters);
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
      return base * CosineFactor(std::clamp(done, 0.0, 1.0), config.lr_floor);
    }
  }
  return base;  // not reached
}

std::vector<torch::Tensor> Trainer::Parameters() {
  std::vector<torch::Tensor> parameters = net_->parameters();
  if (aux_) {
    const std::vector<torch::Tensor> aux = aux_->parameters();
    parameters.insert(parameters.end(), aux.begin(), aux.end());
  }
  return parameters;
}

std::vector<std::string> Trainer::ParameterNames() {
  std::vector<std::string> names;
  for (const auto& item : net_->named_parameters()) names.push_back(item.key());
  if (aux_) {
    for (const auto& item : aux_->named_parameters()) names.push_back("aux." + item.key());
  }
  return names;
}

void Trainer::Grow(int blocks) {
  const std::vector<std::string> before = ParameterNames();
  const nn::NamedTensors state = nn::OptimizerTensors(*optimizer_);
  net_ = nn::GrowNet(net_, blocks);
  net_->to(device_);
  if (average_) {
    average_ = nn::GrowNet(average_, blocks);
    average_->to(device_);
    average_->eval();
  }
  // The optimiser's state is by parameter index: the new blocks come before the heads,
  // so every entry moves to its parameter's new index.
  const std::vector<std::string> after = ParameterNames();
  std::map<std::string, std::size_t> index_after;
  for (std::size_t i = 0; i < after.size(); ++i) index_after[after[i]] = i;
  std::map<std::string, torch::Tensor> moved;
  for (const auto& [name, tensor] : state) {
    const EntryName entry = SplitEntryName(name).value();  // OptimizerTensors' own names
    moved[entry.optimizer + "/" + std::to_string(index_after.at(before.at(entry.index))) + "/" +
          entry.field] = tensor;
  }
  optimizer_ = MakeOptimizer(config_, Parameters());
  nn::LoadOptimizerTensors(*optimizer_, moved, "the grown network's optimizer");
}

nn::Checkpoint LoadRunCheckpoint(const TrainingConfig& config, const std::string& path) {
  if (config.grow_blocks == 0) return nn::LoadCheckpoint(path, config.net);
  nn::Checkpoint checkpoint = nn::LoadCheckpoint(path);
  const nn::NetConfig& net = checkpoint.net->config();
  if (!IsRunNet(config, net)) {
    throw core::InputError("checkpoint " + path + ": network configuration differs: " +
                           net.Difference(config.net) + ", and from the grown network (" +
                           GrownNet(config).Describe() + ")");
  }
  return checkpoint;
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
  const Minibatch batch = Collate(samples, device_, /*aux=*/static_cast<bool>(aux_));
  net_->train();
  if (aux_) aux_->train();
  optimizer_->zero_grad();
  nn::NetOutput output;
  nn::AuxOutput aux_output;
  nn::CpuBf16Guard cpu_bf16(device_, precision_);
  torch::Tensor trunk;
  // The auxiliary heads are small: on the CPU their casts under autocast cost more than
  // bf16 saves, so they run in fp32 there (bench train: 29 steps/s against 27.6).
  const bool aux_in_fp32 = aux_ && device_.is_cpu();
  {
    nn::AutocastGuard autocast(device_, precision_);
    output = aux_ ? net_->ForwardWithTrunk(batch.input, trunk) : net_->forward(batch.input);
    if (aux_ && !aux_in_fp32) aux_output = aux_->forward(trunk);
  }
  if (aux_in_fp32) aux_output = aux_->forward(trunk.to(torch::kFloat32));
  nn::LossTerms loss = nn::ComputeLoss(ToFloat(output), batch.targets, config_.loss);
  if (aux_) {
    const nn::AuxOutput aux_float = {aux_output.soft_policy_logits.to(torch::kFloat32),
                                     aux_output.reply_policy_logits.to(torch::kFloat32),
                                     aux_output.short_term.to(torch::kFloat32)};
    loss.auxiliary = nn::ComputeAuxLoss(aux_float, batch.targets, config_.loss);
    loss.total = loss.total + loss.auxiliary;
  }
  scaler_.Scale(loss.total).backward();
  const std::vector<torch::Tensor> parameters = Parameters();
  if (gradient_hook_) gradient_hook_(parameters);
  const bool overflow = scaler_.Unscale(parameters);
  if (!overflow) {  // an overflowing fp16 step is skipped (the scale is lowered)
    if (config_.grad_clip > 0) nn::ClipGradNorm(parameters, config_.grad_clip);
    optimizer_->step();
  }
  scaler_.Update(overflow);
  ++step_;
  if (average_ && !overflow) UpdateAverage();
  return loss;
}

void Trainer::UpdateAverage() {
  // average += (trained - average) / ema_steps: an exponential average over about
  // ema_steps steps. Integer buffers (BatchNorm's batch count) are copied.
  const double rate = 1.0 / config_.ema_steps;
  torch::NoGradGuard no_grad;
  const auto trained = nn::ModuleTensors(*net_);
  const auto average = nn::ModuleTensors(*average_);
  for (std::size_t i = 0; i < average.size(); ++i) {
    torch::Tensor a = average[i].second;
    const torch::Tensor& t = trained[i].second;
    if (a.is_floating_point()) {
      a.lerp_(t, rate);
    } else {
      a.copy_(t);
    }
  }
}

void LossSums::Add(const nn::LossTerms& terms) {
  const torch::Tensor auxiliary =
      terms.auxiliary.defined() ? terms.auxiliary : torch::zeros_like(terms.total);
  const torch::Tensor step = torch::stack({terms.total, terms.policy, terms.value, terms.ownership,
                                           terms.disc_difference, auxiliary})
                                 .detach()
                                 .to(torch::kFloat64);
  sums_ = sums_.defined() ? sums_ + step : step;
  ++steps_;
}

LossSums::Means LossSums::Read() {
  Means means;
  if (steps_ == 0) return means;
  const torch::Tensor host = (sums_ / steps_).cpu();  // the one synchronisation
  const double* m = host.data_ptr<double>();
  means = {m[0], m[1], m[2], m[3], m[4], m[5], steps_};
  sums_ = torch::Tensor();
  steps_ = 0;
  return means;
}

}  // namespace othello::training
