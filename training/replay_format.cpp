#include "training/replay_format.h"

#include <cstring>
#include <optional>

#include "core/checksum.h"
#include "core/error.h"
#include "nn/binary_io.h"

namespace othello::training {
namespace {

constexpr char kShardMagic[8] = {'O', 'Z', 'R', 'P', 'L', 'Y', '0', '1'};
constexpr char kJournalMagic[8] = {'O', 'Z', 'J', 'R', 'N', 'L', '0', '3'};
constexpr char kJournalMagicV2[8] = {'O', 'Z', 'J', 'R', 'N', 'L', '0', '2'};
constexpr std::uint32_t kJournalVersion = 3;
constexpr std::size_t kShardHeader = 8 + 4 + 4 + 8 + 8 + 8 + 8;
constexpr std::size_t kJournalHeader = 8 + 4;
constexpr std::size_t kV1RecordBytes = 347;  // shard and journal version 1's records
constexpr std::size_t kV2RecordBytes = 352;  // shard version 2's, journals before version 3's
                                             // records grew: Sample's first 352 bytes

// The layouts of records a file may hold.
enum class Layout { kV1, kV2, kCurrent };

std::size_t RecordBytes(Layout layout) {
  return layout == Layout::kV1 ? kV1RecordBytes : layout == Layout::kV2 ? kV2RecordBytes : sizeof(Sample);
}

using nn::Get;
using nn::Put;

// A version 1 record: u64 player[2], u64 opponent[2], u8 size, u8 has_policy,
// u8 has_exact, i8 exact_score, i8 final_margin, u16 wdl[3], i16 search value,
// u16 policy[101], i8 ownership[100], packed.
Sample SampleFromV1(const char* p) {
  Sample s;
  std::memcpy(s.player, p, 16);
  std::memcpy(s.opponent, p + 16, 16);
  s.size = static_cast<std::uint8_t>(p[32]);
  s.has_policy = static_cast<std::uint8_t>(p[33]);
  s.has_exact = static_cast<std::uint8_t>(p[34]);
  s.exact_score = static_cast<std::int8_t>(p[35]);
  s.final_margin = static_cast<std::int8_t>(p[36]);
  std::memcpy(s.wdl, p + 37, sizeof s.wdl);
  std::memcpy(s.policy.data(), p + 45, sizeof s.policy);
  std::memcpy(s.ownership.data(), p + 247, sizeof s.ownership);
  return s;
}

// `count` records at `records` in `layout`, each converted to Sample's and checked.
std::vector<Sample> ReadRecords(const char* records, std::size_t count, Layout layout,
                                const std::string& what, int board_size) {
  std::vector<Sample> samples(count);
  const std::size_t bytes = RecordBytes(layout);
  for (std::size_t i = 0; i < count; ++i) {
    if (layout == Layout::kV1) {
      samples[i] = SampleFromV1(records + i * bytes);
    } else {  // version 2's records are the start of today's (no auxiliary targets)
      std::memcpy(&samples[i], records + i * bytes, bytes);
    }
    if (auto why = CheckSample(samples[i], board_size)) {
      throw core::InputError(what + ": record " + std::to_string(i) + ": " + *why);
    }
  }
  return samples;
}

// Checks a shard's magic, version and record size (`fail` throws); its records' layout.
template <typename Fail>
Layout ShardLayout(std::string_view bytes, const Fail& fail) {
  if (bytes.size() < kShardHeader || std::memcmp(bytes.data(), kShardMagic, 8) != 0) {
    fail("not a replay shard or truncated header");
  }
  const auto version = Get<std::uint32_t>(bytes, 8);
  const auto record = Get<std::uint32_t>(bytes, 12);
  const Layout layout = version == 1 ? Layout::kV1 : version == 2 ? Layout::kV2 : Layout::kCurrent;
  if (version < 1 || version > kReplayVersion || record != RecordBytes(layout)) {
    fail("format version " + std::to_string(version) + " with " + std::to_string(record) +
         "-byte records; this build reads versions 1 to " + std::to_string(kReplayVersion));
  }
  return layout;
}

// One journal entry: its header's fields, its records, and its size in bytes.
struct JournalEntryView {
  std::uint64_t seen_before = 0;
  std::uint32_t count = 0;
  std::string_view source;
  std::string_view records;
  std::size_t bytes = 0;
};

// The entry at `pos` of a journal of `version` with records in `layout`, or nullopt where
// the journal ends: at its end, or at an entry torn by a kill or failing its checksum (the
// rest is dropped).
std::optional<JournalEntryView> ReadJournalEntry(std::string_view bytes, std::size_t pos,
                                                 std::uint32_t version, Layout layout) {
  const std::size_t entry_header = version == 1 ? 8 + 4 + 8 : version == 2 ? 8 + 4 + 4 : 8 + 4 + 4 + 4;
  const std::size_t record_bytes = RecordBytes(layout);
  if (bytes.size() - pos < entry_header) return std::nullopt;
  JournalEntryView entry;
  entry.seen_before = Get<std::uint64_t>(bytes, pos);
  entry.count = Get<std::uint32_t>(bytes, pos + 8);
  std::size_t left = bytes.size() - pos - entry_header;
  const std::size_t source_bytes = version == 3 ? Get<std::uint32_t>(bytes, pos + 12) : 0;
  if (source_bytes > left) return std::nullopt;
  entry.source = bytes.substr(pos + entry_header, source_bytes);
  left -= source_bytes;
  if (entry.count > left / record_bytes) return std::nullopt;
  entry.records = bytes.substr(pos + entry_header + source_bytes, entry.count * record_bytes);
  bool sound = false;
  if (version == 1) {
    sound = core::Fnv1a64(entry.records.data(), entry.records.size()) ==
            Get<std::uint64_t>(bytes, pos + 12);
  } else {
    const std::size_t sum_at = entry_header - 4;
    const std::uint32_t head = core::Crc32(bytes.substr(pos, sum_at));
    sound = core::Crc32(entry.records, core::Crc32(entry.source, head)) ==
            Get<std::uint32_t>(bytes, pos + sum_at);
  }
  if (!sound) return std::nullopt;
  entry.bytes = entry_header + source_bytes + entry.records.size();
  return entry;
}

}  // namespace

std::string SerializeShard(const Sample* samples, std::size_t count, std::uint64_t games,
                           std::uint64_t seen) {
  std::string file(kShardMagic, sizeof kShardMagic);
  Put(file, kReplayVersion);
  Put(file, static_cast<std::uint32_t>(sizeof(Sample)));
  Put(file, static_cast<std::uint64_t>(count));
  Put(file, games);
  Put(file, seen);
  const char* records = reinterpret_cast<const char*>(samples);
  const std::uint32_t crc = core::Crc32(records, count * sizeof(Sample), core::Crc32(file));
  Put(file, static_cast<std::uint64_t>(crc));
  file.append(records, count * sizeof(Sample));
  return file;
}

Shard ParseShard(std::string_view bytes, const std::string& name, int board_size) {
  const std::string what = "replay shard " + name;
  const auto fail = [&](const std::string& why) { throw core::InputError(what + ": " + why); };
  const Layout layout = ShardLayout(bytes, fail);
  const std::size_t record_bytes = RecordBytes(layout);
  const auto count = Get<std::uint64_t>(bytes, 16);
  Shard shard;
  shard.games = Get<std::uint64_t>(bytes, 24);
  shard.seen = Get<std::uint64_t>(bytes, 32);
  const auto sum = Get<std::uint64_t>(bytes, 40);
  const std::size_t left = bytes.size() - kShardHeader;
  if (count > left / record_bytes || left != count * record_bytes) {
    fail("truncated or padded: " + std::to_string(bytes.size()) + " bytes for " +
         std::to_string(count) + " records");
  }
  const std::string_view records = bytes.substr(kShardHeader);
  const bool sound =
      layout == Layout::kV1 ? core::Fnv1a64(records.data(), records.size()) == sum
         : core::Crc32(records, core::Crc32(bytes.substr(0, kShardHeader - 8))) == sum;
  if (!sound) fail("corrupted: checksum mismatch");
  if (count > shard.seen) fail("corrupted: more records than positions ever added");
  shard.samples = ReadRecords(records.data(), count, layout, what, board_size);
  return shard;
}

std::string JournalHeader() {
  std::string header(kJournalMagic, sizeof kJournalMagic);
  Put(header, static_cast<std::uint32_t>(sizeof(Sample)));
  return header;
}

std::string JournalEntry(const std::vector<Sample>& game, std::uint64_t seen_before,
                         std::string_view source) {
  std::string entry;
  Put(entry, seen_before);
  Put(entry, static_cast<std::uint32_t>(game.size()));
  Put(entry, static_cast<std::uint32_t>(source.size()));
  const char* records = reinterpret_cast<const char*>(game.data());
  const std::size_t bytes = game.size() * sizeof(Sample);
  Put(entry, core::Crc32(records, bytes, core::Crc32(source, core::Crc32(entry))));
  entry.append(source);
  entry.append(records, bytes);
  return entry;
}

Journal ParseJournal(std::string_view bytes, const std::string& name, int board_size) {
  const std::string what = "replay journal " + name;
  Journal journal;
  // A journal shorter than its header was cut while being created: nothing in it.
  if (bytes.size() < kJournalHeader) return journal;
  std::uint32_t version = 1;  // no header
  if (std::memcmp(bytes.data(), kJournalMagic, 8) == 0) {
    version = kJournalVersion;
  } else if (std::memcmp(bytes.data(), kJournalMagicV2, 8) == 0) {
    version = 2;
  }
  // Version 2 and 3 journals say their record size: 352 bytes before the records grew.
  Layout layout = Layout::kV1;
  if (version != 1) {
    const auto record = Get<std::uint32_t>(bytes, 8);
    if (record != sizeof(Sample) && record != kV2RecordBytes) {
      throw core::InputError(what + ": " + std::to_string(record) + "-byte records; this build reads " +
                             std::to_string(kV2RecordBytes) + " and " + std::to_string(sizeof(Sample)));
    }
    layout = record == sizeof(Sample) ? Layout::kCurrent : Layout::kV2;
  }
  journal.old_format = version != kJournalVersion || layout != Layout::kCurrent;
  journal.valid_bytes = version == 1 ? 0 : kJournalHeader;
  while (const auto entry = ReadJournalEntry(bytes, journal.valid_bytes, version, layout)) {
    journal.games.push_back(
        {entry->seen_before,
         ReadRecords(entry->records.data(), entry->count, layout,
                     what + " game " + std::to_string(journal.games.size() + 1), board_size),
         std::string(entry->source)});
    journal.valid_bytes += entry->bytes;
  }
  return journal;
}

}  // namespace othello::training
