#include "training/run_dir.h"

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
#include "nn/checkpoint.h"
#include "training/replay_format.h"

namespace othello::training {
namespace {

namespace fs = std::filesystem;

std::string ModelName(std::int64_t step) {
  char name[40];
  std::snprintf(name, sizeof name, "model-%08lld.ckpt", static_cast<long long>(step));
  return name;
}

// Removes the model files older than the newest kModelsKept (an actor that is reading
// one keeps its open file; one that finds it gone reads latest.json again).
void PruneModels(const std::string& models) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(models)) {
    const std::string name = entry.path().filename().string();
    long long step;
    if (std::sscanf(name.c_str(), "model-%lld.ckpt", &step) == 1 && name == ModelName(step)) {
      names.push_back(name);
    }
  }
  std::sort(names.begin(), names.end());  // zero-padded: in step order
  for (std::size_t i = 0; i + kModelsKept < names.size(); ++i) {
    std::error_code ignored;  // a model already gone is no loss
    fs::remove(fs::path(models) / names[i], ignored);
  }
}

// The file's age in seconds by its modification time (0 if it is gone).
double AgeSeconds(const fs::path& path) {
  std::error_code error;
  const auto written = fs::last_write_time(path, error);
  if (error) return 0;
  return std::chrono::duration<double>(fs::file_time_type::clock::now() - written).count();
}

}  // namespace

bool EndsWith(const std::string& name, const std::string& suffix) {
  return name.size() >= suffix.size() &&
         name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string StepName(std::int64_t step) {
  char name[32];
  std::snprintf(name, sizeof name, "step-%08lld", static_cast<long long>(step));
  return name;
}

std::vector<std::pair<std::int64_t, std::string>> StepCheckpoints(const std::string& dir) {
  std::vector<std::pair<std::int64_t, std::string>> found;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(dir, error)) {
    const std::string name = entry.path().filename().string();
    long long n = -1;
    char tail[8] = {0};
    if (std::sscanf(name.c_str(), "step-%lld.%7s", &n, tail) == 2 && std::string(tail) == "ckpt") {
      found.emplace_back(n, entry.path().string());
    }
  }
  std::sort(found.begin(), found.end());
  return found;
}

std::string RunDir::In(std::initializer_list<std::string_view> parts) const {
  fs::path path(root_);
  for (const std::string_view part : parts) path /= part;
  return path.string();
}

std::string RunDir::config_file() const { return In({"run-config.json"}); }
std::string RunDir::checkpoints() const { return In({"checkpoints"}); }
std::string RunDir::latest_checkpoint() const { return In({"checkpoints", "latest.ckpt"}); }
std::string RunDir::checkpoint(std::int64_t step) const {
  return In({"checkpoints", StepName(step) + ".ckpt"});
}
std::string RunDir::best_checkpoint() const { return In({"checkpoints", "best.ckpt"}); }
std::string RunDir::replay() const { return In({"replay"}); }
std::string RunDir::journal() const { return In({"replay", kJournalFileName}); }
std::string RunDir::incoming() const { return In({"replay", "incoming"}); }
std::string RunDir::rejected() const { return In({"replay", "rejected"}); }
std::string RunDir::models() const { return In({"models"}); }
std::string RunDir::model_manifest() const { return In({"models", "latest.json"}); }
std::string RunDir::model(std::int64_t step) const { return In({"models", ModelName(step)}); }
std::string RunDir::actors() const { return In({"actors"}); }
std::string RunDir::actor_report(const std::string& actor) const {
  return In({"actors", actor + ".json"});
}
std::string RunDir::eval() const { return In({"eval"}); }
std::string RunDir::metrics() const { return In({"metrics.jsonl"}); }

double UnixNow() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void SaveRunConfig(const std::string& dir, const std::string& yaml, const std::string& name,
                   const std::vector<std::string>& overrides) {
  fs::create_directories(dir);
  const nlohmann::json config = {{"file", name}, {"yaml", yaml}, {"overrides", overrides}};
  core::WriteFileAtomically(RunDir(dir).config_file(), config.dump(2) + "\n",
                            "run configuration");
}

TrainingConfig LoadRunConfig(const std::string& dir, const std::vector<std::string>& extra) {
  const std::string path = RunDir(dir).config_file();
  std::error_code error;
  if (!fs::exists(path, error)) {
    throw core::InputError("run configuration " + path +
                           ": missing (start the learner, othello-zero train, on this run "
                           "directory first, or give the actor --config)");
  }
  nlohmann::json config;
  try {
    config = nlohmann::json::parse(core::ReadFile(path, "run configuration"));
  } catch (const nlohmann::json::exception& e) {
    throw core::InputError("run configuration " + path + ": not JSON: " + e.what());
  }
  const auto text = [&](const char* key) -> std::string {
    if (!config.is_object() || !config.contains(key) || !config[key].is_string()) {
      throw core::InputError("run configuration " + path + ": \"" + key +
                             "\" must be a string");
    }
    return config[key].get<std::string>();
  };
  std::vector<std::string> overrides;
  if (config.contains("overrides")) {
    const auto& list = config["overrides"];
    if (!list.is_array() ||
        !std::all_of(list.begin(), list.end(), [](const auto& v) { return v.is_string(); })) {
      throw core::InputError("run configuration " + path +
                             ": \"overrides\" must be a list of strings");
    }
    overrides = list.get<std::vector<std::string>>();
  }
  overrides.insert(overrides.end(), extra.begin(), extra.end());
  const std::string yaml = text("yaml");
  const std::string name = text("file") + " (by way of " + path + ")";
  return ParseTrainingConfig(yaml, name, overrides);
}

void PublishModel(const std::string& dir, nn::OthelloNet& net, std::int64_t step,
                  const core::Rules& rules) {
  const RunDir run(dir);
  fs::create_directories(run.models());
  core::WriteFileAtomically(run.model(step), nn::SerializeCheckpoint(net, step, nullptr, rules),
                            "model file");
  const nlohmann::json manifest = {{"step", step}, {"file", ModelName(step)}};
  core::WriteFileAtomically(run.model_manifest(), manifest.dump() + "\n", "model manifest");
  PruneModels(run.models());
}

std::optional<PublishedModel> NewestModel(const std::string& dir) {
  const fs::path path = RunDir(dir).model_manifest();
  std::error_code error;
  if (!fs::exists(path, error)) return std::nullopt;
  nlohmann::json manifest;
  try {
    manifest = nlohmann::json::parse(core::ReadFile(path.string(), "model manifest"));
  } catch (const nlohmann::json::exception& e) {
    throw core::InputError("model manifest " + path.string() + ": not JSON: " + e.what());
  }
  if (!manifest.is_object() || !manifest.contains("step") ||
      !manifest["step"].is_number_integer() || !manifest.contains("file") ||
      !manifest["file"].is_string()) {
    throw core::InputError("model manifest " + path.string() +
                           ": needs an integer \"step\" and a string \"file\"");
  }
  const std::string file = manifest["file"].get<std::string>();
  if (file.empty() || file.find('/') != std::string::npos || file[0] == '.') {
    throw core::InputError("model manifest " + path.string() + ": bad file name \"" + file +
                           "\"");
  }
  return PublishedModel{manifest["step"].get<std::int64_t>(), (path.parent_path() / file).string()};
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

IncomingWriter::IncomingWriter(const std::string& dir, std::string actor_id)
    : incoming_(RunDir(dir).incoming()), actor_id_(std::move(actor_id)) {
  fs::create_directories(incoming_);
}

void IncomingWriter::Write(const std::vector<Sample>& game) {
  char name[40];
  std::snprintf(name, sizeof name, "-%08llu.shard",
                static_cast<unsigned long long>(next_.fetch_add(1)));
  core::WriteFileAtomically((fs::path(incoming_) / (actor_id_ + name)).string(),
                            SerializeShard(game.data(), game.size(), /*games=*/1,
                                           /*seen=*/game.size()),
                            "incoming shard");
}

Ingester::Ingester(const std::string& dir, ReplayBuffer& buffer, int board_size)
    : dir_(dir), buffer_(buffer), board_size_(board_size) {
  fs::create_directories(RunDir(dir).incoming());
}

Ingester::Pass Ingester::RunOnce() {
  Pass pass;
  const fs::path incoming = RunDir(dir_).incoming();
  std::vector<SourcedGame> games;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(incoming)) {
    const std::string name = entry.path().filename().string();
    if (EndsWith(name, ".tmp")) {
      if (AgeSeconds(entry.path()) > 3600) {
        std::error_code ignored;
        fs::remove(entry.path(), ignored);
        pass.warnings.push_back("removed " + entry.path().string() +
                                ", an incoming shard whose writer stopped half-way an hour ago");
      }
      continue;
    }
    if (!EndsWith(name, ".shard") || !entry.is_regular_file()) {
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
      const fs::path rejected = RunDir(dir_).rejected();
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

void WriteActorReport(const std::string& dir, const ActorReport& report) {
  const RunDir run(dir);
  fs::create_directories(run.actors());
  core::WriteFileAtomically(run.actor_report(report.actor), ToJson(report).dump() + "\n",
                            "actor report");
}

std::vector<ActorReport> LiveActors(const std::string& dir, double max_age) {
  std::vector<ActorReport> live;
  std::error_code error;
  const std::string actors = RunDir(dir).actors();
  if (!fs::is_directory(actors, error)) return live;
  const double now = UnixNow();
  for (const auto& entry : fs::directory_iterator(actors, error)) {
    if (entry.path().extension() != ".json") continue;
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
