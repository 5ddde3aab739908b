// Exported model files (nn/model_file.h). The harness writes the right CRC-32 over the
// input first, so that the fuzzer reaches the header, the offsets and the shapes: a
// crafted file with a right checksum must be refused by the reader's own checks. A
// model that is accepted runs one forward pass.
#include <cstdint>
#include <cstring>
#include <string>

#include "core/checksum.h"
#include "core/error.h"
#include "core/rules.h"
#include "nn/eigen_net.h"
#include "nn/model_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace othello;
  std::string bytes(reinterpret_cast<const char*>(data), size);
  if (bytes.size() >= 4) {
    const std::uint32_t crc = core::Crc32(bytes.data(), bytes.size() - 4);
    std::memcpy(&bytes[bytes.size() - 4], &crc, 4);
  }
  try {
    const nn::ModelFile model = nn::ParseModelFile(bytes, "fuzz.ozm");
    const nn::EigenNet net(model);
    const core::Position start = core::StartPosition(model.rules);
    mcts::EvalOutput out;
    net.Forward({&start}, {&out});
  } catch (const core::InputError&) {
  }
  return 0;
}
