#include "training/replay_buffer.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <stdexcept>

#include "core/error.h"
#include "core/file_io.h"
#include "core/rng.h"
#include "training/replay_format.h"

namespace othello::training {
namespace {

namespace fs = std::filesystem;

// KataGo's growing window after `seen` positions (see replay_buffer.h).
std::size_t GrowingWindow(const WindowConfig& window, std::uint64_t seen_positions) {
  const double min = static_cast<double>(window.min);
  const double seen = std::max<double>(static_cast<double>(seen_positions), min);
  const double a = window.exponent;
  const double grown = a > 0 ? min * (1 + 0.4 * (std::pow(seen / min, a) - 1) / a) : min;
  return std::min<std::size_t>(window.max, static_cast<std::size_t>(grown));
}

}  // namespace

ReplayBuffer::ReplayBuffer(const RunDir& run, const WindowConfig& window, int board_size,
                           Access access)
    : run_(run),
      window_(window),
      board_size_(board_size),
      access_(access),
      duplicates_(window.average_duplicates_plies) {
  if (access_ == Access::kFollower) {
    Refresh();
    return;
  }
  fs::create_directories(run_.replay());
  core::MutexLock lock(mutex_);  // uncontended: the buffer is not shared yet
  LoadShards();
  LoadJournal();
}

std::size_t ReplayBuffer::WindowSizeLocked() const {
  switch (window_.kind) {
    case ReplayWindow::kFixed:
      return window_.max;
    case ReplayWindow::kGrowing:
      return GrowingWindow(window_, seen_);
  }
  return window_.max;  // not reached
}

void ReplayBuffer::TrimLocked() {
  const std::size_t keep = WindowSizeLocked();
  while (samples_.size() > keep) {
    duplicates_.Remove(samples_.front());
    samples_.pop_front();
  }
  unflushed_ = std::min(unflushed_, samples_.size());
  if (access_ == Access::kFollower) return;  // the owner's files are the owner's
  // Shards wholly outside the window are no longer needed on disk.
  std::size_t on_disk = samples_.size() - unflushed_;
  std::size_t total = 0;
  for (const auto& shard : shards_) total += shard.second;
  // The newest shard stays even when the window lies wholly in the journal: its header
  // holds the counts (games and positions ever added) that a resume starts from.
  while (shards_.size() > 1 && total - shards_.front().second >= on_disk) {
    total -= shards_.front().second;
    fs::remove(run_.replay_shard(shards_.front().first));
    shards_.pop_front();
  }
}

void ReplayBuffer::AppendJournalLocked(const std::vector<Sample>& game) {
  core::AppendToFile(run_.journal(), JournalEntry(game, seen_), "replay journal");
}

void ReplayBuffer::LoadJournal() {
  std::error_code missing;
  if (!fs::exists(run_.journal(), missing)) {
    core::WriteFileAtomically(run_.journal(), JournalHeader(), "replay journal");
    return;
  }
  const std::string bytes = core::ReadFile(run_.journal(), "replay journal");
  const Journal journal = ParseJournal(bytes, run_.journal(), board_size_);
  std::string kept = JournalHeader();
  for (const JournalGame& game : journal.games) {
    if (game.seen_before < seen_) continue;  // already in a shard
    kept += JournalEntry(game.samples, game.seen_before, game.source);
    InsertLocked(game.samples);
    if (!game.source.empty()) sources_.insert(game.source);
  }
  // A torn tail (or a journal in an older format) is rewritten away before anything is
  // appended.
  if (journal.old_format || journal.valid_bytes < bytes.size()) {
    core::WriteFileAtomically(run_.journal(), kept, "replay journal");
  }
  TrimLocked();
}

void ReplayBuffer::AppendLocked(std::vector<Sample>::const_iterator begin,
                                std::vector<Sample>::const_iterator end) {
  samples_.insert(samples_.end(), begin, end);
  if (duplicates_.enabled()) {
    for (auto it = begin; it != end; ++it) duplicates_.Add(*it);
  }
}

void ReplayBuffer::InsertLocked(const std::vector<Sample>& game) {
  AppendLocked(game.begin(), game.end());
  seen_ += game.size();
  ++games_;
  unflushed_ += game.size();
}

void ReplayBuffer::Add(const std::vector<Sample>& game) {
  if (access_ == Access::kFollower) throw std::logic_error("a replay follower cannot add");
  core::MutexLock lock(mutex_);
  AppendJournalLocked(game);
  InsertLocked(game);
  if (unflushed_ >= window_.shard_positions) {
    WriteShardLocked(samples_.size() - unflushed_, samples_.size());
  }
  TrimLocked();
}

std::size_t ReplayBuffer::Ingest(const std::vector<SourcedGame>& games,
                                 const std::function<void()>& commit) {
  if (access_ == Access::kFollower) throw std::logic_error("a replay follower cannot ingest");
  core::MutexLock lock(mutex_);
  std::string entries;
  std::uint64_t seen = seen_;
  std::vector<const SourcedGame*> fresh;
  for (const SourcedGame& game : games) {
    if (sources_.count(game.source) != 0) continue;  // ingested before a restart
    entries += JournalEntry(game.samples, seen, game.source);
    seen += game.samples.size();
    fresh.push_back(&game);
  }
  if (!entries.empty()) {
    core::AppendToFile(run_.journal(), entries, "replay journal", /*durable=*/true);
  }
  for (const SourcedGame* game : fresh) {
    InsertLocked(game->samples);
    sources_.insert(game->source);
  }
  if (commit) commit();
  if (unflushed_ >= window_.shard_positions) {
    WriteShardLocked(samples_.size() - unflushed_, samples_.size());
  }
  TrimLocked();
  return fresh.size();
}

bool ReplayBuffer::HasSource(const std::string& source) const {
  core::MutexLock lock(mutex_);
  return sources_.count(source) != 0;
}

void ReplayBuffer::Refresh() {
  if (access_ != Access::kFollower) return;
  core::MutexLock lock(mutex_);
  ReadNewShardsLocked();
  ReadJournalLocked();
  TrimLocked();
}

void ReplayBuffer::FollowLocked(const std::vector<Sample>& samples, std::uint64_t last_seen,
                                std::uint64_t games) {
  if (last_seen <= seen_) return;
  const std::uint64_t first = last_seen - samples.size();  // the first one's index
  const std::size_t skip = seen_ > first ? static_cast<std::size_t>(seen_ - first) : 0;
  AppendLocked(samples.begin() + static_cast<std::ptrdiff_t>(skip), samples.end());
  seen_ = last_seen;
  games_ = std::max(games_, games);
}

void ReplayBuffer::ReadNewShardsLocked() {
  std::error_code error;
  if (!fs::is_directory(run_.replay(), error)) return;  // the owner has not made it yet
  std::vector<std::uint64_t> ids;
  for (const auto& entry : fs::directory_iterator(run_.replay())) {
    const auto id = RunDir::ReplayShardNumber(entry.path().filename().string());
    if (id && *id >= next_shard_) ids.push_back(*id);
  }
  std::sort(ids.begin(), ids.end());
  for (const std::uint64_t id : ids) {
    const fs::path path = run_.replay_shard(id);
    std::string bytes;
    try {
      bytes = core::ReadFile(path.string(), "replay shard");
    } catch (const core::InputError&) {
      if (!fs::exists(path, error)) continue;  // dropped from the window meanwhile
      throw;
    }
    const Shard shard = ParseShard(bytes, path.string(), board_size_);
    FollowLocked(shard.samples, shard.seen, shard.games);
    next_shard_ = id + 1;
  }
}

void ReplayBuffer::ReadJournalLocked() {
  std::error_code error;
  if (!fs::exists(run_.journal(), error)) return;
  std::string bytes;
  try {
    bytes = core::ReadFile(run_.journal(), "replay journal");
  } catch (const core::InputError&) {
    if (!fs::exists(run_.journal(), error)) return;  // replaced meanwhile
    throw;
  }
  for (const JournalGame& game : ParseJournal(bytes, run_.journal(), board_size_).games) {
    FollowLocked(game.samples, game.seen_before + game.samples.size(), games_ + 1);
  }
}

std::vector<Sample> ReplayBuffer::Draw(std::size_t count, core::Rng& rng, bool augment) const {
  core::MutexLock lock(mutex_);
  std::vector<Sample> out;
  if (samples_.empty()) return out;
  out.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    out.push_back(samples_[rng.Below(static_cast<std::uint32_t>(samples_.size()))]);
    duplicates_.Average(out.back());
    if (augment) TransformSample(out.back(), static_cast<int>(rng.Below(8)));
  }
  return out;
}

void ReplayBuffer::Flush() {
  if (access_ == Access::kFollower) return;
  core::MutexLock lock(mutex_);
  if (unflushed_ > 0) WriteShardLocked(samples_.size() - unflushed_, samples_.size());
}

void ReplayBuffer::WriteShardLocked(std::size_t begin, std::size_t end) {
  const std::vector<Sample> records(samples_.begin() + static_cast<std::ptrdiff_t>(begin),
                                    samples_.begin() + static_cast<std::ptrdiff_t>(end));
  const fs::path path = run_.replay_shard(next_shard_);
  core::WriteFileAtomically(path.string(),
                            SerializeShard(records.data(), records.size(), games_, seen_),
                            "replay shard");
  // The journal's games are all in the shard now (a kill before this line leaves them
  // in both; loading skips those the shard holds).
  core::WriteFileAtomically(run_.journal(), JournalHeader(), "replay journal");
  sources_.clear();  // their files were removed when they were ingested
  shards_.emplace_back(next_shard_++, end - begin);
  unflushed_ = 0;
}

void ReplayBuffer::LoadShards() {
  std::vector<std::pair<std::uint64_t, fs::path>> found;
  for (const auto& entry : fs::directory_iterator(run_.replay())) {
    const auto id = RunDir::ReplayShardNumber(entry.path().filename().string());
    if (id) found.emplace_back(*id, entry.path());
  }
  std::sort(found.begin(), found.end());
  for (const auto& [id, path] : found) {
    Shard shard = ParseShard(core::ReadFile(path.string(), "replay shard"), path.string(),
                             board_size_);
    AppendLocked(shard.samples.begin(), shard.samples.end());
    seen_ = std::max(seen_, shard.seen);
    games_ = std::max(games_, shard.games);
    shards_.emplace_back(id, shard.samples.size());
    next_shard_ = id + 1;
  }
  TrimLocked();
}

std::size_t ReplayBuffer::size() const {
  core::MutexLock lock(mutex_);
  return samples_.size();
}
std::uint64_t ReplayBuffer::seen() const {
  core::MutexLock lock(mutex_);
  return seen_;
}
std::uint64_t ReplayBuffer::games() const {
  core::MutexLock lock(mutex_);
  return games_;
}
std::size_t ReplayBuffer::WindowSize() const {
  core::MutexLock lock(mutex_);
  return WindowSizeLocked();
}

}  // namespace othello::training
