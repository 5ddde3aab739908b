#pragma once
// The trainer: minibatches from the replay buffer, SGD with momentum or AdamW, a
// linear warm-up then a constant or cosine learning rate, weight decay, gradient
// clipping, and the loss of nn/loss.h. Runs on the inference device (CUDA when
// available) in train.precision: fp32, or the forward pass under bf16/fp16 autocast
// with fp32 weights and an fp32 loss (fp16 with dynamic loss scaling; a step whose
// gradients overflow is skipped), nn/mixed_precision.h. A step reads nothing back to
// the host (except fp16's overflow check): its losses stay on the device until a
// report reads them (LossSums).
// With train.ema_steps > 0 the trainer also keeps an exponential moving average of the
// weights (and of BatchNorm's running statistics) over about that many steps: the network
// published to self-play, evaluated and saved as a checkpoint's `net` (played and
// exported), while the optimiser goes on from the trained weights (saved beside it,
// nn::Checkpoint::trained_weights), so a run resumes exactly.
// Where a loss weight of the auxiliary heads is above 0 (nn/aux_heads.h: soft policy,
// reply policy, short-term values), the trainer also trains those heads on the trunk's
// features (one optimiser over the network's parameters, then theirs); checkpoints keep
// them (aux_heads()), and nothing else sees them.
// Streams: a step queues its work on the calling thread's current stream. A training run
// gives its thread a stream of its own (training/run.cpp, nn/device_stream.h), and reads
// the weights on that same thread (checkpoints, and the copies published to self-play,
// which nn::TorchNet uploads and waits for before its own streams read them), so every
// read comes after the steps before it.
// Thread safety: one thread drives a Trainer; net(), published_net() and optimizer() are
// its own, to be read (checkpoints, publishing to self-play) by that thread between steps.
#include <functional>
#include <memory>
#include <vector>

#include <torch/torch.h>

#include "nn/aux_heads.h"
#include "nn/checkpoint.h"
#include "nn/loss.h"
#include "nn/mixed_precision.h"
#include "training/config.h"
#include "training/sample.h"

namespace othello::training {

struct Minibatch {
  torch::Tensor input;
  nn::TrainingTargets targets;
};

// Tensors for `samples` (all of one board size) on `device`; with `aux`, the auxiliary
// heads' targets too.
Minibatch Collate(const std::vector<Sample>& samples, const torch::Device& device,
                  bool aux = false);

// Reads a checkpoint of this run: its network must be config.net or, in a run that grows
// it (network.grow_blocks), the grown one; otherwise core::InputError naming `path`.
nn::Checkpoint LoadRunCheckpoint(const TrainingConfig& config, const std::string& path);

// The learning rate at `step`: a linear warm-up over warmup_steps (from base/warmup to
// base), then constant, or cosine from base down to lr_floor of it over
// lr_schedule_steps (and that floor after them).
// `run_fraction`: how much of the run's length (run.minutes) is done, for a cosine
// schedule over the run's length (lr_schedule_steps 0); ignored otherwise.
double LearningRateAt(const TrainingConfig& config, std::int64_t step, double run_fraction = 0);

// Sums of the loss terms over the steps since the last Read(), kept on the device so
// that a step needs no host synchronisation; Read() synchronises once.
class LossSums {
 public:
  struct Means {
    double total = 0, policy = 0, value = 0, ownership = 0, disc_difference = 0;
    double auxiliary = 0;  // the auxiliary heads' weighted loss (0 without them)
    int steps = 0;
  };
  void Add(const nn::LossTerms& terms);
  // The means since the last Read() (zeros without steps), and starts again.
  Means Read();

 private:
  torch::Tensor sums_;  // [6] on the training device; undefined before the first Add
  int steps_ = 0;
};

class Trainer {
 public:
  // Starts from `checkpoint` (its net, step and optimizer state) or, when its net is
  // null, from a fresh network of config.net.
  Trainer(const TrainingConfig& config, nn::Checkpoint checkpoint, const std::string& source);

  // One optimiser step on `samples`; its losses (fp32 scalars on the device).
  nn::LossTerms Step(const std::vector<Sample>& samples);
  double LearningRate() const;
  // For a schedule over the run's time: the fraction of run.minutes trained so far.
  void SetRunFraction(double fraction) { run_fraction_ = fraction; }
  // Runs in every Step() after the backward pass, with the parameters (their grad()
  // set, fp16's loss scale still in them), before the overflow check, clipping and the
  // optimiser: data-parallel training averages the gradients across ranks there
  // (training/distributed.h), so that every rank takes the same step.
  using GradientHook = std::function<void(const std::vector<torch::Tensor>& parameters)>;
  void SetGradientHook(GradientHook hook) { gradient_hook_ = std::move(hook); }

  // Appends residual blocks up to `blocks` to the trained network (and to its average),
  // each starting as the identity (nn::GrowNet): the outputs do not change, and the
  // optimiser keeps every earlier parameter's state (network.grow_blocks).
  void Grow(int blocks);

  std::int64_t step() const { return step_; }
  // The weights the optimiser trains.
  nn::OthelloNet& net() { return net_; }
  // What self-play, evaluations and checkpoints get: the average, or net() without one.
  nn::OthelloNet& published_net() { return average_ ? average_ : net_; }
  // The trained weights to save beside a published average (nullptr without one).
  nn::OthelloNet* trained_net() { return average_ ? &net_ : nullptr; }
  // The auxiliary heads, or nullptr without them (to be saved with a checkpoint).
  nn::AuxHeads* aux_heads() { return aux_ ? &aux_ : nullptr; }
  torch::optim::Optimizer& optimizer() { return *optimizer_; }
  const torch::Device& device() const { return device_; }
  // The forward pass's compute type: kFloat32 (no autocast), kBFloat16 or kFloat16.
  torch::ScalarType precision() const { return precision_; }
  const nn::GradScaler& scaler() const { return scaler_; }

 private:
  void UpdateAverage();  // after an optimiser step
  std::vector<torch::Tensor> Parameters();  // the network's, then the auxiliary heads'
  std::vector<std::string> ParameterNames();  // the same order ("aux." before the heads')

  const TrainingConfig config_;
  torch::Device device_;
  torch::ScalarType precision_;
  nn::GradScaler scaler_;  // enabled for fp16 only
  nn::OthelloNet net_{nullptr};
  nn::OthelloNet average_{nullptr};  // train.ema_steps > 0: the moving average
  nn::AuxHeads aux_{nullptr};        // a loss weight of the auxiliary heads above 0
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
  std::int64_t step_ = 0;
  double run_fraction_ = 0;
  GradientHook gradient_hook_;  // none: one process
};

}  // namespace othello::training
