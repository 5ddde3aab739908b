// The actor protocol (training/actor_protocol.h) with the run's configuration file
// (run_config_file.h) and published models (model_publish.h), and the actor
// (training/actor.h), in one process; tests/training/actors_test.py runs learners and
// actors as processes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <thread>

#include "core/error.h"
#include "core/fault.h"
#include "core/file_io.h"
#include "nn/checkpoint.h"
#include "training/actor.h"
#include "training/actor_protocol.h"
#include "training/model_publish.h"
#include "training/replay_format.h"
#include "training/run_config_file.h"
#include "training/run_dir.h"

namespace othello::training {
namespace {

namespace fs = std::filesystem;

constexpr char kTinyYaml[] =
    "game: {size: 6}\n"
    "network: {blocks: 1, channels: 8, head_channels: 4, value_hidden: 8}\n"
    "selfplay: {threads: 1, games_per_thread: 4, leaves_per_game: 2}\n"
    "search: {full_visits: 8, fast_visits: 4, solver_empties: 4, tree_nodes: 4000}\n"
    "inference: {device: cpu, max_wait_us: 100}\n";

// An empty run directory under the temporary directory.
RunDir TempRun(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("oz_actors_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return RunDir(dir.string());
}

std::vector<Sample> Game6(int length) {
  std::vector<Sample> game(length);
  for (Sample& s : game) {
    s.SetPosition(core::Position::Standard(6));
    s.wdl[1] = 65535;
  }
  return game;
}

std::vector<std::string> Names(const std::string& folder) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(folder)) {
    names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

TEST(RunConfigFile, TheRunConfigurationRoundTripsWithItsOverrides) {
  const RunDir run = TempRun("config");
  SaveRunConfig(run, kTinyYaml, "tiny.yaml", {"selfplay.games_per_thread=6"});
  const TrainingConfig config = LoadRunConfig(run, {"selfplay.threads=3"});
  EXPECT_EQ(config.rules.size, 6);
  EXPECT_EQ(config.games_per_thread, 6);
  EXPECT_EQ(config.selfplay_threads, 3);
  // An override the run's file does not allow names the key and the file.
  try {
    LoadRunConfig(run, {"selfplay.threads=-1"});
    FAIL();
  } catch (const core::InputError& e) {
    EXPECT_THAT(e.what(), testing::HasSubstr("selfplay.threads"));
    EXPECT_THAT(e.what(), testing::HasSubstr("tiny.yaml"));
  }
}

TEST(RunConfigFile, AMissingOrDamagedRunConfigurationIsNamed) {
  const RunDir run = TempRun("config_bad");
  EXPECT_THAT([&] { LoadRunConfig(run); },
              testing::ThrowsMessage<core::InputError>(testing::HasSubstr("run-config.json: missing")));
  core::WriteFileAtomically(run.config_file(), "{\"yaml\": 3}", "test");
  EXPECT_THAT([&] { LoadRunConfig(run); },
              testing::ThrowsMessage<core::InputError>(testing::HasSubstr("\"yaml\" must be a string")));
  core::WriteFileAtomically(run.config_file(), "{\"yaml\": ", "test");
  EXPECT_THAT([&] { LoadRunConfig(run); },
              testing::ThrowsMessage<core::InputError>(testing::HasSubstr("not JSON")));
}

TEST(ModelPublish, PublishedModelsAreNamedByTheManifestAndPruned) {
  const RunDir run = TempRun("models");
  EXPECT_FALSE(NewestModel(run).has_value());
  nn::NetConfig net_config;
  net_config.blocks = 1;
  net_config.channels = 8;
  net_config.head_channels = 4;
  net_config.value_hidden = 8;
  nn::OthelloNet net(net_config);
  core::Rules rules;
  rules.size = 6;
  for (int step = 0; step <= 60; step += 10) PublishModel(run, net, step, rules);
  const auto newest = NewestModel(run);
  ASSERT_TRUE(newest.has_value());
  EXPECT_EQ(newest->step, 60);
  const nn::Checkpoint model = nn::LoadCheckpoint(newest->path, net_config);
  EXPECT_EQ(model.step, 60);
  ASSERT_TRUE(model.rules.has_value());
  EXPECT_EQ(model.rules->size, 6);
  EXPECT_THAT(Names(run.models()),
              testing::ElementsAre("latest.json", "model-00000030.ckpt", "model-00000040.ckpt",
                                   "model-00000050.ckpt", "model-00000060.ckpt"));
  core::WriteFileAtomically(run.model_manifest(), "{\"step\": 1, \"file\": \"../x\"}",
                            "test");
  EXPECT_THAT([&] { NewestModel(run); },
              testing::ThrowsMessage<core::InputError>(testing::HasSubstr("bad file name")));
}

TEST(ActorProtocol, ActorIdsAreUniqueAndPlain) {
  const std::string a = NewActorId(), b = NewActorId();
  EXPECT_NE(a, b);
  EXPECT_EQ(a.find('/'), std::string::npos);
  EXPECT_EQ(a.find(' '), std::string::npos);
}

// Complete shards are taken once and removed; unfinished writes, foreign and damaged
// files never become data (damaged ones are moved aside, nothing is deleted unread).
TEST(ActorProtocol, TheIngesterTakesCompleteShardsOnlyAndOnce) {
  const RunDir run = TempRun("ingest");
  IncomingWriter writer(run, "host-1-0000abcd");
  writer.Write(Game6(5));
  writer.Write(Game6(7));
  const std::string incoming = run.incoming();
  core::WriteFileAtomically(incoming + "/notes.txt", "hello", "test");
  // Half a shard, as a writer killed in the middle leaves it.
  const std::string whole = SerializeShard(Game6(3).data(), 3, 1, 3);
  core::WriteFileAtomically(incoming + "/host-2-0000beef-00000000.shard.tmp",
                            whole.substr(0, whole.size() / 2), "test");
  // A damaged shard, a shard of another board size, a shard of two games.
  std::string damaged = whole;
  damaged[damaged.size() - 3] ^= 0x40;
  core::WriteFileAtomically(incoming + "/host-3-00000001-00000000.shard", damaged, "test");
  std::vector<Sample> big(2);
  for (Sample& s : big) s.SetPosition(core::Position::Standard(8));
  core::WriteFileAtomically(incoming + "/host-3-00000001-00000001.shard",
                            SerializeShard(big.data(), 2, 1, 2), "test");
  core::WriteFileAtomically(incoming + "/host-3-00000001-00000002.shard",
                            SerializeShard(Game6(4).data(), 4, 2, 4), "test");

  WindowConfig window;
  ReplayBuffer buffer(run, window, 6);
  Ingester ingester(run, buffer, 6);
  const Ingester::Pass pass = ingester.RunOnce();
  EXPECT_EQ(pass.games, 2u);
  EXPECT_EQ(pass.files, 2u);
  EXPECT_EQ(buffer.games(), 2u);
  EXPECT_EQ(buffer.seen(), 12u);
  EXPECT_EQ(pass.warnings.size(), 4u);  // notes.txt, and the three bad shards
  EXPECT_THAT(Names(incoming), testing::ElementsAre("host-2-0000beef-00000000.shard.tmp",
                                                    "notes.txt"));
  EXPECT_THAT(Names(run.rejected()),
              testing::ElementsAre("host-3-00000001-00000000.shard",
                                   "host-3-00000001-00000001.shard",
                                   "host-3-00000001-00000002.shard"));
  // A second pass finds nothing new and warns no more.
  const Ingester::Pass again = ingester.RunOnce();
  EXPECT_EQ(again.games, 0u);
  EXPECT_TRUE(again.warnings.empty());
  writer.Write(Game6(2));
  EXPECT_EQ(ingester.RunOnce().games, 1u);
  EXPECT_EQ(buffer.seen(), 14u);
}

TEST(ActorProtocol, LiveActorsAreTheRecentOnesThatHaveNotStopped) {
  const RunDir run = TempRun("actors");
  ActorReport live;
  live.actor = "a";
  live.threads = 2;
  live.positions_per_second = 100;
  live.updated = UnixNow();
  WriteActorReport(run, live);
  ActorReport old = live;
  old.actor = "b";
  old.updated = UnixNow() - 3600;
  WriteActorReport(run, old);
  ActorReport stopped = live;
  stopped.actor = "c";
  stopped.stopped = true;
  WriteActorReport(run, stopped);
  core::WriteFileAtomically(run.actors() + "/d.json", "{", "test");  // being written
  const std::vector<ActorReport> actors = LiveActors(run);
  ASSERT_EQ(actors.size(), 1u);
  EXPECT_EQ(actors[0].actor, "a");
  EXPECT_EQ(actors[0].threads, 2);
  EXPECT_DOUBLE_EQ(actors[0].positions_per_second, 100);
}

// An actor waits for the first model, plays with it, takes a newer one without
// restarting, and writes each finished game as an incoming shard.
TEST(Actor, PlaysThePublishedModelsAndWritesItsGames) {
  const RunDir run = TempRun("actor");
  SaveRunConfig(run, kTinyYaml, "tiny.yaml", {});
  const TrainingConfig config = LoadRunConfig(run);
  std::atomic<bool> stop{false};
  std::ostringstream log;
  ActorSummary summary;
  std::thread actor([&] {
    ActorOptions options;
    options.model_poll_seconds = 0.05;
    options.report_seconds = 0.2;
    summary = RunActor(config, run, stop, log, options);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const std::string incoming = run.incoming();
  EXPECT_TRUE(!fs::exists(incoming) || fs::is_empty(incoming));  // no model yet
  nn::OthelloNet net(config.net);
  PublishModel(run, net, 0, config.rules);
  const auto wait_for = [&](auto done) {
    for (int i = 0; i < 600 && !done(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    return done();
  };
  EXPECT_TRUE(wait_for([&] { return fs::exists(incoming) && !fs::is_empty(incoming); }));
  PublishModel(run, net, 7, config.rules);
  EXPECT_TRUE(wait_for([&] {
    const auto actors = LiveActors(run);
    return !actors.empty() && actors[0].model_step == 7;
  }));
  stop = true;
  actor.join();
  EXPECT_EQ(summary.model_step, 7);
  EXPECT_GT(summary.games, 0u);
  EXPECT_THAT(log.str(), testing::HasSubstr("waiting for the learner's first model"));
  EXPECT_THAT(log.str(), testing::HasSubstr("playing with the model of step 7"));
  // Every game it counted is a complete shard in incoming/.
  WindowConfig window;
  ReplayBuffer buffer(run, window, 6);
  Ingester ingester(run, buffer, 6);
  EXPECT_EQ(ingester.RunOnce().games, summary.games);
  EXPECT_EQ(buffer.seen(), summary.positions);
  EXPECT_TRUE(LiveActors(run).empty());  // its last report says it stopped
}

// A full disk stops the actor with the reason (a report it cannot write is only a
// warning: the games matter); the games written before it stay whole.
TEST(Actor, AFullDiskStopsItWithTheReason) {
  const RunDir run = TempRun("actor_full");
  const TrainingConfig config = ParseTrainingConfig(kTinyYaml, "tiny.yaml");
  nn::OthelloNet net(config.net);
  PublishModel(run, net, 0, config.rules);
  core::SetFaults("write@2,write@3,write@4");  // the actor's next atomic writes fail
  std::atomic<bool> stop{false};
  std::ostringstream log;
  try {
    RunActor(config, run, stop, log);
    ADD_FAILURE() << "the actor ran on";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), testing::HasSubstr("self-play thread 0 failed: incoming shard"));
    EXPECT_THAT(e.what(), testing::HasSubstr("No space left on device"));
  }
  core::SetFaults("");
  WindowConfig window;
  ReplayBuffer buffer(run, window, 6);
  Ingester ingester(run, buffer, 6);
  const Ingester::Pass pass = ingester.RunOnce();
  EXPECT_TRUE(pass.warnings.empty());
}

// A model of other rules than the actor's configuration stops it with the reason.
TEST(Actor, AModelOfOtherRulesStopsIt) {
  const RunDir run = TempRun("actor_rules");
  const TrainingConfig config = ParseTrainingConfig(kTinyYaml, "tiny.yaml");
  nn::OthelloNet net(config.net);
  core::Rules other = config.rules;
  other.size = 8;
  PublishModel(run, net, 0, other);
  std::atomic<bool> stop{false};
  std::ostringstream log;
  EXPECT_THAT([&] { RunActor(config, run, stop, log); },
              testing::ThrowsMessage<core::InputError>(testing::HasSubstr("game.*")));
}

}  // namespace
}  // namespace othello::training
