#include "nn/model_loader.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "nn/eigen_net.h"
#include "nn/file_magic.h"
#include "nn/model_file.h"

namespace othello::nn {

ModelFileKind ProbeModelFile(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    throw core::InputError("model " + path + ": is a folder, not a model file");
  }
  errno = 0;
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    const int reason = errno;
    throw core::InputError("model " + path + ": cannot be opened" +
                           (reason ? std::string(": ") + std::strerror(reason) : ""));
  }
  char magic[8] = {};
  file.read(magic, sizeof magic);
  const std::size_t got = static_cast<std::size_t>(file.gcount());
  if (got == sizeof magic && std::memcmp(magic, kModelFileMagic, sizeof magic) == 0) {
    return ModelFileKind::kExportedModel;
  }
  if (got >= static_cast<std::size_t>(kCheckpointMagicCompared) &&
      std::memcmp(magic, kCheckpointMagic, kCheckpointMagicCompared) == 0) {
    return ModelFileKind::kCheckpoint;
  }
  return ModelFileKind::kNeither;
}

core::InputError NotAModelError(const std::string& path) {
  return core::InputError("model " + path +
                          ": neither an exported model (`othello-zero export` writes one) nor a "
                          "checkpoint (RUN/checkpoints/*.ckpt): its first bytes are neither's");
}

LoadedModel LoadExportedModel(const std::string& path, const EvaluatorOptions& options) {
  switch (ProbeModelFile(path)) {
    case ModelFileKind::kExportedModel: break;
    case ModelFileKind::kCheckpoint:
      throw core::InputError("model " + path +
                             ": a checkpoint, which this build cannot read (it has no LibTorch): "
                             "export it with `othello-zero export` in a LibTorch build");
    case ModelFileKind::kNeither: throw NotAModelError(path);
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
