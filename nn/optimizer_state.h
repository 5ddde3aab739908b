#pragma once
// The per-parameter state of the trainer's optimizers (SGD's momentum buffers; Adam's and
// AdamW's step counts and moment estimates) as named tensors (nn/tensor_io.h), so that a
// checkpoint holds it in the project's own encoding rather than a LibTorch archive.
// Names are "<optimizer>/<parameter index>/<field>", e.g. "adamw/3/exp_avg"; the
// hyperparameters (learning rate, decay) are not saved: the run's config sets them.
// Thread safety: none; the optimizer must not be stepping.
#include <map>
#include <string>

#include <torch/torch.h>

#include "nn/tensor_io.h"

namespace othello::nn {

// "sgd", "adam" or "adamw"; other optimizers are refused (std::invalid_argument).
std::string OptimizerKind(const torch::optim::Optimizer& optimizer);

NamedTensors OptimizerTensors(torch::optim::Optimizer& optimizer);
// Replaces the optimizer's state with the saved one. Every entry must name this kind of
// optimizer, one of its parameters, a field of its state and that parameter's shape;
// otherwise core::InputError naming `where`.
void LoadOptimizerTensors(torch::optim::Optimizer& optimizer,
                          const std::map<std::string, torch::Tensor>& tensors,
                          const std::string& where);

}  // namespace othello::nn
