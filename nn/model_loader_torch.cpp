// nn/model_loader.h: LoadModel, the part that reads checkpoints (needs LibTorch).
#include <fstream>

#include "core/error.h"
#include "nn/checkpoint.h"
#include "nn/evaluator.h"
#include "nn/model_file.h"
#include "nn/model_loader.h"

namespace othello::nn {

LoadedModel LoadModel(const std::string& path, const EvaluatorOptions& options) {
  if (!std::ifstream(path)) throw core::InputError("model " + path + ": cannot be opened");
  if (IsModelFile(path)) return LoadExportedModel(path, options);
  Checkpoint checkpoint = LoadCheckpoint(path);
  LoadedModel model;
  model.rules = checkpoint.rules.value_or(core::Rules{});
  model.evaluator = MakeEvaluator(checkpoint.net, model.rules, checkpoint.step, options);
  return model;
}

}  // namespace othello::nn
