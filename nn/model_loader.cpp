#include "nn/model_loader.h"

#include <fstream>

#include "core/error.h"
#include "nn/eigen_net.h"
#include "nn/model_file.h"

namespace othello::nn {

LoadedModel LoadExportedModel(const std::string& path, const EvaluatorOptions& options) {
  if (!std::ifstream(path)) throw core::InputError("model " + path + ": cannot be opened");
  if (!IsModelFile(path)) {
    throw core::InputError("model " + path +
                           ": not an exported model file (this build has no LibTorch to read "
                           "checkpoints: export one with `othello-zero export`)");
  }
  CheckExportedModelDevice("model " + path, options);
  return ExportedModel(ReadModelFile(path), options);
}

void CheckExportedModelDevice(const std::string& name, const EvaluatorOptions& options) {
  if (options.device != "auto" && options.device != "cpu") {
    throw core::InputError(name + ": an exported model runs on the CPU (device '" +
                           options.device + "' needs a checkpoint and a LibTorch build)");
  }
}

LoadedModel ExportedModel(const ModelFile& file, const EvaluatorOptions& options) {
  LoadedModel model;
  model.rules = file.rules;
  model.evaluator = MakeEvaluator(std::make_shared<const EigenNet>(file), file.step, options);
  return model;
}

}  // namespace othello::nn
