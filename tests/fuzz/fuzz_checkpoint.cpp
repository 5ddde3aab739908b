// Checkpoints (nn/checkpoint.h). The harness writes the right checksum for the file's
// version over the input first (CRC-32 from version 3, FNV-1a before), so that the
// fuzzer reaches the section sizes, the configuration, the metadata and the weights.
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
    std::uint32_t version;
    std::memcpy(&version, bytes.data() + 8, 4);
    const std::size_t header = version == 1 ? 64 : 72;
    std::uint64_t sum;
    if (version >= 3) {
      sum = core::Crc32(bytes.data() + header, bytes.size() - header,
                        core::Crc32(bytes.data(), header - 8));
    } else {
      sum = core::Fnv1a64(bytes.data() + header, bytes.size() - header,
                          core::Fnv1a64(bytes.data(), header - 8));
    }
    std::memcpy(&bytes[header - 8], &sum, 8);
  }
  try {
    const nn::Checkpoint checkpoint = nn::ParseCheckpoint(bytes, "fuzz.ckpt");
    torch::optim::SGD optimizer(checkpoint.net->parameters(), torch::optim::SGDOptions(0.1));
    nn::RestoreOptimizer(checkpoint, optimizer, "fuzz.ckpt");
  } catch (const core::InputError&) {
  }
  return 0;
}
