// Replay journals (training/replay_format.h). The harness walks the entries as the
// reader does and writes each one's right checksum first, so that the fuzzer reaches
// the records; a torn or damaged tail must end the journal, never be read as data.
#include <cstdint>
#include <cstring>
#include <string>

#include "core/checksum.h"
#include "core/error.h"
#include "tests/fuzz/fuzz_replay.h"
#include "training/replay_format.h"

namespace {

void Reseal(std::string& bytes) {
  const bool legacy = bytes.size() < 8 || bytes.compare(0, 8, "OZJRNL02") != 0;
  const std::size_t entry_header = legacy ? 20 : 16, record = legacy ? 347 : sizeof(othello::training::Sample);
  std::size_t pos = legacy ? 0 : 12;
  while (bytes.size() >= pos + entry_header) {
    std::uint32_t count;
    std::memcpy(&count, bytes.data() + pos + 8, 4);
    if (count > (bytes.size() - pos - entry_header) / record) return;
    const char* records = bytes.data() + pos + entry_header;
    if (legacy) {
      const std::uint64_t sum = othello::core::Fnv1a64(records, count * record);
      std::memcpy(&bytes[pos + 12], &sum, 8);
    } else {
      const std::uint32_t sum =
          othello::core::Crc32(records, count * record, othello::core::Crc32(bytes.data() + pos, 12));
      std::memcpy(&bytes[pos + 12], &sum, 4);
    }
    pos += entry_header + count * record;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace othello;
  std::string bytes(reinterpret_cast<const char*>(data), size);
  // Odd inputs keep their checksums, so that damaged entries are exercised too.
  if (size % 2 == 0) Reseal(bytes);
  try {
    const training::Journal journal = training::ParseJournal(bytes, "fuzz.journal", 0);
    if (journal.valid_bytes > bytes.size()) std::abort();
    for (const training::JournalGame& game : journal.games) {
      for (const training::Sample& s : game.samples) fuzz::UseSample(s);
    }
  } catch (const core::InputError&) {
  }
  return 0;
}
