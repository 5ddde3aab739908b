// nn/model_loader.h: LoadModel, the part that reads checkpoints (needs LibTorch).
#include <fstream>

#include "core/error.h"
#include "mcts/eval_cache.h"
#include "nn/checkpoint.h"
#include "nn/inference.h"
#include "nn/model_file.h"
#include "nn/model_loader.h"

namespace othello::nn {

LoadedModel LoadModel(const std::string& path, const ModelOptions& options) {
  if (!std::ifstream(path)) throw core::InputError("model " + path + ": cannot be opened");
  if (IsModelFile(path)) return LoadExportedModel(path, options);
  Checkpoint checkpoint = LoadCheckpoint(path);
  LoadedModel model;
  model.rules = checkpoint.rules.value_or(core::Rules{});
  InferenceOptions inference;
  inference.device = options.device;
  model.evaluator = mcts::WithCache(std::make_shared<NetEvaluator>(checkpoint.net, inference),
                                    options.cache_entries, /*canonical=*/true);
  return model;
}

}  // namespace othello::nn
