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

// Versions 1 (no header), 2 and 3 (training/replay_format.h).
int Version(const std::string& bytes) {
  if (bytes.compare(0, 8, "OZJRNL03") == 0) return 3;
  if (bytes.compare(0, 8, "OZJRNL02") == 0) return 2;
  return 1;
}

void Reseal(std::string& bytes) {
  const int version = bytes.size() < 8 ? 1 : Version(bytes);
  const std::size_t entry_header = version == 3 ? 20 : version == 2 ? 16 : 20;
  // Versions 2 and 3 name their record size: 352 bytes before the auxiliary targets.
  std::uint32_t named = 0;
  if (version != 1 && bytes.size() >= 12) std::memcpy(&named, bytes.data() + 8, 4);
  const std::size_t record = version == 1 ? 347 : named == 352 ? 352 : sizeof(othello::training::Sample);
  std::size_t pos = version == 1 ? 0 : 12;
  while (bytes.size() >= pos + entry_header) {
    std::uint32_t count, source = 0;
    std::memcpy(&count, bytes.data() + pos + 8, 4);
    if (version == 3) std::memcpy(&source, bytes.data() + pos + 12, 4);
    const std::size_t left = bytes.size() - pos - entry_header;
    if (source > left || count > (left - source) / record) return;
    const char* records = bytes.data() + pos + entry_header + source;
    if (version == 1) {
      const std::uint64_t sum = othello::core::Fnv1a64(records, count * record);
      std::memcpy(&bytes[pos + 12], &sum, 8);
    } else {
      const std::size_t sum_at = entry_header - 4;
      std::uint32_t sum = othello::core::Crc32(bytes.data() + pos, sum_at);
      sum = othello::core::Crc32(bytes.data() + pos + entry_header, source, sum);
      sum = othello::core::Crc32(records, count * record, sum);
      std::memcpy(&bytes[pos + sum_at], &sum, 4);
    }
    pos += entry_header + source + count * record;
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
