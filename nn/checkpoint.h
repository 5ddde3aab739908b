#pragma once
// Checkpoints: the network configuration, its weights, the optimizer state, the
// training step, the rules the run plays and the caller's metadata in one file, written
// atomically (core/file_io.h) with a format version and a checksum.
//
// Layout (little-endian): "OZCKPT01" | u32 format version | 5 x i32 NetConfig |
// i64 step | u64 weight bytes | u64 optimizer bytes | u64 metadata bytes | u64 checksum
// | weights | optimizer state (may be empty) | metadata (a JSON object: "rules" in
// nn/rules_json.h's form, and the caller's keys).
// Since version 4 the weights (every parameter and buffer by name) and the optimizer
// state (nn/optimizer_state.h; with a moving average of the weights, also the trained
// weights themselves as "trained/<name>"; with auxiliary heads, nn/aux_heads.h, their
// weights as "aux/<name>", their optimizer entries after the network's) are in the
// project's own tensor encoding (nn/tensor_io.h), so no LibTorch archive reader sees a file's bytes. Versions 1-3 held
// LibTorch archives there and are still read through LibTorch. The checksum covers
// everything but its own field: CRC-32 (core/checksum.h) since version 3; versions 1 (no
// metadata section) and 2 used 64-bit FNV-1a.
//
// Loading checks the magic, version, every size against the bytes that remain
// (truncation), the checksum (corruption), the configuration (against an expected
// one, if given), that the weights section can hold the configuration's weights (so a
// crafted header cannot make it allocate a huge network), the metadata, every tensor's
// length, name, type and shape, and the optimizer entries' names; every failure throws core::InputError naming the file and the
// problem.
// Thread safety: pure functions of their arguments and files.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "core/rules.h"
#include "nn/aux_heads.h"
#include "nn/model.h"

namespace othello::nn {

inline constexpr std::uint32_t kCheckpointVersion = 4;

struct Checkpoint {
  OthelloNet net{nullptr};
  std::int64_t step = 0;
  std::optional<core::Rules> rules;  // absent in files written before runs stored them
  // The optimizer's state (nn/optimizer_state.h), empty when none was saved.
  std::map<std::string, torch::Tensor> optimizer_state;
  // The trainer's own weights when `net` is their moving average (train.ema_steps): by
  // name as in the weights section, stored in the optimizer-state section under
  // "trained/" (empty otherwise). Whatever plays a checkpoint plays `net`.
  std::map<std::string, torch::Tensor> trained_weights;
  // The auxiliary heads' weights (nn/aux_heads.h) of a run that trains them, by name, in
  // the same section under "aux/" (empty otherwise). Nothing plays them.
  std::map<std::string, torch::Tensor> aux_weights;
  std::string legacy_optimizer_archive;  // a LibTorch archive, from files before version 4
  nlohmann::json metadata = nlohmann::json::object();  // the caller's keys
};

// The bytes of a checkpoint of `net` (with the optimizer's state and the rules, if
// given). `metadata` must be a JSON object; its "rules" key is reserved. `trained`: the
// weights the trainer goes on from, when `net` is their average (Checkpoint::trained_weights).
// `aux`: the auxiliary heads the trainer trains (Checkpoint::aux_weights).
std::string SerializeCheckpoint(OthelloNet& net, std::int64_t step,
                                torch::optim::Optimizer* optimizer = nullptr,
                                const std::optional<core::Rules>& rules = std::nullopt,
                                const nlohmann::json& metadata = nlohmann::json::object(),
                                OthelloNet* trained = nullptr, AuxHeads* aux = nullptr);
// SerializeCheckpoint written to `path` atomically.
void SaveCheckpoint(const std::string& path, OthelloNet& net, std::int64_t step,
                    torch::optim::Optimizer* optimizer = nullptr,
                    const std::optional<core::Rules>& rules = std::nullopt,
                    const nlohmann::json& metadata = nlohmann::json::object(),
                    OthelloNet* trained = nullptr, AuxHeads* aux = nullptr);

// Reads a checkpoint; with `expected`, a different configuration is an error.
Checkpoint LoadCheckpoint(const std::string& path,
                          const std::optional<NetConfig>& expected = std::nullopt);
// The same from the bytes of a file; `name` names it in errors.
Checkpoint ParseCheckpoint(std::string_view bytes, const std::string& name,
                           const std::optional<NetConfig>& expected = std::nullopt);

// The mean of several checkpoints of one run, for export (an average of the weights over
// the run's last stretch, as stochastic weight averaging): `net` holds the element-wise
// mean of the checkpoints' played weights and floating-point buffers (the BatchNorm running
// statistics; integer buffers, its batch count, are the newest's); `step` and `rules` are
// the newest's (the largest step); nothing else is kept. Every checkpoint must have the
// first's network configuration and board (size and goal, core::RulesMismatch):
// core::InputError naming the file otherwise, and for an empty list.
Checkpoint AverageCheckpoints(const std::vector<std::string>& paths);

// A network of the checkpoint's configuration holding its trained_weights (which must not
// be empty); core::InputError naming `path` when they do not fit it.
OthelloNet TrainedNet(const Checkpoint& checkpoint, const std::string& path);

// Auxiliary heads for the checkpoint's configuration holding its aux_weights (which must
// not be empty); core::InputError naming `path` when they do not fit it.
AuxHeads CheckpointAuxHeads(const Checkpoint& checkpoint, const std::string& path);

// Restores the optimizer state saved with a checkpoint (no-op when none was saved); a
// state for another optimizer or network throws core::InputError naming `path`.
void RestoreOptimizer(const Checkpoint& checkpoint, torch::optim::Optimizer& optimizer,
                      const std::string& path);

}  // namespace othello::nn
