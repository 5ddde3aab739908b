#pragma once
// The replay buffer: positions from self-play in a sliding window, kept in memory and
// written to disk in shards (a run's replay/shard-NNNNNN.bin, run_dir.h) so a run can
// resume.
//
// Window: "fixed" keeps the last window_max positions; "growing" (KataGo) keeps
//   min * (1 + 0.4 * ((seen / min)^exponent - 1) / exponent)
// positions, capped at window_max, where `seen` counts every position ever added.
// Memory is bounded by the window (older positions are dropped); disk keeps the
// shards the window still needs, older ones are deleted.
//
// Shards (replay_format.h) are written atomically (core/file_io.h); a damaged shard,
// or one holding positions of another board size, is reported (core::InputError
// naming the file and the record), never half-read.
//
// Journal: every finished game is also appended at once to replay/journal.bin, so a
// killed run loses only the games in flight; the journal starts afresh when its games
// reach a shard. On loading, games already in a shard are skipped, and a torn last
// entry (a kill during the append) is cut off before anything new is appended.
//
// Ingestion (actors, training/actor_protocol.h): games from other processes arrive with a
// source name (their incoming shard). Ingest journals them with their sources and one
// fsync, then lets the caller delete the source files, all under the lock, before any
// shard can be written: a game whose source the journal still names is never taken
// again, and a source leaves the journal (into a shard) only after its file is gone.
// So across kills of the learner every incoming game is ingested exactly once.
//
// Followers (data-parallel ranks other than 0, training/distributed.h): a read-only
// view of a directory that another process's buffer owns; Refresh() reads the shards
// and journal games written since. A follower never writes or deletes a file.
//
// Thread safety: Add, Ingest, Draw, Flush, Refresh and the counters may be called from
// any thread (one mutex). Construction (which loads the directory) and destruction
// need no other call in flight. One owner per directory: two owners would overwrite
// each other's shards and journal.
#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <unordered_set>
#include <vector>

#include "core/hash.h"
#include "core/rng.h"
#include "core/thread_annotations.h"
#include "training/duplicate_targets.h"
#include "training/replay_window.h"
#include "training/run_dir.h"
#include "training/sample.h"

namespace othello::training {

// A game from another process, named by where it came from (unique per game).
struct SourcedGame {
  std::string source;
  std::vector<Sample> samples;
};

class ReplayBuffer {
 public:
  enum class Access { kOwner, kFollower };
  // Loads the shards and the journal already in `run`'s replay/ (an owner creates it if
  // needed); every record must be a position of `board_size` (0: any size).
  ReplayBuffer(const RunDir& run, const WindowConfig& window, int board_size = 8,
               Access access = Access::kOwner);

  void Add(const std::vector<Sample>& game);
  // Adds those of `games` whose source is not in the journal already (one durable
  // journal append), then runs `commit` (the caller removes the games' files), then
  // writes a shard if one is due. Returns the games added. A failed append adds
  // nothing and throws; commit's exception passes through (the games stay journaled).
  std::size_t Ingest(const std::vector<SourcedGame>& games, const std::function<void()>& commit);
  // Whether the journal names `source` (a game already ingested, not yet in a shard).
  bool HasSource(const std::string& source) const;
  // Follower: reads the shards and the journal's games written since the last read.
  // A shard that vanished meanwhile (dropped from the window) is skipped.
  void Refresh();
  // `count` positions drawn uniformly from the window, each under a random symmetry
  // when `augment` (square boards: always); with replay.average_duplicates_plies, an
  // early position's value and policy targets are the means over its duplicates.
  std::vector<Sample> Draw(std::size_t count, core::Rng& rng, bool augment = true) const;
  // Writes the positions not yet on disk as a shard (also a partial one).
  void Flush();

  std::size_t size() const;          // positions in the window
  std::uint64_t seen() const;        // positions ever added
  std::uint64_t games() const;       // games ever added
  std::size_t WindowSize() const;    // the window's current target size

 private:
  std::size_t WindowSizeLocked() const REQUIRES(mutex_);
  // Appends a game's positions in memory (not yet on disk) and counts them.
  void InsertLocked(const std::vector<Sample>& game) REQUIRES(mutex_);
  // Appends records to samples_ (and to the duplicates' sums).
  void AppendLocked(std::vector<Sample>::const_iterator begin,
                    std::vector<Sample>::const_iterator end) REQUIRES(mutex_);
  void TrimLocked() REQUIRES(mutex_);
  void WriteShardLocked(std::size_t begin, std::size_t end) REQUIRES(mutex_);
  void LoadShards() REQUIRES(mutex_);
  void LoadJournal() REQUIRES(mutex_);
  // Follower: the positions of `samples` past those it holds; `last_seen`: the owner's
  // count of positions ever added after the last of them.
  void FollowLocked(const std::vector<Sample>& samples, std::uint64_t last_seen,
                    std::uint64_t games) REQUIRES(mutex_);
  void ReadNewShardsLocked() REQUIRES(mutex_);
  void ReadJournalLocked() REQUIRES(mutex_);
  void AppendJournalLocked(const std::vector<Sample>& game) REQUIRES(mutex_);

  const RunDir run_;
  const WindowConfig window_;
  const int board_size_;
  const Access access_;
  mutable core::Mutex mutex_;
  std::deque<Sample> samples_ GUARDED_BY(mutex_);
  // The duplicates' sums of the records in samples_ (every insertion and removal).
  DuplicateTargets duplicates_ GUARDED_BY(mutex_);
  std::uint64_t seen_ GUARDED_BY(mutex_) = 0;
  std::uint64_t games_ GUARDED_BY(mutex_) = 0;
  std::size_t unflushed_ GUARDED_BY(mutex_) = 0;  // newest positions not on disk
  std::uint64_t next_shard_ GUARDED_BY(mutex_) = 0;
  std::deque<std::pair<std::uint64_t, std::size_t>> shards_ GUARDED_BY(mutex_);  // (id, positions)
  std::unordered_set<std::string> sources_ GUARDED_BY(mutex_);  // the journal's sources
};

}  // namespace othello::training
