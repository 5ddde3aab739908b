#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "core/symmetry.h"
#include "training/replay_buffer.h"

namespace othello::training {
namespace {

std::string TempDir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("oz_replay_" + std::to_string(::getpid()) + "_" + name);
  std::filesystem::remove_all(dir);
  return dir.string();
}

std::vector<Sample> Game(int length, int tag) {
  std::vector<Sample> game(length);
  for (int i = 0; i < length; ++i) {
    game[i].SetPosition(core::Position::Standard(8));
    game[i].exact_score = static_cast<std::int8_t>(tag);
    game[i].policy[19] = 65535;  // d3
    game[i].ownership[0] = 1;    // a1
  }
  return game;
}

TEST(ReplayBuffer, FixedWindowKeepsTheNewestPositions) {
  WindowConfig window;
  window.growing = false;
  window.max = 100;
  window.shard_positions = 30;
  ReplayBuffer buffer(TempDir("fixed"), window);
  for (int g = 0; g < 10; ++g) buffer.Add(Game(20, g));
  EXPECT_EQ(buffer.size(), 100u);
  EXPECT_EQ(buffer.seen(), 200u);
  EXPECT_EQ(buffer.games(), 10u);
  core::Rng rng(1);
  for (const Sample& s : buffer.Draw(200, rng, false)) EXPECT_GE(s.exact_score, 5);
}

TEST(ReplayBuffer, GrowingWindowGrowsWithThePositionsSeen) {
  WindowConfig window;
  window.min = 100;
  window.max = 1000;
  ReplayBuffer buffer(TempDir("growing"), window);
  EXPECT_EQ(buffer.WindowSize(), 100u);
  for (int g = 0; g < 100; ++g) buffer.Add(Game(20, g));
  EXPECT_GT(buffer.WindowSize(), 150u);
  EXPECT_LT(buffer.WindowSize(), 1000u);
  EXPECT_EQ(buffer.size(), buffer.WindowSize());
}

TEST(ReplayBuffer, ResumesFromItsShardsAndDropsOldOnes) {
  const std::string dir = TempDir("resume");
  WindowConfig window;
  window.growing = false;
  window.max = 100;
  window.shard_positions = 25;
  {
    ReplayBuffer buffer(dir, window);
    for (int g = 0; g < 12; ++g) buffer.Add(Game(10, g));
    buffer.Flush();
  }
  std::size_t shards = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) shards += e.path().extension() == ".bin";
  EXPECT_LE(shards, 5u);  // 120 positions written, older shards outside the window deleted
  ReplayBuffer again(dir, window);
  EXPECT_EQ(again.size(), 100u);
  EXPECT_EQ(again.seen(), 120u);
  EXPECT_EQ(again.games(), 12u);
}

TEST(ReplayBuffer, TheJournalKeepsFinishedGamesAcrossAKill) {
  const std::string dir = TempDir("journal");
  WindowConfig window;
  window.shard_positions = 1000;  // no shard gets written
  {
    ReplayBuffer buffer(dir, window);
    for (int g = 0; g < 3; ++g) buffer.Add(Game(10, g));
  }  // no Flush: as if killed
  {
    ReplayBuffer again(dir, window);
    EXPECT_EQ(again.size(), 30u);
    EXPECT_EQ(again.games(), 3u);
    again.Add(Game(10, 3));
  }
  // A kill in the middle of a journal write: the torn game is dropped, the rest kept.
  const auto journal = std::filesystem::path(dir) / "journal.bin";
  std::filesystem::resize_file(journal, std::filesystem::file_size(journal) - 7);
  ReplayBuffer torn(dir, window);
  EXPECT_EQ(torn.size(), 30u);
  // Games that reached a shard are not read twice from the journal.
  torn.Flush();
  ReplayBuffer flushed(dir, window);
  EXPECT_EQ(flushed.size(), 30u);
  EXPECT_EQ(flushed.seen(), 30u);
}

TEST(ReplayBuffer, DamagedShardsAreReported) {
  const std::string dir = TempDir("damaged");
  WindowConfig window;
  window.shard_positions = 10;
  {
    ReplayBuffer buffer(dir, window);
    buffer.Add(Game(10, 1));
  }
  const auto shard = std::filesystem::path(dir) / "shard-000000.bin";
  std::string bytes;
  {
    std::ifstream in(shard, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  bytes[bytes.size() - 5] ^= 1;
  std::ofstream(shard, std::ios::binary | std::ios::trunc) << bytes;
  try {
    ReplayBuffer broken(dir, window);
    FAIL() << "a corrupted shard was read";
  } catch (const core::InputError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("shard-000000.bin: corrupted: checksum mismatch"));
  }
  std::ofstream(shard, std::ios::binary | std::ios::trunc) << bytes.substr(0, 100);
  EXPECT_THROW(ReplayBuffer(dir, window), core::InputError);
}

TEST(ReplayBuffer, SymmetryAugmentationMovesTargetsWithTheDiscs) {
  Sample s = Game(1, 0)[0];
  for (int sym = 0; sym < 8; ++sym) {
    Sample t = s;
    TransformSample(t, sym);
    const int d3 = core::TransformSquare(19, 8, sym), a1 = core::TransformSquare(0, 8, sym);
    EXPECT_EQ(t.policy[d3], 65535);
    EXPECT_EQ(t.ownership[a1], 1);
    EXPECT_EQ(t.ToPosition().LegalMoves() & core::Bit(d3), core::Bit(d3));
  }
}

}  // namespace
}  // namespace othello::training
