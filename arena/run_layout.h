#pragma once
// The names of the files and folders in a training run's directory, each spelled here
// once. training/run_dir.h draws the layout and joins these names into paths; the code
// spells them nowhere else (tests pin the layout that runs on disk depend on). They
// live here, below training, because the arena reads two of them: a checkpoint in a
// run's checkpoints/ is labelled by the run's folder (player_spec.cpp), and an arena's
// output folder holds its games in games.ggf, as a run's eval/ does (arena.h).
// Numbered names are a prefix, a zero-padded number and an extension
// (step-00001200.ckpt); training/run_dir.cpp writes and reads them.
// Thread safety: constants.
#include <string_view>

namespace othello::arena::run_layout {

// Folders: the run's, and replay/'s two.
inline constexpr std::string_view kCheckpoints = "checkpoints";
inline constexpr std::string_view kReplay = "replay";
inline constexpr std::string_view kIncoming = "incoming";  // in replay/
inline constexpr std::string_view kRejected = "rejected";  // in replay/
inline constexpr std::string_view kModels = "models";
inline constexpr std::string_view kActors = "actors";
inline constexpr std::string_view kEval = "eval";

// Files with a fixed name.
inline constexpr std::string_view kRunConfig = "run-config.json";
inline constexpr std::string_view kMetrics = "metrics.jsonl";
inline constexpr std::string_view kLatestCheckpoint = "latest.ckpt";  // in checkpoints/
inline constexpr std::string_view kBestCheckpoint = "best.ckpt";      // in checkpoints/
inline constexpr std::string_view kJournal = "journal.bin";           // in replay/
inline constexpr std::string_view kModelManifest = "latest.json";     // in models/
inline constexpr std::string_view kGames = "games.ggf";  // in eval/, and an arena's --out

// The parts of numbered names.
inline constexpr std::string_view kStepPrefix = "step-";    // checkpoints/step-NNNNNNNN.ckpt
inline constexpr std::string_view kModelPrefix = "model-";  // models/model-NNNNNNNN.ckpt
inline constexpr std::string_view kCheckpointExtension = ".ckpt";
inline constexpr std::string_view kShardPrefix = "shard-";  // replay/shard-NNNNNN.bin
inline constexpr std::string_view kShardExtension = ".bin";
inline constexpr std::string_view kIncomingExtension = ".shard";  // incoming/ACTOR-NNNNNNNN.shard
inline constexpr std::string_view kActorReportExtension = ".json";  // actors/ACTOR.json

}  // namespace othello::arena::run_layout
