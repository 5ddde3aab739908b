#include "training/actor_protocol.h"

#include <unistd.h>

#include <csignal>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>

#include "core/error.h"
#include "core/fault.h"
#include "core/file_io.h"
#include "training/replay_format.h"

namespace othello::training {
namespace {

namespace fs = std::filesystem;

// The file's age in seconds by its modification time (0 if it is gone).
double AgeSeconds(const fs::path& path) {
  std::error_code error;
  const auto written = fs::last_write_time(path, error);
  if (error) return 0;
  return std::chrono::duration<double>(fs::file_time_type::clock::now() - written).count();
}

}  // namespace

double UnixNow() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string NewActorId() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0 || host[0] == '\0') std::snprintf(host, 8, "host");
  std::string name(host);
  for (char& c : name) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '.' || c == '_';
    if (!plain) c = '_';
  }
  std::random_device entropy;
  char id[64];
  std::snprintf(id, sizeof id, "-%d-%08x", static_cast<int>(::getpid()),
                static_cast<unsigned>(entropy()));
  return name + id;
}

IncomingWriter::IncomingWriter(const RunDir& run, std::string actor_id)
    : run_(run), actor_id_(std::move(actor_id)) {
  fs::create_directories(run_.incoming());
}

void IncomingWriter::Write(const std::vector<Sample>& game) {
  core::WriteFileAtomically(run_.incoming_shard(actor_id_, next_.fetch_add(1)),
                            SerializeShard(game.data(), game.size(), /*games=*/1,
                                           /*seen=*/game.size()),
                            "incoming shard");
}

Ingester::Ingester(const RunDir& run, ReplayBuffer& buffer, int board_size)
    : run_(run), buffer_(buffer), board_size_(board_size) {
  fs::create_directories(run_.incoming());
}

Ingester::Pass Ingester::RunOnce() {
  Pass pass;
  const fs::path incoming = run_.incoming();
  std::vector<SourcedGame> games;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(incoming)) {
    const std::string name = entry.path().filename().string();
    if (core::IsTemporaryFile(name)) {
      if (AgeSeconds(entry.path()) > 3600) {
        std::error_code ignored;
        fs::remove(entry.path(), ignored);
        pass.warnings.push_back("removed " + entry.path().string() +
                                ", an incoming shard whose writer stopped half-way an hour ago");
      }
      continue;
    }
    if (!RunDir::IsIncomingShard(name) || !entry.is_regular_file()) {
      if (std::find(warned_.begin(), warned_.end(), name) == warned_.end()) {
        warned_.push_back(name);
        pass.warnings.push_back("ignoring " + entry.path().string() +
                                ": not an incoming shard (ACTOR-NNNNNNNN.shard)");
      }
      continue;
    }
    try {
      Shard shard = ParseShard(core::ReadFile(entry.path().string(), "incoming shard"),
                               entry.path().string(), board_size_);
      if (shard.games != 1 || shard.seen != shard.samples.size() || shard.samples.empty()) {
        throw core::InputError("incoming shard " + entry.path().string() +
                               ": not one actor's game (" + std::to_string(shard.games) +
                               " games, " + std::to_string(shard.samples.size()) + " positions)");
      }
      games.push_back({name, std::move(shard.samples)});
      files.push_back(entry.path());
    } catch (const core::InputError& e) {
      const fs::path rejected = run_.rejected();
      fs::create_directories(rejected);
      fs::rename(entry.path(), rejected / name);
      pass.warnings.push_back(std::string(e.what()) + "; moved to " + (rejected / name).string());
    }
  }
  if (files.empty()) return pass;
  pass.games = buffer_.Ingest(games, [&] {
    if (core::InjectFault("kill:ingest")) ::kill(::getpid(), SIGKILL);  // journaled, not removed
    for (const fs::path& file : files) fs::remove(file);
    core::SyncFolder(incoming.string(), "incoming shards");
  });
  pass.files = files.size();
  return pass;
}

nlohmann::json ToJson(const ActorReport& r) {
  return {{"actor", r.actor},
          {"threads", r.threads},
          {"model_step", r.model_step},
          {"games", r.games},
          {"positions", r.positions},
          {"playouts", r.playouts},
          {"games_per_second", r.games_per_second},
          {"positions_per_second", r.positions_per_second},
          {"playouts_per_second", r.playouts_per_second},
          {"updated", r.updated},
          {"stopped", r.stopped}};
}

void WriteActorReport(const RunDir& run, const ActorReport& report) {
  fs::create_directories(run.actors());
  core::WriteFileAtomically(run.actor_report(report.actor), ToJson(report).dump() + "\n",
                            "actor report");
}

std::vector<ActorReport> LiveActors(const RunDir& run, double max_age) {
  std::vector<ActorReport> live;
  std::error_code error;
  const std::string actors = run.actors();
  if (!fs::is_directory(actors, error)) return live;
  const double now = UnixNow();
  for (const auto& entry : fs::directory_iterator(actors, error)) {
    if (!RunDir::IsActorReport(entry.path().filename().string())) continue;
    try {
      const nlohmann::json j =
          nlohmann::json::parse(core::ReadFile(entry.path().string(), "actor report"));
      ActorReport r;
      r.actor = j.at("actor").get<std::string>();
      r.threads = j.at("threads").get<int>();
      r.model_step = j.at("model_step").get<std::int64_t>();
      r.games = j.at("games").get<std::uint64_t>();
      r.positions = j.at("positions").get<std::uint64_t>();
      r.playouts = j.at("playouts").get<std::uint64_t>();
      r.games_per_second = j.at("games_per_second").get<double>();
      r.positions_per_second = j.at("positions_per_second").get<double>();
      r.playouts_per_second = j.at("playouts_per_second").get<double>();
      r.updated = j.at("updated").get<double>();
      r.stopped = j.at("stopped").get<bool>();
      if (!r.stopped && now - r.updated <= max_age) live.push_back(std::move(r));
    } catch (const std::exception&) {
      // being rewritten, or not an actor's: not counted this time
    }
  }
  std::sort(live.begin(), live.end(),
            [](const ActorReport& a, const ActorReport& b) { return a.actor < b.actor; });
  return live;
}

}  // namespace othello::training
