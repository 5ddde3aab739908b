#pragma once
// Checkpoints: the network configuration, its weights, the optimizer state and the
// training step in one file, written atomically (temporary file, flush, fsync,
// rename), with a format version and a checksum.
//
// Layout (little-endian): "OZCKPT01" | u32 format version | 5 x i32 NetConfig |
// i64 step | u64 weight bytes | u64 optimizer bytes | u64 extra bytes | u64 FNV-1a
// checksum of everything before it and after it | weights (torch archive) | optimizer
// (torch archive, may be empty) | extra (the caller's metadata, e.g. random state).
// Version 1 files (no extra section) are still read.
//
// Loading checks the magic, version, sizes (truncation), checksum (corruption),
// configuration (against an expected one, if given) and the weights' names and
// shapes; every failure throws core::InputError naming the file and the problem.
#include <cstdint>
#include <optional>
#include <string>

#include <torch/torch.h>

#include "nn/model.h"

namespace othello::nn {

inline constexpr std::uint32_t kCheckpointVersion = 2;

struct Checkpoint {
  OthelloNet net{nullptr};
  std::int64_t step = 0;
  std::string optimizer_state;  // a serialized torch archive, empty when not saved
  std::string extra;            // the caller's metadata, stored verbatim
};

// Writes `net` (and the optimizer's state, if given) to `path` atomically.
void SaveCheckpoint(const std::string& path, OthelloNet& net, std::int64_t step,
                    torch::optim::Optimizer* optimizer = nullptr, const std::string& extra = "");

// Reads a checkpoint; with `expected`, a different configuration is an error.
Checkpoint LoadCheckpoint(const std::string& path,
                          const std::optional<NetConfig>& expected = std::nullopt);

// Restores the optimizer state saved with a checkpoint (no-op when none was saved).
void RestoreOptimizer(const Checkpoint& checkpoint, torch::optim::Optimizer& optimizer,
                      const std::string& path);

}  // namespace othello::nn
