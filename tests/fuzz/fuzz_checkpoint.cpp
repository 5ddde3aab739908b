// Checkpoints (nn/checkpoint.h) in the format this build writes. The harness sets the
// version to the current one and writes the right CRC-32 over the input first, so that
// the fuzzer reaches the section sizes, the configuration, the metadata, the tensor
// sections and the optimizer entries. Files of versions 1-3 (LibTorch archives inside)
// are read by LibTorch's own archive reader, which is not fuzzed here: it is not built
// for crafted input (docs/internals.md: Robustness).
#include <cstdint>
#include <cstring>
#include <string>

#include "core/checksum.h"
#include "core/error.h"
#include "nn/checkpoint.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace othello;
  std::string bytes(reinterpret_cast<const char*>(data), size);
  if (bytes.size() >= 72) {
    const std::uint32_t version = nn::kCheckpointVersion;
    std::memcpy(&bytes[8], &version, 4);
    const std::uint64_t sum =
        core::Crc32(bytes.data() + 72, bytes.size() - 72, core::Crc32(bytes.data(), 64));
    std::memcpy(&bytes[64], &sum, 8);
  }
  try {
    const nn::Checkpoint checkpoint = nn::ParseCheckpoint(bytes, "fuzz.ckpt");
    torch::optim::SGD sgd(checkpoint.net->parameters(), torch::optim::SGDOptions(0.1));
    torch::optim::AdamW adamw(checkpoint.net->parameters(), torch::optim::AdamWOptions(0.1));
    for (torch::optim::Optimizer* optimizer : {static_cast<torch::optim::Optimizer*>(&sgd),
                                               static_cast<torch::optim::Optimizer*>(&adamw)}) {
      try {
        nn::RestoreOptimizer(checkpoint, *optimizer, "fuzz.ckpt");
      } catch (const core::InputError&) {
      }
    }
  } catch (const core::InputError&) {
  }
  return 0;
}
