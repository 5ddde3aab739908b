#pragma once
// A read-only check of a training run's directory (`othello-zero check RUN`, and the
// kill soak after every kill): every checkpoint loads, every replay shard and the
// journal read back whole, and the totals a resume would start from. Nothing is
// written or repaired: a torn journal tail is reported, not cut (a resume cuts it).
// Thread safety: reads files only.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "training/run_dir.h"

namespace othello::training {

struct RunCheck {
  std::int64_t step = -1;          // latest.ckpt's step (-1: no checkpoint yet)
  int checkpoints = 0;             // files under checkpoints/ that loaded
  int shards = 0;
  std::uint64_t games = 0;         // games a resume finds: the shards' and the journal's
  std::uint64_t positions = 0;     // positions ever added
  std::uint64_t journal_games = 0;  // of them, games in the journal not yet in a shard
  std::uint64_t torn_journal_bytes = 0;
  std::uint64_t incoming = 0;      // actors' shards not yet taken in (actor_protocol.h)
  std::int64_t published_step = -1;  // the model published for actors (-1: none)
  std::vector<std::string> leftovers;  // *.tmp files of interrupted writes (harmless)
  nlohmann::json Json() const;
};

// Throws core::InputError naming the first file that does not read back.
RunCheck CheckRunDir(const RunDir& run);

}  // namespace othello::training
