// The run directory's layout (training/run_dir.h, arena/run_layout.h): the paths that
// runs already on disk depend on, and the names of the files found in its folders.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <cctype>
#include <filesystem>
#include <fstream>

#include "core/file_io.h"
#include "training/run_dir.h"

namespace othello::training {
namespace {

namespace fs = std::filesystem;

// Every path RunDir names, each file with its numbers and names as the layout draws
// them (NNNNNNNN, ACTOR), and whether it is a folder.
struct NamedPath {
  std::string path;
  bool folder;
};
std::vector<NamedPath> EveryPath(const RunDir& run) {
  return {{run.config_file(), false},
          {run.metrics(), false},
          {run.checkpoints(), true},
          {run.latest_checkpoint(), false},
          {run.checkpoint(0), false},
          {run.best_checkpoint(), false},
          {run.replay(), true},
          {run.replay_shard(0), false},
          {run.journal(), false},
          {run.incoming(), true},
          {run.incoming_shard("ACTOR", 0), false},
          {run.rejected(), true},
          {run.models(), true},
          {run.model_manifest(), false},
          {run.model(0), false},
          {run.actors(), true},
          {run.actor_report("ACTOR"), false},
          {run.eval(), true},
          {run.eval_games(), false}};
}

// The layout on disk (run_dir.h), which runs already on disk depend on.
TEST(RunDir, NamesEveryPathOfTheLayout) {
  const RunDir run("runs/a");
  EXPECT_EQ(run.root(), "runs/a");
  EXPECT_EQ(run.config_file(), "runs/a/run-config.json");
  EXPECT_EQ(run.metrics(), "runs/a/metrics.jsonl");
  EXPECT_EQ(run.checkpoints(), "runs/a/checkpoints");
  EXPECT_EQ(run.latest_checkpoint(), "runs/a/checkpoints/latest.ckpt");
  EXPECT_EQ(run.checkpoint(1200), "runs/a/checkpoints/step-00001200.ckpt");
  EXPECT_EQ(run.best_checkpoint(), "runs/a/checkpoints/best.ckpt");
  EXPECT_EQ(run.replay(), "runs/a/replay");
  EXPECT_EQ(run.replay_shard(12), "runs/a/replay/shard-000012.bin");
  EXPECT_EQ(run.journal(), "runs/a/replay/journal.bin");
  EXPECT_EQ(run.incoming(), "runs/a/replay/incoming");
  EXPECT_EQ(run.incoming_shard("host-1-0a1b2c3d", 7),
            "runs/a/replay/incoming/host-1-0a1b2c3d-00000007.shard");
  EXPECT_EQ(run.rejected(), "runs/a/replay/rejected");
  EXPECT_EQ(run.models(), "runs/a/models");
  EXPECT_EQ(run.model_manifest(), "runs/a/models/latest.json");
  EXPECT_EQ(run.model(30), "runs/a/models/model-00000030.ckpt");
  EXPECT_EQ(run.actors(), "runs/a/actors");
  EXPECT_EQ(run.actor_report("host-1-0a1b2c3d"), "runs/a/actors/host-1-0a1b2c3d.json");
  EXPECT_EQ(run.eval(), "runs/a/eval");
  EXPECT_EQ(run.eval_games(), "runs/a/eval/games.ggf");
  EXPECT_EQ(StepName(1200), "step-00001200");
  // Numbers wider than the padding keep all their digits.
  EXPECT_EQ(run.checkpoint(123456789), "runs/a/checkpoints/step-123456789.ckpt");
  EXPECT_EQ(run.replay_shard(1234567), "runs/a/replay/shard-1234567.bin");
}

// Every path is below the root, whatever the root looks like.
TEST(RunDir, EveryPathIsBelowTheRoot) {
  for (const std::string root : {"runs/a", "/tmp/x/", "../up", "."}) {
    const std::string prefix = root.back() == '/' ? root : root + "/";
    for (const NamedPath& named : EveryPath(RunDir(root))) {
      ASSERT_EQ(named.path.rfind(prefix, 0), 0u) << named.path;
      const fs::path below(named.path.substr(prefix.size()));
      EXPECT_FALSE(below.empty()) << named.path;
      for (const fs::path& part : below) EXPECT_NE(part, "..") << named.path;
    }
  }
}

// The layout drawn at the top of run_dir.h names every path RunDir gives, so the drawing
// cannot drift from the code: each file is drawn, each folder begins a drawn path.
TEST(RunDir, TheDrawnLayoutNamesEveryPath) {
  std::ifstream in(std::string(OZ_SOURCE_DIR) + "/training/run_dir.h");
  ASSERT_TRUE(in) << "training/run_dir.h";
  std::string drawing;  // the header's comment
  for (std::string line; std::getline(in, line) && line.rfind("#include", 0) != 0;) {
    drawing += line + "\n";
  }
  for (const NamedPath& named : EveryPath(RunDir("DIR"))) {
    std::string drawn = named.path;  // numbers are drawn as NNNN
    for (char& c : drawn) {
      if (std::isdigit(static_cast<unsigned char>(c))) c = 'N';
    }
    if (named.folder) {
      EXPECT_THAT(drawing, testing::HasSubstr(" " + drawn + "/")) << named.path;
    } else {
      EXPECT_THAT(drawing, testing::AnyOf(testing::HasSubstr(" " + drawn + " "),
                                          testing::HasSubstr(" " + drawn + "\n")))
          << named.path;
    }
  }
}

TEST(RunDir, ReadsTheNamesInItsFolders) {
  EXPECT_EQ(RunDir::ReplayShardNumber("shard-000012.bin"), 12u);
  EXPECT_EQ(RunDir::ReplayShardNumber("shard-1234567.bin"), 1234567u);
  for (const char* other : {"shard-12.bin", "shard-000012.bin.tmp", "shard-00001a.bin",
                            "shard-.bin", "journal.bin", "xshard-000012.bin"}) {
    EXPECT_FALSE(RunDir::ReplayShardNumber(other).has_value()) << other;
  }
  EXPECT_TRUE(RunDir::IsCheckpoint("step-00000010.ckpt"));
  EXPECT_TRUE(RunDir::IsCheckpoint("latest.ckpt"));
  EXPECT_FALSE(RunDir::IsCheckpoint("latest.ckpt.tmp"));
  EXPECT_TRUE(RunDir::IsIncomingShard("host-1-0a1b2c3d-00000007.shard"));
  EXPECT_FALSE(RunDir::IsIncomingShard("host-1-0a1b2c3d-00000007.shard.tmp"));
  EXPECT_FALSE(RunDir::IsIncomingShard("notes.txt"));
  EXPECT_TRUE(RunDir::IsActorReport("host-1-0a1b2c3d.json"));
  EXPECT_FALSE(RunDir::IsActorReport("host-1-0a1b2c3d.json.tmp"));
  EXPECT_TRUE(core::IsTemporaryFile("latest.ckpt.tmp"));
  EXPECT_FALSE(core::IsTemporaryFile("latest.ckpt"));
}

// StepCheckpoints reads any step-N.ckpt of a folder (also unpadded ones), in step order;
// ModelFiles only the model files as PublishModel writes them.
TEST(RunDir, ListsItsNumberedFilesInOrder) {
  const RunDir run(
      (fs::temp_directory_path() / ("oz_rundir_" + std::to_string(::getpid()))).string());
  fs::remove_all(run.root());
  EXPECT_TRUE(StepCheckpoints(run.checkpoints()).empty());  // no folder yet
  EXPECT_TRUE(run.ModelFiles().empty());
  fs::create_directories(run.checkpoints());
  fs::create_directories(run.models());
  for (const char* name : {"step-00000200.ckpt", "step-5.ckpt", "step-00000010.ckpt.tmp",
                          "latest.ckpt", "step-x.ckpt"}) {
    std::ofstream(fs::path(run.checkpoints()) / name) << "x";
  }
  for (const char* name : {"model-00000030.ckpt", "model-30.ckpt", "latest.json"}) {
    std::ofstream(fs::path(run.models()) / name) << "x";
  }
  std::ofstream(run.model(4)) << "x";
  using Files = std::vector<std::pair<std::int64_t, std::string>>;
  EXPECT_EQ(StepCheckpoints(run.checkpoints()),
            (Files{{5, run.checkpoints() + "/step-5.ckpt"}, {200, run.checkpoint(200)}}));
  EXPECT_EQ(run.ModelFiles(), (Files{{4, run.model(4)}, {30, run.model(30)}}));
  fs::remove_all(run.root());
}

}  // namespace
}  // namespace othello::training
