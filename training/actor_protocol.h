#pragma once
// The actor protocol: how a learner (othello-zero train) and actors (othello-zero
// selfplay) on any number of machines work together through the run directory's files
// alone (run_dir.h), on NFS or any POSIX file system, as KataGo's distributed runs do.
// No server, no sockets. The actor plays with the newest published model
// (model_publish.h), writes each finished game at once as its own incoming shard
// (IncomingWriter) and its counters to actors/ACTOR.json (WriteActorReport); the
// learner takes the shards into its replay buffer (Ingester) and counts the live actors
// (LiveActors).
// ACTOR is "HOST-PID-NONCE" (a random 32-bit nonce), so actors on different machines,
// and a restarted actor, never write the same name. Every file is written atomically
// (core/file_io.h), so a killed writer leaves only a *.tmp, which no reader takes.
// Thread safety: IncomingWriter::Write from any thread; an Ingester from one thread at a
// time; the rest are functions of the file system, each process writing only its own
// files.
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "training/replay_buffer.h"
#include "training/run_dir.h"
#include "training/sample.h"

namespace othello::training {

// "HOST-PID-NONCE", with the host name's characters outside [A-Za-z0-9._] as '_'.
std::string NewActorId();

// An actor's finished games, each written at once as its own incoming shard.
class IncomingWriter {
 public:
  IncomingWriter(const RunDir& run, std::string actor_id);
  // Writes `game` as the next shard; throws core::InputError naming the file.
  void Write(const std::vector<Sample>& game);
  std::uint64_t written() const { return next_.load(); }

 private:
  const RunDir run_;
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
  Ingester(const RunDir& run, ReplayBuffer& buffer, int board_size);
  struct Pass {
    std::size_t games = 0;     // newly in the replay
    std::size_t files = 0;     // incoming shards removed (ingested now or before)
    std::vector<std::string> warnings;
  };
  // One pass over incoming/. Throws core::InputError when a file cannot be removed or
  // the journal not written (nothing is half-taken).
  Pass RunOnce();

 private:
  const RunDir run_;
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
void WriteActorReport(const RunDir& run, const ActorReport& report);
// The reports of the actors that wrote within `max_age` seconds and have not stopped;
// unreadable ones are skipped (an actor may be rewriting it).
std::vector<ActorReport> LiveActors(const RunDir& run, double max_age = 60);

double UnixNow();

}  // namespace othello::training
