#pragma once
// The replay files (replay_buffer.h keeps them in replay/): shards of finished games'
// records and the journal of games not yet in a shard. Records are sample.h's Sample.
//
// Shard, version 3: "OZRPLY01" | u32 version | u32 record size | u64 records | u64 games
// and u64 positions ever added when it was written | u64 CRC-32 (core/checksum.h) of
// the header before this field and of the records | records (560 bytes each).
// Read and converted: version 2 (the same, with 352-byte records: today's first 352
// bytes, no auxiliary targets) and version 1 (the same header, 64-bit FNV-1a of the
// records alone, and 347-byte packed records that also held a search value, dropped).
//
// Journal, version 3: "OZJRNL03" | u32 record size (560; 352 in journals written before
// the records grew, read and converted), then one entry per finished game:
// u64 positions ever added before it | u32 records | u32 source bytes | u32 CRC-32 of
// the entry's first 16 bytes, its source and its records | source | records. The
// source names where a game came from (an actor's incoming shard, run_dir.h; empty for
// the run's own self-play), so that a game is ingested once across restarts.
// Read and converted: version 2 ("OZJRNL02", entries u64 | u32 | u32 CRC-32 of the
// first 12 bytes and the records | records) and version 1 (no header; entries
// u64 | u32 | u64 FNV-1a of the records | 347-byte records).
//
// Reading checks every size against the bytes that remain and every record with
// CheckSample: a shard that fails is an error (core::InputError naming the file and the
// record); a journal ends at its first torn or damaged entry (a kill during an
// append), and everything before it is kept.
// Thread safety: pure functions.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "training/sample.h"

namespace othello::training {

inline constexpr std::uint32_t kReplayVersion = 3;

struct Shard {
  std::vector<Sample> samples;
  std::uint64_t games = 0;  // games ever added when the shard was written
  std::uint64_t seen = 0;   // positions ever added when the shard was written
};

std::string SerializeShard(const Sample* samples, std::size_t count, std::uint64_t games,
                           std::uint64_t seen);
// `board_size`: the run's (0: any). Throws core::InputError naming `name`.
Shard ParseShard(std::string_view bytes, const std::string& name, int board_size);

struct JournalGame {
  std::uint64_t seen_before = 0;  // positions ever added before this game
  std::vector<Sample> samples;
  std::string source;             // "" for the run's own games and before version 3
};

struct Journal {
  std::vector<JournalGame> games;
  std::size_t valid_bytes = 0;  // the whole entries (a torn tail follows them)
  bool old_format = false;      // read from version 1 or 2, or with 352-byte records:
                                // rewritten in today's format before anything is appended
};

std::string JournalHeader();
std::string JournalEntry(const std::vector<Sample>& game, std::uint64_t seen_before,
                         std::string_view source = {});
// A record that passes its checksum but not CheckSample throws core::InputError.
Journal ParseJournal(std::string_view bytes, const std::string& name, int board_size);

}  // namespace othello::training
