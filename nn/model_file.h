#pragma once
// Exported models: one self-contained file for play, readable without LibTorch.
//
// Layout (little-endian): "OZMODEL\0" | u32 format version | u32 header bytes | header
// (JSON: network configuration, rules incl. board size, training step, and for every
// tensor its name, shape and byte offset in the data) | zero padding to a multiple of 64
// | float32 tensor data | u32 CRC-32 (core/checksum.h) of everything before it.
// The rules are nn/rules_json.h's JSON form.
//
// Batch normalisation is folded into the convolutions at export, so every 3x3/1x1
// convolution has a weight [out, in, k, k] and a bias [out]; linear layers have weight
// [out, in] and bias [out]. scripts/ozmodel.py reads the same file into torch tensors.
// Reading checks magic, version, sizes (truncation), checksum (corruption), the header
// and every tensor's shape against the configuration; each failure throws
// core::InputError naming the file and the problem.
// Thread safety: value types and pure functions.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/rules.h"
#include "nn/net_config.h"

namespace othello::nn {

inline constexpr std::uint32_t kModelFormatVersion = 1;

struct ModelTensor {
  std::vector<int> shape;
  std::vector<float> values;
};

struct ModelFile {
  NetConfig net;
  core::Rules rules;            // what the model was trained for (size, scoring)
  std::int64_t step = 0;        // training step of the checkpoint it came from
  std::map<std::string, ModelTensor> tensors;
};

// The tensors a configuration needs, with their shapes (after BN folding).
std::map<std::string, std::vector<int>> ModelTensorShapes(const NetConfig& net);

// A model of `net`'s shape with small random weights in [-0.05, 0.05) (benchmarks and
// tests: speed and the file format do not depend on the weights).
ModelFile RandomModelFile(const NetConfig& net, const core::Rules& rules = {},
                          std::uint64_t seed = 1);

// Writes atomically (core/file_io.h).
void WriteModelFile(const std::string& path, const ModelFile& model);
ModelFile ReadModelFile(const std::string& path);
// Reads a model from the bytes of a file; `name` names it in errors. Every length and
// offset is checked against the bytes that remain, so a crafted file whose checksum
// is right is refused like any other bad file.
ModelFile ParseModelFile(std::string_view bytes, const std::string& name);

// True when the file starts with the model magic (to tell models from checkpoints).
bool IsModelFile(const std::string& path);

}  // namespace othello::nn
