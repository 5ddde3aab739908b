#include "training/model_publish.h"

#include <filesystem>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/file_io.h"
#include "nn/checkpoint.h"

namespace othello::training {
namespace {

namespace fs = std::filesystem;

// Removes the model files older than the newest kModelsKept.
void PruneModels(const RunDir& run) {
  const auto models = run.ModelFiles();
  for (std::size_t i = 0; i + kModelsKept < models.size(); ++i) {
    std::error_code ignored;  // a model already gone is no loss
    fs::remove(models[i].second, ignored);
  }
}

}  // namespace

void PublishModel(const RunDir& run, nn::OthelloNet& net, std::int64_t step,
                  const core::Rules& rules) {
  fs::create_directories(run.models());
  const std::string model = run.model(step);
  core::WriteFileAtomically(model, nn::SerializeCheckpoint(net, step, nullptr, rules),
                            "model file");
  const nlohmann::json manifest = {{"step", step},
                                   {"file", fs::path(model).filename().string()}};
  core::WriteFileAtomically(run.model_manifest(), manifest.dump() + "\n", "model manifest");
  PruneModels(run);
}

std::optional<PublishedModel> NewestModel(const RunDir& run) {
  const fs::path path = run.model_manifest();
  std::error_code error;
  if (!fs::exists(path, error)) return std::nullopt;
  nlohmann::json manifest;
  try {
    manifest = nlohmann::json::parse(core::ReadFile(path.string(), "model manifest"));
  } catch (const nlohmann::json::exception& e) {
    throw core::InputError("model manifest " + path.string() + ": not JSON: " + e.what());
  }
  if (!manifest.is_object() || !manifest.contains("step") ||
      !manifest["step"].is_number_integer() || !manifest.contains("file") ||
      !manifest["file"].is_string()) {
    throw core::InputError("model manifest " + path.string() +
                           ": needs an integer \"step\" and a string \"file\"");
  }
  const std::string file = manifest["file"].get<std::string>();
  if (file.empty() || file.find('/') != std::string::npos || file[0] == '.') {
    throw core::InputError("model manifest " + path.string() + ": bad file name \"" + file +
                           "\"");
  }
  return PublishedModel{manifest["step"].get<std::int64_t>(), (path.parent_path() / file).string()};
}

}  // namespace othello::training
