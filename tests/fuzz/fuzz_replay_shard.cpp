// Replay shards (training/replay_format.h). The harness writes the right checksum for
// the shard's version over the input first; every record the reader accepts is used.
#include <cstdint>
#include <cstring>
#include <string>

#include "core/checksum.h"
#include "core/error.h"
#include "tests/fuzz/fuzz_replay.h"
#include "training/replay_format.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace othello;
  std::string bytes(reinterpret_cast<const char*>(data), size);
  if (bytes.size() >= 48) {
    std::uint32_t version;
    std::memcpy(&version, bytes.data() + 8, 4);
    const std::uint64_t sum =
        version == 1 ? core::Fnv1a64(bytes.data() + 48, bytes.size() - 48)
                     : core::Crc32(bytes.data() + 48, bytes.size() - 48, core::Crc32(bytes.data(), 40));
    std::memcpy(&bytes[40], &sum, 8);
  }
  try {
    const training::Shard shard = training::ParseShard(bytes, "fuzz.bin", 0);
    for (const training::Sample& s : shard.samples) fuzz::UseSample(s);
  } catch (const core::InputError&) {
  }
  return 0;
}
