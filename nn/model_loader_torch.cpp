// nn/model_loader.h: LoadModel, the part that reads checkpoints (needs LibTorch).
#include <fstream>

#include "core/error.h"
#include "nn/checkpoint.h"
#include "nn/evaluator.h"
#include "nn/model_file.h"
#include "nn/model_loader.h"

namespace othello::nn {

LoadedModel LoadModel(const std::string& path, const EvaluatorOptions& options) {
  switch (ProbeModelFile(path)) {
    case ModelFileKind::kExportedModel: return LoadExportedModel(path, options);
    case ModelFileKind::kCheckpoint: break;
    case ModelFileKind::kNeither: throw NotAModelError(path);
  }
  Checkpoint checkpoint = LoadCheckpoint(path);
  LoadedModel model;
  model.rules = checkpoint.rules.value_or(core::Rules{});
  model.evaluator = MakeEvaluator(checkpoint.net, model.rules, checkpoint.step, options);
  return model;
}

}  // namespace othello::nn
