#include "training/run_config_file.h"

#include <algorithm>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/file_io.h"

namespace othello::training {

void SaveRunConfig(const RunDir& run, const std::string& yaml, const std::string& name,
                   const std::vector<std::string>& overrides) {
  std::filesystem::create_directories(run.root());
  const nlohmann::json config = {{"file", name}, {"yaml", yaml}, {"overrides", overrides}};
  core::WriteFileAtomically(run.config_file(), config.dump(2) + "\n", "run configuration");
}

TrainingConfig LoadRunConfig(const RunDir& run, const std::vector<std::string>& extra) {
  const std::string path = run.config_file();
  std::error_code error;
  if (!std::filesystem::exists(path, error)) {
    throw core::InputError("run configuration " + path +
                           ": missing (start the learner, othello-zero train, on this run "
                           "directory first, or give the actor --config)");
  }
  nlohmann::json config;
  try {
    config = nlohmann::json::parse(core::ReadFile(path, "run configuration"));
  } catch (const nlohmann::json::exception& e) {
    throw core::InputError("run configuration " + path + ": not JSON: " + e.what());
  }
  const auto text = [&](const char* key) -> std::string {
    if (!config.is_object() || !config.contains(key) || !config[key].is_string()) {
      throw core::InputError("run configuration " + path + ": \"" + key +
                             "\" must be a string");
    }
    return config[key].get<std::string>();
  };
  std::vector<std::string> overrides;
  if (config.contains("overrides")) {
    const auto& list = config["overrides"];
    if (!list.is_array() ||
        !std::all_of(list.begin(), list.end(), [](const auto& v) { return v.is_string(); })) {
      throw core::InputError("run configuration " + path +
                             ": \"overrides\" must be a list of strings");
    }
    overrides = list.get<std::vector<std::string>>();
  }
  overrides.insert(overrides.end(), extra.begin(), extra.end());
  const std::string yaml = text("yaml");
  const std::string name = text("file") + " (by way of " + path + ")";
  return ParseTrainingConfig(yaml, name, overrides);
}

}  // namespace othello::training
