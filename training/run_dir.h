#pragma once
// The run directory: every file of a training run, and the shared directory through
// which a learner (othello-zero train) and actors (othello-zero selfplay) work together
// (actor_protocol.h). RunDir names every path in it, joining the names that
// arena/run_layout.h spells once; every other file takes its paths from a RunDir:
//
//   DIR/run-config.json            the run's configuration (the learner's YAML text and
//                                  --set overrides), so that actors play by it
//                                  (run_config_file.h)
//   DIR/checkpoints/latest.ckpt    the newest checkpoint (resumed from)
//   DIR/checkpoints/step-NNNNNNNN.ckpt
//                                  one per checkpoint, for evaluation
//   DIR/checkpoints/best.ckpt      with gating (eval.gate): the last model that passed,
//                                  the one self-play resumes with
//   DIR/replay/shard-NNNNNN.bin    the replay buffer's shards (replay_buffer.h,
//                                  replay_format.h)
//   DIR/replay/journal.bin         the finished games not yet in a shard
//   DIR/replay/incoming/ACTOR-NNNNNNNN.shard
//                                  an actor's finished game: one game per shard
//                                  (replay_format.h's shard format)
//   DIR/replay/rejected/           incoming shards that failed to read, moved aside
//   DIR/models/latest.json         the newest published model: {"step", "file"}
//   DIR/models/model-NNNNNNNN.ckpt published models (checkpoints without optimizer
//                                  state); the newest kModelsKept are kept
//                                  (model_publish.h)
//   DIR/actors/ACTOR.json          each actor's counters, rewritten every few seconds
//   DIR/eval/games.ggf             the checkpoint evaluations' games (evaluation.h)
//   DIR/metrics.jsonl              one JSON object per report of the learner
//
// Every file that is replaced rather than appended to (the journal, metrics.jsonl and
// games.ggf are appended to) is written atomically (core/file_io.h: PATH.tmp, fsync,
// rename): a reader sees a whole file or none, and a writer killed half-way leaves only
// a *.tmp, which no reader takes. Each process writes only its own files (the learner:
// run-config.json, checkpoints/, models/, replay/, eval/, metrics.jsonl; an actor: its
// incoming shards and its actors/ file).
// Thread safety: RunDir is an immutable value; the listings (StepCheckpoints,
// RunDir::ModelFiles) read the file system and write nothing.
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace othello::training {

// "step-00001200": a checkpoint's name (checkpoints/step-00001200.ckpt) and its model's
// name in evaluation games.
std::string StepName(std::int64_t step);

// The checkpoints named step-N.ckpt in `folder` (a run's checkpoints/, or any folder a
// checkpoint was copied to), as (step, path) sorted by step; none when `folder` is not
// a folder.
std::vector<std::pair<std::int64_t, std::string>> StepCheckpoints(const std::string& folder);

// The paths of the run directory at `root` (the layout above); nothing is created.
class RunDir {
 public:
  explicit RunDir(std::string root) : root_(std::move(root)) {}
  const std::string& root() const { return root_; }

  std::string config_file() const;  // run-config.json
  std::string metrics() const;      // metrics.jsonl
  std::string checkpoints() const;
  std::string latest_checkpoint() const;
  std::string checkpoint(std::int64_t step) const;  // step-NNNNNNNN.ckpt
  std::string best_checkpoint() const;
  std::string replay() const;
  std::string replay_shard(std::uint64_t id) const;  // replay/shard-NNNNNN.bin
  std::string journal() const;                       // replay/journal.bin
  std::string incoming() const;
  // replay/incoming/ACTOR-NNNNNNNN.shard: actor `actor`'s game number `game`.
  std::string incoming_shard(const std::string& actor, std::uint64_t game) const;
  std::string rejected() const;
  std::string models() const;
  std::string model_manifest() const;          // models/latest.json
  std::string model(std::int64_t step) const;  // model-NNNNNNNN.ckpt
  std::string actors() const;
  std::string actor_report(const std::string& actor) const;  // actors/ACTOR.json
  std::string eval() const;
  std::string eval_games() const;  // eval/games.ggf (arena.h's GamesFile of eval/)

  // The published model files in models/ (model-NNNNNNNN.ckpt) as (step, path), sorted
  // by step; none when there is no models/.
  std::vector<std::pair<std::int64_t, std::string>> ModelFiles() const;

  // What a file name (not a path) found in one of the folders is:
  static bool IsCheckpoint(std::string_view name);  // *.ckpt, in checkpoints/
  // shard-NNNNNN.bin in replay/: its number; nullopt for any other name.
  static std::optional<std::uint64_t> ReplayShardNumber(std::string_view name);
  static bool IsIncomingShard(std::string_view name);  // *.shard, in replay/incoming/
  static bool IsActorReport(std::string_view name);    // *.json, in actors/

 private:
  std::string In(std::initializer_list<std::string_view> parts) const;

  std::string root_;
};

}  // namespace othello::training
