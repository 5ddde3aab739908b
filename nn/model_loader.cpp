#include "nn/model_loader.h"

#include <fstream>

#include "core/error.h"
#include "mcts/eval_cache.h"
#include "nn/eigen_net.h"
#include "nn/model_file.h"

namespace othello::nn {

bool IsCudaDeviceName(const std::string& device) {
  const bool indexed = device.rfind("cuda:", 0) == 0 && device.size() > 5 &&
                       device.find_first_not_of("0123456789", 5) == std::string::npos;
  return device == "cuda" || indexed;
}

bool IsDeviceName(const std::string& device) {
  return device == "auto" || device == "cpu" || IsCudaDeviceName(device);
}

LoadedModel LoadExportedModel(const std::string& path, const ModelOptions& options) {
  if (!std::ifstream(path)) throw core::InputError("model " + path + ": cannot be opened");
  if (!IsModelFile(path)) {
    throw core::InputError("model " + path +
                           ": not an exported model file (this build has no LibTorch to read "
                           "checkpoints: export one with `othello-zero export`)");
  }
  if (options.device != "auto" && options.device != "cpu") {
    throw core::InputError("model " + path + ": an exported model runs on the CPU (device '" +
                           options.device + "' needs a checkpoint and a LibTorch build)");
  }
  const ModelFile file = ReadModelFile(path);
  LoadedModel model;
  model.rules = file.rules;
  model.evaluator = mcts::WithCache(std::make_shared<EigenEvaluator>(std::make_shared<EigenNet>(file)),
                                    options.cache_entries, /*canonical=*/true);
  return model;
}

}  // namespace othello::nn
