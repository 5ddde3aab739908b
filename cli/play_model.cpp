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
    s.visits = visits;
    s.seconds = seconds;
  }
  s.root_solve_empties = root_solve_empties;
  return s;
}

void AddStrengthOptions(CLI::App& cmd, StrengthOptions& options) {
  cmd.add_option("--level", options.level,
                 "Strength level 1 (weakest) to 10; overrides --visits and --seconds "
                 "(default: none, --visits and --seconds rule)")
      ->check(CLI::Range(1, 10));
  cmd.add_option("--visits", options.visits, "Playouts per move")->capture_default_str();
  cmd.add_option("--seconds", options.seconds, "Seconds per move (0: no limit)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1e6));
  const play::IntSetting& root_solve = play::kPlayRootSolve;
  cmd.add_option("--root-solve", options.root_solve_empties, root_solve.help)
      ->capture_default_str()
      ->check(CLI::Range(root_solve.low, root_solve.high));
}

}  // namespace othello::cli
