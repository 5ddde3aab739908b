// nn/evaluator.h: the stack above the network, and the exported model's (eigen) backend.
#include "nn/evaluator.h"

#include <stdexcept>

#include "core/error.h"
#include "core/fault.h"
#include "mcts/eval_cache.h"
#include "mcts/symmetry_evaluator.h"
#include "nn/eigen_net.h"

namespace othello::nn {

bool IsCudaDeviceName(const std::string& device) {
  const bool indexed = device.rfind("cuda:", 0) == 0 && device.size() > 5 &&
                       device.find_first_not_of("0123456789", 5) == std::string::npos;
  return device == "cuda" || indexed;
}

bool IsDeviceName(const std::string& device) {
  return device == "auto" || device == "cpu" || IsCudaDeviceName(device);
}

mcts::EvalFunction WithFaultPoint(mcts::EvalFunction run) {
  return [run = std::move(run)](const std::vector<const core::Position*>& positions,
                                const std::vector<mcts::EvalOutput*>& outputs) {
    if (core::InjectFault("evaluate")) {
      throw std::runtime_error("network evaluation failed: injected fault (OZ_FAULT=evaluate)");
    }
    run(positions, outputs);
  };
}

std::shared_ptr<mcts::Evaluator> WrapNetwork(std::shared_ptr<mcts::Evaluator> network,
                                             std::int64_t step, const EvaluatorOptions& options,
                                             EvaluatorLayers* layers) {
  std::shared_ptr<mcts::Evaluator> evaluator = std::move(network);
  if (options.random_symmetry) {
    evaluator = std::make_shared<mcts::RandomSymmetryEvaluator>(
        std::move(evaluator), options.seed ^ static_cast<std::uint64_t>(step));
  }
  if (options.cache_entries == 0) return evaluator;
  auto cache = std::make_shared<mcts::CachingEvaluator>(std::move(evaluator),
                                                        options.cache_entries,
                                                        options.cache_canonical);
  if (layers) layers->cache = cache;
  return cache;
}

std::shared_ptr<mcts::Evaluator> MakeEvaluator(std::shared_ptr<const EigenNet> net,
                                               std::int64_t step, const EvaluatorOptions& options,
                                               EvaluatorLayers* layers) {
  if (options.backend != "auto" && options.backend != "eigen") {
    throw core::InputError("an exported model runs with the eigen backend, not '" +
                           options.backend + "'");
  }
  if (options.device != "auto" && options.device != "cpu") {
    throw core::InputError("an exported model runs on the CPU, not on device '" +
                           options.device + "'");
  }
  if (layers) layers->backend = "eigen", layers->device = "cpu", layers->precision = "fp32";
  auto network = std::make_shared<mcts::FunctionEvaluator>(WithFaultPoint(
      [net](const std::vector<const core::Position*>& positions,
            const std::vector<mcts::EvalOutput*>& outputs) { net->Forward(positions, outputs); }));
  return WrapNetwork(std::move(network), step, options, layers);
}

}  // namespace othello::nn
