#include "training/run_check.h"

#include <algorithm>
#include <filesystem>

#include "core/error.h"
#include "core/file_io.h"
#include "nn/checkpoint.h"
#include "training/replay_format.h"

namespace othello::training {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> Files(const fs::path& dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_regular_file()) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

bool EndsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

nlohmann::json RunCheck::Json() const {
  return {{"step", step},
          {"checkpoints", checkpoints},
          {"shards", shards},
          {"games", games},
          {"positions", positions},
          {"journal_games", journal_games},
          {"torn_journal_bytes", torn_journal_bytes},
          {"leftovers", leftovers}};
}

RunCheck CheckRunDir(const std::string& dir) {
  const fs::path root(dir);
  if (!fs::is_directory(root)) throw core::InputError("run " + dir + ": not a directory");
  RunCheck check;
  int board_size = 0;
  for (const fs::path& file : Files(root / "checkpoints")) {
    const std::string name = file.filename().string();
    if (EndsWith(name, ".tmp")) {
      check.leftovers.push_back(file.string());
    } else if (EndsWith(name, ".ckpt")) {
      const nn::Checkpoint checkpoint = nn::LoadCheckpoint(file.string());
      ++check.checkpoints;
      if (name == "latest.ckpt") {
        check.step = checkpoint.step;
        if (checkpoint.rules) board_size = checkpoint.rules->size;
      }
    }
  }
  std::uint64_t shard_seen = 0;
  for (const fs::path& file : Files(root / "replay")) {
    const std::string name = file.filename().string();
    if (EndsWith(name, ".tmp")) {
      check.leftovers.push_back(file.string());
    } else if (name.rfind("shard-", 0) == 0 && EndsWith(name, ".bin")) {
      const Shard shard = ParseShard(core::ReadFile(file.string(), "replay shard"), file.string(),
                                     board_size);
      ++check.shards;
      check.games = std::max(check.games, shard.games);
      shard_seen = std::max(shard_seen, shard.seen);
    }
  }
  check.positions = shard_seen;
  const fs::path journal_path = root / "replay" / "journal.bin";
  if (fs::exists(journal_path)) {
    const std::string bytes = core::ReadFile(journal_path.string(), "replay journal");
    const Journal journal = ParseJournal(bytes, journal_path.string(), board_size);
    check.torn_journal_bytes = bytes.size() - journal.valid_bytes;
    for (const JournalGame& game : journal.games) {
      if (game.seen_before < shard_seen) continue;  // already in a shard
      ++check.games;
      ++check.journal_games;
      check.positions += game.samples.size();
    }
  }
  return check;
}

}  // namespace othello::training
