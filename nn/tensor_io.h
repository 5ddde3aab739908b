#pragma once
// Named tensors in the project's own byte encoding, for the weights and optimizer state
// inside checkpoints (nn/checkpoint.h). LibTorch's own archives (a zip file holding a
// pickle) are not read from untrusted files: its reader is not built to refuse crafted
// input (fuzzing found it leaking on malformed archives), and its format changes between
// LibTorch versions while this one does not.
//
// Layout (little-endian): u32 count | count x (u32 name bytes | name | u8 type (1 =
// float32, 2 = int64) | u8 rank (0-4) | rank x i64 sizes | the values, row-major).
// Decoding checks every length, size and count against the bytes that remain before it
// allocates or copies, and refuses repeated names and trailing bytes; each failure throws
// core::InputError naming `where`.
// Thread safety: pure functions of their arguments.
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <torch/torch.h>

namespace othello::nn {

using NamedTensors = std::vector<std::pair<std::string, torch::Tensor>>;

// Tensors of type float32 or int64 (on any device: they are copied to the CPU).
std::string EncodeTensors(const NamedTensors& tensors);
std::map<std::string, torch::Tensor> DecodeTensors(std::string_view bytes, const std::string& where);

// A module's parameters and buffers, by their names in the module.
NamedTensors ModuleTensors(torch::nn::Module& module);
// Copies `tensors` into the module's parameters and buffers: every one must be there
// with its type and shape, and no other; the error names the first that is not.
void LoadModuleTensors(torch::nn::Module& module, const std::map<std::string, torch::Tensor>& tensors,
                       const std::string& where);

}  // namespace othello::nn
