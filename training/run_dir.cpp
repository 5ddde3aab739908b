#include "training/run_dir.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <limits>

#include "arena/arena.h"
#include "arena/run_layout.h"

namespace othello::training {
namespace {

namespace fs = std::filesystem;
namespace layout = arena::run_layout;

// Zero-padded widths of the numbered names.
constexpr int kStepDigits = 8;      // step-NNNNNNNN, model-NNNNNNNN
constexpr int kShardDigits = 6;     // shard-NNNNNN
constexpr int kIncomingDigits = 8;  // ACTOR-NNNNNNNN

// prefix, `n` zero-padded to `digits` (more when it needs them), extension.
std::string Numbered(std::string_view prefix, long long n, int digits,
                     std::string_view extension) {
  char number[32];
  std::snprintf(number, sizeof number, "%0*lld", digits, n);
  return std::string(prefix) + number + std::string(extension);
}

bool HasExtension(std::string_view name, std::string_view extension) {
  return name.size() > extension.size() &&
         name.substr(name.size() - extension.size()) == extension;
}

// The number of a name prefix + decimal digits + extension; nullopt for another name.
std::optional<std::int64_t> NumberIn(std::string_view name, std::string_view prefix,
                                     std::string_view extension) {
  if (name.size() <= prefix.size() + extension.size() || name.substr(0, prefix.size()) != prefix ||
      !HasExtension(name, extension)) {
    return std::nullopt;
  }
  std::int64_t n = 0;
  for (const char c : name.substr(prefix.size(), name.size() - prefix.size() - extension.size())) {
    if (c < '0' || c > '9' || n > (std::numeric_limits<std::int64_t>::max() - 9) / 10) {
      return std::nullopt;
    }
    n = n * 10 + (c - '0');
  }
  return n;
}

// The files of `folder` whose names NumberIn reads (`canonical`: only as `name_of`
// writes them), as (number, path) sorted by number.
template <typename NameOf>
std::vector<std::pair<std::int64_t, std::string>> NumberedFiles(const std::string& folder,
                                                                std::string_view prefix,
                                                                std::string_view extension,
                                                                bool canonical, NameOf name_of) {
  std::vector<std::pair<std::int64_t, std::string>> found;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(folder, error)) {
    const std::string name = entry.path().filename().string();
    const std::optional<std::int64_t> n = NumberIn(name, prefix, extension);
    if (n && (!canonical || name == name_of(*n))) found.emplace_back(*n, entry.path().string());
  }
  std::sort(found.begin(), found.end());
  return found;
}

std::string ModelName(std::int64_t step) {
  return Numbered(layout::kModelPrefix, step, kStepDigits, layout::kCheckpointExtension);
}

std::string ShardName(std::uint64_t id) {
  return Numbered(layout::kShardPrefix, static_cast<long long>(id), kShardDigits,
                  layout::kShardExtension);
}

}  // namespace

std::string StepName(std::int64_t step) {
  return Numbered(layout::kStepPrefix, step, kStepDigits, "");
}

std::vector<std::pair<std::int64_t, std::string>> StepCheckpoints(const std::string& folder) {
  return NumberedFiles(folder, layout::kStepPrefix, layout::kCheckpointExtension,
                       /*canonical=*/false, StepName);
}

std::string RunDir::In(std::initializer_list<std::string_view> parts) const {
  fs::path path(root_);
  for (const std::string_view part : parts) path /= part;
  return path.string();
}

std::string RunDir::config_file() const { return In({layout::kRunConfig}); }
std::string RunDir::metrics() const { return In({layout::kMetrics}); }
std::string RunDir::checkpoints() const { return In({layout::kCheckpoints}); }
std::string RunDir::latest_checkpoint() const {
  return In({layout::kCheckpoints, layout::kLatestCheckpoint});
}
std::string RunDir::checkpoint(std::int64_t step) const {
  return In({layout::kCheckpoints, StepName(step) + std::string(layout::kCheckpointExtension)});
}
std::string RunDir::best_checkpoint() const {
  return In({layout::kCheckpoints, layout::kBestCheckpoint});
}
std::string RunDir::replay() const { return In({layout::kReplay}); }
std::string RunDir::replay_shard(std::uint64_t id) const {
  return In({layout::kReplay, ShardName(id)});
}
std::string RunDir::journal() const { return In({layout::kReplay, layout::kJournal}); }
std::string RunDir::incoming() const { return In({layout::kReplay, layout::kIncoming}); }
std::string RunDir::incoming_shard(const std::string& actor, std::uint64_t game) const {
  return In({layout::kReplay, layout::kIncoming,
             Numbered(actor + "-", static_cast<long long>(game), kIncomingDigits,
                      layout::kIncomingExtension)});
}
std::string RunDir::rejected() const { return In({layout::kReplay, layout::kRejected}); }
std::string RunDir::models() const { return In({layout::kModels}); }
std::string RunDir::model_manifest() const {
  return In({layout::kModels, layout::kModelManifest});
}
std::string RunDir::model(std::int64_t step) const {
  return In({layout::kModels, ModelName(step)});
}
std::string RunDir::actors() const { return In({layout::kActors}); }
std::string RunDir::actor_report(const std::string& actor) const {
  return In({layout::kActors, actor + std::string(layout::kActorReportExtension)});
}
std::string RunDir::eval() const { return In({layout::kEval}); }
std::string RunDir::eval_games() const { return arena::GamesFile(eval()); }

std::vector<std::pair<std::int64_t, std::string>> RunDir::ModelFiles() const {
  return NumberedFiles(models(), layout::kModelPrefix, layout::kCheckpointExtension,
                       /*canonical=*/true, ModelName);
}

bool RunDir::IsCheckpoint(std::string_view name) {
  return HasExtension(name, layout::kCheckpointExtension);
}

std::optional<std::uint64_t> RunDir::ReplayShardNumber(std::string_view name) {
  const std::optional<std::int64_t> id =
      NumberIn(name, layout::kShardPrefix, layout::kShardExtension);
  if (!id || name != ShardName(static_cast<std::uint64_t>(*id))) return std::nullopt;
  return static_cast<std::uint64_t>(*id);
}

bool RunDir::IsIncomingShard(std::string_view name) {
  return HasExtension(name, layout::kIncomingExtension);
}

bool RunDir::IsActorReport(std::string_view name) {
  return HasExtension(name, layout::kActorReportExtension);
}

}  // namespace othello::training
