#pragma once
// The run directory: every file of a training run, and the shared directory through
// which a learner (othello-zero train) and actors (othello-zero selfplay) on any number
// of machines work together through its files alone, on NFS or any POSIX file system,
// as KataGo's distributed runs do. No server, no sockets. RunDir names every path in it
// (the replay buffer names its own shards, replay_buffer.h):
//
//   DIR/run-config.json            the run's configuration (the learner's YAML text and
//                                  --set overrides), so that actors play by it
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
//   DIR/actors/ACTOR.json          each actor's counters, rewritten every few seconds
//   DIR/eval/games.ggf             the checkpoint evaluations' games (evaluation.h)
//   DIR/metrics.jsonl              one JSON object per report of the learner
//
// Every file that is replaced rather than appended to (the journal, metrics.jsonl and
// games.ggf are appended to) is written atomically (core/file_io.h: PATH.tmp, fsync,
// rename): a reader sees a whole file or none, and a writer killed half-way leaves only
// a *.tmp, which no reader takes. ACTOR is "HOST-PID-NONCE" (a random 32-bit nonce), so actors on
// different machines, and a restarted actor, never write the same name.
// Thread safety: RunDir is an immutable value; IncomingWriter::Write from any thread;
// the rest are functions of the file system, each process writing only its own files
// (the learner: run-config.json, checkpoints/, models/, replay/, eval/, metrics.jsonl;
// an actor: its incoming shards and its actors/ file).
#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/rules.h"
#include "nn/model.h"
#include "training/config.h"
#include "training/replay_buffer.h"

namespace othello::training {

inline constexpr int kModelsKept = 4;

// "step-00001200": a checkpoint's name (checkpoints/step-00001200.ckpt) and its model's
// name in evaluation games.
std::string StepName(std::int64_t step);

// The checkpoints named step-N.ckpt in `dir` (a run's checkpoints/), as (step, path)
// sorted by step; none when `dir` is not a folder.
std::vector<std::pair<std::int64_t, std::string>> StepCheckpoints(const std::string& dir);

// Whether a file name ends with `suffix` (".tmp", ".shard", ".ckpt").
bool EndsWith(const std::string& name, const std::string& suffix);

// The paths of the run directory at `root` (the layout above); nothing is created.
class RunDir {
 public:
  explicit RunDir(std::string root) : root_(std::move(root)) {}
  const std::string& root() const { return root_; }

  std::string config_file() const;  // run-config.json
  std::string checkpoints() const;
  std::string latest_checkpoint() const;
  std::string checkpoint(std::int64_t step) const;  // step-NNNNNNNN.ckpt
  std::string best_checkpoint() const;
  std::string replay() const;
  std::string journal() const;  // replay/journal.bin
  std::string incoming() const;
  std::string rejected() const;
  std::string models() const;
  std::string model_manifest() const;  // models/latest.json
  std::string model(std::int64_t step) const;  // model-NNNNNNNN.ckpt
  std::string actors() const;
  std::string actor_report(const std::string& actor) const;  // actors/ACTOR.json
  std::string eval() const;
  std::string metrics() const;

 private:
  std::string In(std::initializer_list<std::string_view> parts) const;

  std::string root_;
};

// run-config.json: the configuration's YAML text, the file it came from (for error
// messages) and the overrides. LoadRunConfig parses it with `extra` overrides after
// the run's; a missing or bad file throws core::InputError naming it.
void SaveRunConfig(const std::string& dir, const std::string& yaml, const std::string& name,
                   const std::vector<std::string>& overrides);
TrainingConfig LoadRunConfig(const std::string& dir, const std::vector<std::string>& extra = {});

// Publishes `net` at `step` for actors: the model file, then latest.json naming it;
// older model files beyond the newest kModelsKept are removed.
void PublishModel(const std::string& dir, nn::OthelloNet& net, std::int64_t step,
                  const core::Rules& rules);

struct PublishedModel {
  std::int64_t step = 0;
  std::string path;
};
// What latest.json names; nullopt when nothing is published yet. A damaged manifest
// throws core::InputError naming it.
std::optional<PublishedModel> NewestModel(const std::string& dir);

// "HOST-PID-NONCE", with the host name's characters outside [A-Za-z0-9._] as '_'.
std::string NewActorId();

// An actor's finished games, each written at once as its own incoming shard.
class IncomingWriter {
 public:
  IncomingWriter(const std::string& dir, std::string actor_id);
  // Writes `game` as the next shard; throws core::InputError naming the file.
  void Write(const std::vector<Sample>& game);
  std::uint64_t written() const { return next_.load(); }

 private:
  const std::string incoming_;
  const std::string actor_id_;
  std::atomic<std::uint64_t> next_{0};  // the next shard's number
};

// The learner's side: takes every complete incoming shard into `buffer` exactly once
// (ReplayBuffer::Ingest) and removes it. A *.shard that fails to read (torn, damaged,
// another board size) is moved to replay/rejected/ with a warning; a foreign file
// (another name) is left where it is with one warning; a *.tmp is an unfinished write
// (its writer may still be at it, or was killed), removed once an hour old.
class Ingester {
 public:
  Ingester(const std::string& dir, ReplayBuffer& buffer, int board_size);
  struct Pass {
    std::size_t games = 0;     // newly in the replay
    std::size_t files = 0;     // incoming shards removed (ingested now or before)
    std::vector<std::string> warnings;
  };
  // One pass over incoming/. Throws core::InputError when a file cannot be removed or
  // the journal not written (nothing is half-taken).
  Pass RunOnce();

 private:
  const std::string dir_;
  ReplayBuffer& buffer_;
  const int board_size_;
  std::vector<std::string> warned_;  // foreign files already reported
};

// An actor's counters (DIR/actors/ACTOR.json): cumulative counts, the rates over its
// last interval, the model step it plays with, and when it wrote them (Unix seconds).
struct ActorReport {
  std::string actor;
  int threads = 0;
  std::int64_t model_step = -1;  // -1: waiting for a model
  std::uint64_t games = 0, positions = 0, playouts = 0;
  double games_per_second = 0, positions_per_second = 0, playouts_per_second = 0;
  double updated = 0;  // Unix time
  bool stopped = false;
};
nlohmann::json ToJson(const ActorReport& report);
void WriteActorReport(const std::string& dir, const ActorReport& report);
// The reports of the actors that wrote within `max_age` seconds and have not stopped;
// unreadable ones are skipped (an actor may be rewriting it).
std::vector<ActorReport> LiveActors(const std::string& dir, double max_age = 60);

double UnixNow();

}  // namespace othello::training
