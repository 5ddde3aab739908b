#include "training/replay_buffer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/error.h"

namespace othello::training {
namespace {

constexpr char kMagic[8] = {'O', 'Z', 'R', 'P', 'L', 'Y', '0', '1'};
constexpr std::uint32_t kVersion = 1;
constexpr std::size_t kHeader = 8 + 4 + 4 + 8 + 8 + 8 + 8;

std::uint64_t Fnv1a(const char* data, std::size_t size) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (std::size_t i = 0; i < size; ++i) {
    h ^= static_cast<unsigned char>(data[i]);
    h *= 0x100000001b3ULL;
  }
  return h;
}

std::string ShardName(std::uint64_t id) {
  char name[32];
  std::snprintf(name, sizeof name, "shard-%06llu.bin", static_cast<unsigned long long>(id));
  return name;
}

}  // namespace

ReplayBuffer::ReplayBuffer(std::string dir, const WindowConfig& window)
    : dir_(std::move(dir)), window_(window) {
  std::filesystem::create_directories(dir_);
  LoadShards();
  LoadJournal();
}

std::size_t ReplayBuffer::WindowSizeLocked() const {
  if (!window_.growing) return window_.max;
  const double min = static_cast<double>(window_.min);
  const double seen = std::max<double>(static_cast<double>(seen_), min);
  const double a = window_.exponent;
  const double grown = a > 0 ? min * (1 + 0.4 * (std::pow(seen / min, a) - 1) / a) : min;
  return std::min<std::size_t>(window_.max, static_cast<std::size_t>(grown));
}

void ReplayBuffer::TrimLocked() {
  const std::size_t keep = WindowSizeLocked();
  while (samples_.size() > keep) samples_.pop_front();
  unflushed_ = std::min(unflushed_, samples_.size());
  // Shards wholly outside the window are no longer needed on disk.
  std::size_t on_disk = samples_.size() - unflushed_;
  std::size_t total = 0;
  for (const auto& shard : shards_) total += shard.second;
  while (!shards_.empty() && total - shards_.front().second >= on_disk) {
    total -= shards_.front().second;
    std::filesystem::remove(std::filesystem::path(dir_) / ShardName(shards_.front().first));
    shards_.pop_front();
  }
}

void ReplayBuffer::AppendJournalLocked(const std::vector<Sample>& game) {
  std::string entry;
  const auto put = [&](auto v) { entry.append(reinterpret_cast<const char*>(&v), sizeof v); };
  put(static_cast<std::uint64_t>(seen_));
  put(static_cast<std::uint32_t>(game.size()));
  const char* records = reinterpret_cast<const char*>(game.data());
  put(Fnv1a(records, game.size() * sizeof(Sample)));
  entry.append(records, game.size() * sizeof(Sample));
  std::ofstream out(std::filesystem::path(dir_) / "journal.bin", std::ios::binary | std::ios::app);
  out.write(entry.data(), static_cast<std::streamsize>(entry.size()));
  out.flush();
  if (!out) throw core::InputError("replay journal in " + dir_ + ": cannot write");
}

void ReplayBuffer::LoadJournal() {
  std::ifstream in(std::filesystem::path(dir_) / "journal.bin", std::ios::binary);
  if (!in) return;
  const std::string file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  constexpr std::size_t kEntryHeader = 8 + 4 + 8;
  std::size_t pos = 0;
  while (pos + kEntryHeader <= file.size()) {
    std::uint64_t before, sum;
    std::uint32_t count;
    std::memcpy(&before, file.data() + pos, 8);
    std::memcpy(&count, file.data() + pos + 8, 4);
    std::memcpy(&sum, file.data() + pos + 12, 8);
    const std::size_t bytes = static_cast<std::size_t>(count) * sizeof(Sample);
    if (pos + kEntryHeader + bytes > file.size()) break;  // torn by a kill: drop it
    const char* records = file.data() + pos + kEntryHeader;
    if (Fnv1a(records, bytes) != sum) break;
    pos += kEntryHeader + bytes;
    if (before < seen_) continue;  // already in a shard
    for (std::uint32_t i = 0; i < count; ++i) {
      Sample s;
      std::memcpy(&s, records + i * sizeof(Sample), sizeof(Sample));
      samples_.push_back(s);
    }
    seen_ += count;
    ++games_;
    unflushed_ += count;
  }
  TrimLocked();
}

void ReplayBuffer::Add(const std::vector<Sample>& game) {
  std::lock_guard<std::mutex> lock(mutex_);
  AppendJournalLocked(game);
  for (const Sample& s : game) samples_.push_back(s);
  seen_ += game.size();
  ++games_;
  unflushed_ += game.size();
  if (unflushed_ >= window_.shard_positions) {
    WriteShardLocked(samples_.size() - unflushed_, samples_.size());
  }
  TrimLocked();
}

std::vector<Sample> ReplayBuffer::Draw(std::size_t count, core::Rng& rng, bool augment) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<Sample> out;
  if (samples_.empty()) return out;
  out.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    out.push_back(samples_[rng.Below(static_cast<std::uint32_t>(samples_.size()))]);
    if (augment) TransformSample(out.back(), static_cast<int>(rng.Below(8)));
  }
  return out;
}

void ReplayBuffer::Flush() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (unflushed_ > 0) WriteShardLocked(samples_.size() - unflushed_, samples_.size());
}

void ReplayBuffer::WriteShardLocked(std::size_t begin, std::size_t end) {
  std::string records;
  records.reserve((end - begin) * sizeof(Sample));
  for (std::size_t i = begin; i < end; ++i) {
    records.append(reinterpret_cast<const char*>(&samples_[i]), sizeof(Sample));
  }
  std::string file(kMagic, sizeof kMagic);
  const auto put = [&](auto v) { file.append(reinterpret_cast<const char*>(&v), sizeof v); };
  put(kVersion);
  put(static_cast<std::uint32_t>(sizeof(Sample)));
  put(static_cast<std::uint64_t>(end - begin));
  put(static_cast<std::uint64_t>(games_));  // totals so far, restored on resume
  put(static_cast<std::uint64_t>(seen_));
  put(Fnv1a(records.data(), records.size()));
  file += records;
  const std::filesystem::path path = std::filesystem::path(dir_) / ShardName(next_shard_);
  const std::string tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(file.data(), static_cast<std::streamsize>(file.size()));
    out.flush();
    if (!out) throw core::InputError("replay shard " + tmp + ": cannot write");
  }
  std::filesystem::rename(tmp, path);
  // The journal's games are all in the shard now.
  std::ofstream(std::filesystem::path(dir_) / "journal.bin", std::ios::binary | std::ios::trunc);
  shards_.emplace_back(next_shard_++, end - begin);
  unflushed_ = 0;
}

void ReplayBuffer::LoadShards() {
  std::vector<std::pair<std::uint64_t, std::filesystem::path>> found;
  for (const auto& entry : std::filesystem::directory_iterator(dir_)) {
    const std::string name = entry.path().filename().string();
    unsigned long long id;
    if (std::sscanf(name.c_str(), "shard-%llu.bin", &id) == 1 &&
        name == ShardName(id)) {
      found.emplace_back(id, entry.path());
    }
  }
  std::sort(found.begin(), found.end());
  for (const auto& [id, path] : found) {
    std::ifstream in(path, std::ios::binary);
    const std::string file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto fail = [&](const std::string& what) {
      throw core::InputError("replay shard " + path.string() + ": " + what);
    };
    if (file.size() < kHeader || std::memcmp(file.data(), kMagic, 8) != 0) {
      fail("not a replay shard or truncated header");
    }
    std::uint32_t version, record;
    std::uint64_t count, games, seen, sum;
    std::memcpy(&version, file.data() + 8, 4);
    std::memcpy(&record, file.data() + 12, 4);
    std::memcpy(&count, file.data() + 16, 8);
    std::memcpy(&games, file.data() + 24, 8);
    std::memcpy(&seen, file.data() + 32, 8);
    std::memcpy(&sum, file.data() + 40, 8);
    if (version != kVersion || record != sizeof(Sample)) {
      fail("format version " + std::to_string(version) + " with " + std::to_string(record) +
           "-byte records; this build reads version " + std::to_string(kVersion));
    }
    if (file.size() != kHeader + count * sizeof(Sample)) {
      fail("truncated: " + std::to_string(file.size()) + " bytes, expected " +
           std::to_string(kHeader + count * sizeof(Sample)));
    }
    if (Fnv1a(file.data() + kHeader, count * sizeof(Sample)) != sum) {
      fail("corrupted: checksum mismatch");
    }
    for (std::uint64_t i = 0; i < count; ++i) {
      Sample s;
      std::memcpy(&s, file.data() + kHeader + i * sizeof(Sample), sizeof(Sample));
      samples_.push_back(s);
    }
    seen_ = std::max(seen_, seen);
    games_ = std::max(games_, games);
    shards_.emplace_back(id, count);
    next_shard_ = id + 1;
  }
  TrimLocked();
}

std::size_t ReplayBuffer::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return samples_.size();
}
std::uint64_t ReplayBuffer::seen() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return seen_;
}
std::uint64_t ReplayBuffer::games() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return games_;
}
std::size_t ReplayBuffer::WindowSize() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return WindowSizeLocked();
}

}  // namespace othello::training
