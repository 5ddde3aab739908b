#include "cli/play_model.h"

#include "core/error.h"
#include "nn/model_loader.h"
#include "nn/shipped_model.h"

namespace othello::cli {

namespace {

#if OZ_HAVE_TORCH
constexpr bool kHaveTorch = true;
#else
constexpr bool kHaveTorch = false;
#endif

// "" for a device this build can ask for, else why not.
std::string CheckDevice(const std::string& device) {
  const bool cuda = nn::IsCudaDeviceName(device);
  if (!nn::IsDeviceName(device)) {
    return "unknown device '" + device + "' (use auto, cpu, cuda or cuda:N)";
  }
  if (cuda && !kHaveTorch) {
    return "device '" + device +
           "': this build has no LibTorch, so models run on the CPU (use auto or cpu)";
  }
  return "";
}

}  // namespace

nn::ModelLoader BuildModelLoader() {
#if OZ_HAVE_TORCH
  return nn::LoadModel;
#else
  return nn::LoadExportedModel;
#endif
}

std::string PlayModelName(const std::string& path) {
  return path.empty() ? std::string(nn::kShippedModelName) : path;
}

nn::LoadedModel LoadPlayModel(const std::string& path, const std::string& device) {
  nn::EvaluatorOptions options;
  options.device = device;
  options.cache_entries = std::size_t{1} << 16;
  if (path.empty()) return nn::LoadShippedModel(options);
  try {
    return BuildModelLoader()(path, options);
  } catch (const core::InputError& e) {
    // The device's errors (no CUDA here) do not name the file.
    if (std::string(e.what()).find(path) != std::string::npos) throw;
    throw core::InputError("model " + path + ": " + e.what());
  }
}

CLI::Validator DeviceValidator() {
  return CLI::Validator([](std::string& value) { return CheckDevice(value); },
                        kHaveTorch ? "auto|cpu|cuda|cuda:N" : "auto|cpu", "device");
}

void AddDeviceOption(CLI::App& cmd, std::string& device, const std::string& what) {
  const std::string help =
      kHaveTorch ? what + ": auto (CUDA when there is a GPU, else the CPU), cpu, cuda or "
                          "cuda:N; exported models run on the CPU only"
                 : what + ": auto or cpu (this build has no LibTorch: models run on the CPU)";
  cmd.add_option("--device", device, help)->capture_default_str()->check(DeviceValidator());
}

play::Strength StrengthOptions::Resolve() const {
  play::Strength s;
  if (level) {
    s = play::StrengthForLevel(level);
  } else {
    if (!play::HasLimit(visits, seconds)) {
      throw core::InputError(std::string(play::kMoveVisits.flag) + " 0 needs " +
                             play::kMoveSeconds.flag + " (a move needs a limit)");
    }
    s.visits = visits;
    s.seconds = seconds;
  }
  s.root_solve_empties = root_solve_empties;
  return s;
}

void AddStrengthOptions(CLI::App& cmd, StrengthOptions& options) {
  const play::Setting<int>& level = play::kLevel;
  cmd.add_option(level.flag, options.level,
                 std::string(level.help) + " (default: none, --visits and --seconds rule)")
      ->check(CLI::Range(level.low, level.high));
  AddSetting(cmd, play::kMoveVisits, options.visits);
  AddSetting(cmd, play::kMoveSeconds, options.seconds);
  AddSetting(cmd, play::kRootSolve, options.root_solve_empties);
}

}  // namespace othello::cli
