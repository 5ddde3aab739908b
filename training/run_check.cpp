#include "training/run_check.h"

#include <algorithm>
#include <filesystem>

#include "core/error.h"
#include "core/file_io.h"
#include "nn/checkpoint.h"
#include "training/model_publish.h"
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

// Loads every checkpoint; the board size of `latest`'s rules (0: unknown).
int CheckCheckpoints(const fs::path& dir, const fs::path& latest, RunCheck& check) {
  int board_size = 0;
  for (const fs::path& file : Files(dir)) {
    const std::string name = file.filename().string();
    if (core::IsTemporaryFile(name)) {
      check.leftovers.push_back(file.string());
    } else if (RunDir::IsCheckpoint(name)) {
      const nn::Checkpoint checkpoint = nn::LoadCheckpoint(file.string());
      ++check.checkpoints;
      if (file.filename() == latest.filename()) {
        check.step = checkpoint.step;
        if (checkpoint.rules) board_size = checkpoint.rules->size;
      }
    }
  }
  return board_size;
}

// Reads every shard back; the positions ever added when the newest was written.
std::uint64_t CheckShards(const fs::path& dir, int board_size, RunCheck& check) {
  std::uint64_t shard_seen = 0;
  for (const fs::path& file : Files(dir)) {
    const std::string name = file.filename().string();
    if (core::IsTemporaryFile(name)) {
      check.leftovers.push_back(file.string());
    } else if (RunDir::ReplayShardNumber(name)) {
      const Shard shard = ParseShard(core::ReadFile(file.string(), "replay shard"), file.string(),
                                     board_size);
      ++check.shards;
      check.games = std::max(check.games, shard.games);
      shard_seen = std::max(shard_seen, shard.seen);
    }
  }
  return shard_seen;
}

// Reads the journal back, counting the games a resume would take from it.
void CheckJournal(const fs::path& path, int board_size, std::uint64_t shard_seen,
                  RunCheck& check) {
  if (!fs::exists(path)) return;
  const std::string bytes = core::ReadFile(path.string(), "replay journal");
  const Journal journal = ParseJournal(bytes, path.string(), board_size);
  check.torn_journal_bytes = bytes.size() - journal.valid_bytes;
  for (const JournalGame& game : journal.games) {
    if (game.seen_before < shard_seen) continue;  // already in a shard
    ++check.games;
    ++check.journal_games;
    check.positions += game.samples.size();
  }
}

// Counts the actors' shards waiting in incoming/ (read when the learner takes them) and
// reads the published model's manifest.
void CheckShared(const RunDir& run, RunCheck& check) {
  const fs::path incoming = run.incoming();
  if (fs::is_directory(incoming)) {
    for (const fs::path& file : Files(incoming)) {
      const std::string name = file.filename().string();
      if (core::IsTemporaryFile(name)) check.leftovers.push_back(file.string());
      if (RunDir::IsIncomingShard(name)) ++check.incoming;
    }
  }
  if (const auto model = NewestModel(run)) check.published_step = model->step;
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
          {"incoming", incoming},
          {"published_step", published_step},
          {"leftovers", leftovers}};
}

RunCheck CheckRunDir(const RunDir& run) {
  if (!fs::is_directory(run.root())) {
    throw core::InputError("run " + run.root() + ": not a directory");
  }
  RunCheck check;
  const int board_size = CheckCheckpoints(run.checkpoints(), run.latest_checkpoint(), check);
  const std::uint64_t shard_seen = CheckShards(run.replay(), board_size, check);
  check.positions = shard_seen;
  CheckJournal(run.journal(), board_size, shard_seen, check);
  CheckShared(run, check);
  return check;
}

}  // namespace othello::training
