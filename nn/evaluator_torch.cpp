// nn/evaluator.h: the parts that need LibTorch (a trainable network's evaluator).
#include <chrono>

#include "core/error.h"
#include "mcts/batching_evaluator.h"
#include "nn/eigen_net.h"
#include "nn/evaluator.h"
#include "nn/export.h"
#include "nn/inference.h"
#include "nn/mixed_precision.h"

namespace othello::nn {

bool UsesEigen(const EvaluatorOptions& options) {
  if (options.backend == "torch") return false;
  if (options.backend != "auto" && options.backend != "eigen") {
    throw core::InputError("unknown inference backend '" + options.backend +
                           "' (use auto, torch or eigen)");
  }
  const bool cpu = ResolveDevice(options.device).is_cpu();
  if (options.backend == "eigen" && !cpu) {
    throw core::InputError("inference.backend 'eigen' runs on the CPU, not on device '" +
                           options.device + "'");
  }
  return cpu;
}

std::shared_ptr<mcts::Evaluator> MakeEvaluator(OthelloNet& net, const core::Rules& rules,
                                               std::int64_t step, const EvaluatorOptions& options,
                                               EvaluatorLayers* layers) {
  if (UsesEigen(options)) {
    EvaluatorOptions eigen = options;
    eigen.backend = "eigen";
    eigen.device = "cpu";
    return MakeEvaluator(std::make_shared<const EigenNet>(ExportModel(net, rules, step)), step,
                         eigen, layers);
  }
  auto torch_net = std::make_shared<TorchNet>(net, options);
  auto batcher = std::make_shared<mcts::BatchingEvaluator>(
      WithFaultPoint([torch_net](const std::vector<const core::Position*>& positions,
                                 const std::vector<mcts::EvalOutput*>& outputs) {
        torch_net->Forward(positions, outputs);
      }),
      torch_net->max_batch(), std::chrono::microseconds(options.max_wait_us),
      /*workers=*/torch_net->device().is_cuda() ? 2 : 1);
  if (layers) {
    layers->batcher = batcher;
    layers->backend = "torch";
    layers->device = torch_net->device().str();
    layers->precision = PrecisionName(torch_net->dtype());
  }
  return WrapNetwork(std::move(batcher), step, options, layers);
}

}  // namespace othello::nn
