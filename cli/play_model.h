#pragma once
// What the play subcommands (gtp, nboard, play, serve, analyse) share: the model behind
// them (an exported model file, run with Eigen on the CPU; or, in a build with LibTorch,
// a checkpoint, on the CPU or a CUDA device), the device option and the strength options.
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "core/rules.h"
#include "mcts/evaluator.h"
#include "nn/model_loader.h"
#include "play/game_session.h"
#include "play/play_settings.h"

namespace othello::cli {

// The loader of this build: exported models, and checkpoints where LibTorch is linked.
nn::ModelLoader BuildModelLoader();

// With a result cache for play, on `device` (auto, cpu, cuda, cuda:N); "" is the shipped
// model (nn/shipped_model.h). Throws
// core::InputError naming the file (a missing, corrupt or unknown file; an exported
// model asked to run on CUDA) or the device (CUDA not available).
nn::LoadedModel LoadPlayModel(const std::string& path, const std::string& device = "auto");

// Accepts auto, cpu, cuda and cuda:N; in a build without LibTorch only auto and cpu (the
// message says why). CLI11 puts the option's name in front of the message.
CLI::Validator DeviceValidator();

// How messages name the model of --model `path` ("" is the shipped model).
std::string PlayModelName(const std::string& path);

// The help of every play command's --model.
inline constexpr const char* kModelHelp =
    "Exported model file (or a checkpoint with LibTorch); default: the shipped 8x8 model "
    "(docs/play.md#the-shipped-model)";

// --device (default auto: CUDA when this build's LibTorch sees a GPU, else the CPU).
void AddDeviceOption(CLI::App& cmd, std::string& device,
                     const std::string& what = "Device of the network");

// `setting`'s option (play/play_settings.h): its flag (or `flag`), its help, its
// default shown and its range checked.
template <typename T>
CLI::Option* AddSetting(CLI::App& cmd, const play::Setting<T>& setting, T& target,
                        const char* flag = nullptr) {
  return cmd.add_option(flag ? flag : setting.flag, target, setting.help)
      ->capture_default_str()
      ->check(CLI::Range(setting.low, setting.high));
}

struct StrengthOptions {
  int level = play::kLevel.value;  // 1..10; 0: use visits/seconds
  std::uint64_t visits = play::kMoveVisits.value;
  double seconds = play::kMoveSeconds.value;
  int root_solve_empties = play::kRootSolve.value;
  // Throws core::InputError when neither a level, playouts nor seconds limit a move.
  play::Strength Resolve() const;
};
// --level, --visits, --seconds, --root-solve, each with its default in the help.
void AddStrengthOptions(CLI::App& cmd, StrengthOptions& options);

}  // namespace othello::cli
