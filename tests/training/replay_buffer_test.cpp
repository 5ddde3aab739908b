#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <optional>
#include <fstream>

#include "core/checksum.h"
#include "core/error.h"
#include "core/rng.h"
#include "core/symmetry.h"
#include "training/replay_buffer.h"
#include "training/replay_format.h"
#include "training/run_dir.h"

namespace othello::training {
namespace {

// A run directory under the temporary directory, with nothing there yet: the buffer keeps
// its files in its replay/.
RunDir TempRun(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("oz_replay_" + std::to_string(::getpid()) + "_" + name);
  std::filesystem::remove_all(dir);
  return RunDir(dir.string());
}

std::vector<Sample> Game(int length, int tag) {
  std::vector<Sample> game(length);
  for (int i = 0; i < length; ++i) {
    game[i].SetPosition(core::Position::Standard(8));
    game[i].exact_score = static_cast<std::int8_t>(tag);
    game[i].policy[19] = 65535;  // d3
    game[i].ownership[0] = 1;    // a1
    game[i].wdl[0] = 65535;
  }
  return game;
}

TEST(ReplayBuffer, FixedWindowKeepsTheNewestPositions) {
  WindowConfig window;
  window.kind = ReplayWindow::kFixed;
  window.max = 100;
  window.shard_positions = 30;
  ReplayBuffer buffer(TempRun("fixed"), window);
  for (int g = 0; g < 10; ++g) buffer.Add(Game(20, g));
  EXPECT_EQ(buffer.size(), 100u);
  EXPECT_EQ(buffer.seen(), 200u);
  EXPECT_EQ(buffer.games(), 10u);
  core::Rng rng(1);
  for (const Sample& s : buffer.Draw(200, rng, false)) EXPECT_GE(s.exact_score, 5);
}

// A record of the position after f5 (black's first move), turned by `symmetry`, with
// the value target (win, draw, loss) and all of its policy on `move` (in the record's
// own orientation, before the turn).
Sample AfterF5(int symmetry, std::uint16_t win, std::uint16_t loss, core::Square move,
               bool policy = true) {
  Sample s;
  s.SetPosition(core::Position::Standard(8).Play(37));  // f5
  if (policy) s.policy[move] = 65535;
  s.has_policy = policy ? 1 : 0;
  s.wdl[0] = win;
  s.wdl[2] = loss;
  s.wdl[1] = static_cast<std::uint16_t>(65535 - win - loss);
  TransformSample(s, symmetry);
  return s;
}

TEST(ReplayBuffer, DuplicatePositionsShareTheirMeanTargets) {
  WindowConfig window;
  window.kind = ReplayWindow::kFixed;
  window.max = 3;
  window.average_duplicates_plies = 4;
  ReplayBuffer buffer(TempRun("duplicates"), window);
  // The same position twice, the second turned by a symmetry: a win playing d6 (43), and
  // a loss playing f4 (29) before the turn.
  buffer.Add({AfterF5(0, 65535, 0, 43)});
  buffer.Add({AfterF5(5, 0, 65535, 29)});
  // A record without a policy target gets its duplicates' mean one.
  buffer.Add({AfterF5(2, 65535, 0, 0, /*policy=*/false)});
  core::Rng rng(3);
  int checked = 0;
  for (const Sample& s : buffer.Draw(60, rng, /*augment=*/false)) {
    EXPECT_FALSE(CheckSample(s, 8).has_value()) << *CheckSample(s, 8);
    // Value: the mean of win, loss and win.
    EXPECT_EQ(s.wdl[0], 43690);
    EXPECT_EQ(s.wdl[2], 21845);
    EXPECT_EQ(s.has_policy, 1);
    // Policy: half on d6 and half on f4, each where it lies in this record's orientation.
    int symmetry = -1;
    for (int sym = 0; sym < 8; ++sym) {
      Sample turned = AfterF5(sym, 0, 0, 0);
      if (turned.player[0] == s.player[0] && turned.opponent[0] == s.opponent[0]) symmetry = sym;
    }
    ASSERT_GE(symmetry, 0);
    // (The position after f5 has no symmetry of its own: one turn matches.)
    const int d6 = core::TransformSquare(43, 8, symmetry), f4 = core::TransformSquare(29, 8, symmetry);
    EXPECT_NEAR(s.policy[d6], 32767.5, 0.5);
    EXPECT_NEAR(s.policy[f4], 32767.5, 0.5);
    ++checked;
  }
  EXPECT_EQ(checked, 60);
  // The first record leaves the window: the means are the other two's.
  buffer.Add({AfterF5(0, 65535, 0, 43)});
  buffer.Add({AfterF5(0, 0, 65535, 43)});
  for (const Sample& s : buffer.Draw(20, rng, false)) {
    EXPECT_EQ(s.wdl[0], 43690);  // win (the turned one), win, loss
    EXPECT_EQ(s.wdl[2], 21845);
  }
}

TEST(ReplayBuffer, DuplicatesPastThePliesOrExactKeepTheirOwnTargets) {
  WindowConfig window;
  window.kind = ReplayWindow::kFixed;
  window.max = 10;
  window.average_duplicates_plies = 0;  // off
  ReplayBuffer off(TempRun("duplicates_off"), window);
  off.Add({AfterF5(0, 65535, 0, 43), AfterF5(0, 0, 65535, 43)});
  core::Rng rng(5);
  int wins = 0, losses = 0;
  for (const Sample& s : off.Draw(40, rng, false)) {
    wins += s.wdl[0] == 65535;
    losses += s.wdl[2] == 65535;
  }
  EXPECT_EQ(wins + losses, 40);
  EXPECT_GT(wins, 0);
  EXPECT_GT(losses, 0);
  // Within the plies, but exact: not averaged, and not counted in the others' mean.
  window.average_duplicates_plies = 1;
  ReplayBuffer exact(TempRun("duplicates_exact"), window);
  Sample solved = AfterF5(0, 0, 65535, 43);
  solved.has_exact = 1;
  solved.exact_score = -2;
  exact.Add({AfterF5(0, 65535, 0, 43), solved, AfterF5(0, 65535, 0, 43)});
  for (const Sample& s : exact.Draw(40, rng, false)) {
    if (s.has_exact) {
      EXPECT_EQ(s.wdl[2], 65535);
    } else {
      EXPECT_EQ(s.wdl[0], 65535);
    }
  }
  // Past the plies: a two-ply position is not counted by a table of one ply.
  EXPECT_FALSE(DuplicateTargets(0).enabled());
  DuplicateTargets one_ply(1);
  Sample later;
  later.SetPosition(core::Position::Standard(8).Play(37).Play(43));  // f5 d6
  later.wdl[0] = 65535;
  one_ply.Add(later);
  one_ply.Add(AfterF5(0, 65535, 0, 43));
  EXPECT_EQ(one_ply.records(), 1u);
  EXPECT_EQ(one_ply.positions(), 1u);
}

TEST(ReplayBuffer, GrowingWindowGrowsWithThePositionsSeen) {
  WindowConfig window;
  window.min = 100;
  window.max = 1000;
  ReplayBuffer buffer(TempRun("growing"), window);
  EXPECT_EQ(buffer.WindowSize(), 100u);
  for (int g = 0; g < 100; ++g) buffer.Add(Game(20, g));
  EXPECT_GT(buffer.WindowSize(), 150u);
  EXPECT_LT(buffer.WindowSize(), 1000u);
  EXPECT_EQ(buffer.size(), buffer.WindowSize());
}

TEST(ReplayBuffer, ResumesFromItsShardsAndDropsOldOnes) {
  const RunDir run = TempRun("resume");
  WindowConfig window;
  window.kind = ReplayWindow::kFixed;
  window.max = 100;
  window.shard_positions = 25;
  {
    ReplayBuffer buffer(run, window);
    for (int g = 0; g < 12; ++g) buffer.Add(Game(10, g));
    buffer.Flush();
  }
  std::size_t shards = 0;
  for (const auto& e : std::filesystem::directory_iterator(run.replay())) shards += e.path().extension() == ".bin";
  EXPECT_LE(shards, 5u);  // 120 positions written, older shards outside the window deleted
  ReplayBuffer again(run, window);
  EXPECT_EQ(again.size(), 100u);
  EXPECT_EQ(again.seen(), 120u);
  EXPECT_EQ(again.games(), 12u);
}

TEST(ReplayBuffer, TheJournalKeepsFinishedGamesAcrossAKill) {
  const RunDir run = TempRun("journal");
  WindowConfig window;
  window.shard_positions = 1000;  // no shard gets written
  {
    ReplayBuffer buffer(run, window);
    for (int g = 0; g < 3; ++g) buffer.Add(Game(10, g));
  }  // no Flush: as if killed
  {
    ReplayBuffer again(run, window);
    EXPECT_EQ(again.size(), 30u);
    EXPECT_EQ(again.games(), 3u);
    again.Add(Game(10, 3));
  }
  // A kill in the middle of a journal write: the torn game is dropped, the rest kept.
  const auto journal = run.journal();
  std::filesystem::resize_file(journal, std::filesystem::file_size(journal) - 7);
  ReplayBuffer torn(run, window);
  EXPECT_EQ(torn.size(), 30u);
  // Games that reached a shard are not read twice from the journal.
  torn.Flush();
  ReplayBuffer flushed(run, window);
  EXPECT_EQ(flushed.size(), 30u);
  EXPECT_EQ(flushed.seen(), 30u);
}

TEST(ReplayBuffer, AJournalTornByAKillKeepsTheGamesAppendedAfterTheResume) {
  const RunDir run = TempRun("torn_then_more");
  WindowConfig window;
  window.shard_positions = 1000;
  {
    ReplayBuffer buffer(run, window);
    for (int g = 0; g < 2; ++g) buffer.Add(Game(10, g));
  }
  const auto journal = run.journal();
  std::filesystem::resize_file(journal, std::filesystem::file_size(journal) - 3);  // a kill
  {
    ReplayBuffer resumed(run, window);  // one game survives; the torn bytes are cut
    EXPECT_EQ(resumed.games(), 1u);
    resumed.Add(Game(10, 7));
    resumed.Add(Game(10, 8));
  }
  ReplayBuffer again(run, window);  // the games after the resume are not lost behind the tear
  EXPECT_EQ(again.games(), 3u);
  EXPECT_EQ(again.size(), 30u);
}

// The bytes of `file`, and `file` written with `bytes`.
std::string ReadAll(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}
void WriteAll(const std::filesystem::path& file, const std::string& bytes) {
  std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
}

TEST(ReplayBuffer, RecordsThatAreNotPositionsOfTheRunAreRefused) {
  std::vector<Sample> game = Game(3, 1);
  const std::string shard = SerializeShard(game.data(), game.size(), 1, 3);
  EXPECT_EQ(ParseShard(shard, "ok", 8).samples.size(), 3u);
  EXPECT_THAT([&] { ParseShard(shard, "six", 6); },
              ::testing::ThrowsMessage<core::InputError>(
                  ::testing::HasSubstr("six: record 0: 8x8 position in a 6x6 run")));
  // Crafted records with right checksums: a board size the code has no room for, discs
  // on one square, targets off the board.
  const auto refused = [](Sample s, const std::string& why) {
    const std::string bytes = SerializeShard(&s, 1, 1, 1);
    EXPECT_THAT([&] { ParseShard(bytes, "crafted", 0); },
                ::testing::ThrowsMessage<core::InputError>(::testing::HasSubstr(why)));
  };
  Sample s = game[0];
  s.size = 200;
  refused(s, "board size 200 is not supported");
  s = game[0];
  s.opponent[0] |= s.player[0];
  refused(s, "discs overlap");
  s = game[0];
  s.policy[80] = 1;
  refused(s, "policy target off the board");
  s = game[0];
  s.ownership[5] = 9;
  refused(s, "ownership target out of range");
  s = game[0];
  s.wdl[1] = 1;
  refused(s, "does not sum to 65535");
  s = game[0];
  s.reply_policy[19] = 65535;
  refused(s, "reply policy target without its flag");
  s.has_reply = 1;
  s.reply_policy[70] = 1;
  refused(s, "reply policy target off the board");
  s = game[0];
  s.short_term[1] = 100;
  refused(s, "short-term value target without its flag");
  s.has_short_term = 1;
  s.short_term[0] = -32768;
  refused(s, "short-term value target out of range");
  s = game[0];
  s.has_reply = 2;
  refused(s, "flags other than 0 and 1");
  // Header sizes that do not match the bytes.
  std::string lying = shard;
  const std::uint64_t count = ~0ull / 2;
  std::memcpy(&lying[16], &count, 8);
  EXPECT_THROW(ParseShard(lying, "lying", 8), core::InputError);
}

// A version 1 record (the packed layout with a search value) from `s`.
std::string V1Record(const Sample& s) {
  std::string r;
  r.append(reinterpret_cast<const char*>(s.player), 16);
  r.append(reinterpret_cast<const char*>(s.opponent), 16);
  for (int v : {int(s.size), int(s.has_policy), int(s.has_exact), int(s.exact_score),
                int(s.final_margin)}) {
    r += static_cast<char>(v);
  }
  r.append(reinterpret_cast<const char*>(s.wdl), 6);
  r.append(2, '\x7f');  // the search value, dropped
  r.append(reinterpret_cast<const char*>(s.policy.data()), 202);
  r.append(reinterpret_cast<const char*>(s.ownership.data()), 100);
  return r;
}

// Opens `run`, which holds a shard and a journal of Game(4, 3) each in an older format:
// both read back with their targets (and no auxiliary ones), and a game is appended to
// the rewritten journal.
void ExpectOldGamesConverted(const RunDir& run, const WindowConfig& window) {
  ReplayBuffer buffer(run, window);
  EXPECT_EQ(buffer.size(), 8u);
  EXPECT_EQ(buffer.games(), 2u);
  core::Rng rng(1);
  const Sample drawn = buffer.Draw(1, rng, false)[0];
  EXPECT_EQ(drawn.exact_score, 3);
  EXPECT_EQ(drawn.policy[19], 65535);
  EXPECT_EQ(drawn.ownership[0], 1);
  EXPECT_EQ(drawn.wdl[0], 65535);
  EXPECT_EQ(drawn.has_reply, 0);
  EXPECT_EQ(drawn.has_short_term, 0);
  buffer.Add(Game(4, 4));
}

TEST(ReplayBuffer, VersionOneShardsAndJournalsAreConverted) {
  const RunDir run = TempRun("version-1");
  std::filesystem::create_directories(run.replay());
  const std::vector<Sample> game = Game(4, 3);
  std::string records;
  for (const Sample& s : game) records += V1Record(s);
  ASSERT_EQ(records.size(), 4u * 347);
  std::string shard("OZRPLY01", 8);
  const auto put = [](std::string& out, auto v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); };
  put(shard, std::uint32_t{1});
  put(shard, std::uint32_t{347});
  put(shard, std::uint64_t{4});
  put(shard, std::uint64_t{1});  // games
  put(shard, std::uint64_t{4});  // positions ever added
  put(shard, core::Fnv1a64(records.data(), records.size()));
  WriteAll(run.replay_shard(0), shard + records);
  std::string journal;  // version 1: no header; one game after the shard
  put(journal, std::uint64_t{4});
  put(journal, std::uint32_t{4});
  put(journal, core::Fnv1a64(records.data(), records.size()));
  WriteAll(run.journal(), journal + records);
  WindowConfig window;
  ExpectOldGamesConverted(run, window);
  EXPECT_EQ(ReadAll(run.journal()).substr(0, 8), "OZJRNL03");
  ReplayBuffer again(run, window);
  EXPECT_EQ(again.size(), 12u);
  EXPECT_EQ(again.games(), 3u);
}

// When the journal holds the whole window (a big batch of actors' games, or shards
// larger than the window), the newest shard still keeps the counts for a resume.
TEST(ReplayBuffer, TheCountsSurviveAWindowWhollyInTheJournal) {
  const RunDir run = TempRun("counts");
  WindowConfig window;
  window.kind = ReplayWindow::kFixed;
  window.max = 100;
  window.shard_positions = 1000;
  {
    ReplayBuffer buffer(run, window);
    for (int g = 0; g < 5; ++g) buffer.Add(Game(10, g));
    buffer.Flush();  // a shard: 5 games, 50 positions
    for (int g = 0; g < 20; ++g) buffer.Add(Game(10, g));  // 200 positions, journal only
  }
  ReplayBuffer again(run, window);
  EXPECT_EQ(again.games(), 25u);
  EXPECT_EQ(again.seen(), 250u);
  EXPECT_EQ(again.size(), 100u);
}

// Records as they were before the auxiliary targets: the first 352 bytes of today's.
std::string V2Records(const std::vector<Sample>& game) {
  std::string records;
  for (const Sample& s : game) records.append(reinterpret_cast<const char*>(&s), 352);
  return records;
}

// A version 2 journal: "OZJRNL02" | u32 record size | entries u64 | u32 | u32 CRC | records.
TEST(ReplayBuffer, VersionTwoJournalsAreConverted) {
  const RunDir run = TempRun("journal_v2");
  std::filesystem::create_directories(run.replay());
  const auto put = [](std::string& out, auto v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); };
  std::string journal("OZJRNL02", 8);
  put(journal, std::uint32_t{352});
  std::uint64_t seen = 0;
  for (int tag : {5, 6}) {
    const std::vector<Sample> game = Game(3, tag);
    std::string entry;
    put(entry, seen);
    put(entry, std::uint32_t{3});
    const std::string records = V2Records(game);
    put(entry, core::Crc32(records, core::Crc32(entry)));
    journal += entry + records;
    seen += 3;
  }
  WriteAll(run.journal(), journal);
  WindowConfig window;
  {
    ReplayBuffer buffer(run, window);
    EXPECT_EQ(buffer.games(), 2u);
    EXPECT_EQ(buffer.seen(), 6u);
    buffer.Add(Game(2, 7));
  }
  EXPECT_EQ(ReadAll(run.journal()).substr(0, 8), "OZJRNL03");
  ReplayBuffer again(run, window);
  EXPECT_EQ(again.games(), 3u);
  EXPECT_EQ(again.seen(), 8u);
}

// Shards of version 2 and version 3 journals written before the records grew hold
// 352-byte records: they are read with no auxiliary targets, and the journal is
// rewritten with today's records before anything is appended.
TEST(ReplayBuffer, RecordsWithoutAuxiliaryTargetsAreConverted) {
  const RunDir run = TempRun("records_352");
  std::filesystem::create_directories(run.replay());
  const auto put = [](std::string& out, auto v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); };
  const std::string records = V2Records(Game(4, 3));
  std::string shard("OZRPLY01", 8);
  put(shard, std::uint32_t{2});
  put(shard, std::uint32_t{352});
  put(shard, std::uint64_t{4});
  put(shard, std::uint64_t{1});  // games
  put(shard, std::uint64_t{4});  // positions ever added
  put(shard, static_cast<std::uint64_t>(core::Crc32(records, core::Crc32(shard))));
  WriteAll(run.replay_shard(0), shard + records);
  std::string journal("OZJRNL03", 8);
  put(journal, std::uint32_t{352});
  std::string entry;
  put(entry, std::uint64_t{4});
  put(entry, std::uint32_t{4});
  put(entry, std::uint32_t{0});  // no source
  put(entry, core::Crc32(records, core::Crc32(std::string_view(), core::Crc32(entry))));
  WriteAll(run.journal(), journal + entry + records);
  WindowConfig window;
  ExpectOldGamesConverted(run, window);
  const std::string rewritten = ReadAll(run.journal());
  std::uint32_t record_bytes = 0;
  std::memcpy(&record_bytes, rewritten.data() + 8, 4);
  EXPECT_EQ(record_bytes, sizeof(Sample));
  ReplayBuffer again(run, window);
  EXPECT_EQ(again.size(), 12u);
  EXPECT_EQ(again.games(), 3u);
  // A record size neither today's nor the old one is refused with the file's name.
  std::string odd("OZJRNL03", 8);
  put(odd, std::uint32_t{400});
  WriteAll(run.journal(), odd);
  try {
    ReplayBuffer broken(run, window);
    ADD_FAILURE() << "a journal of 400-byte records was read";
  } catch (const core::InputError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("journal.bin: 400-byte records"));
  }
}

TEST(ReplayJournal, EntriesKeepTheirSources) {
  std::string bytes = JournalHeader();
  bytes += JournalEntry(Game(2, 1), 0, "a-1-00000001-00000000.shard");
  bytes += JournalEntry(Game(3, 2), 2);
  const Journal journal = ParseJournal(bytes, "j", 8);
  ASSERT_EQ(journal.games.size(), 2u);
  EXPECT_EQ(journal.games[0].source, "a-1-00000001-00000000.shard");
  EXPECT_EQ(journal.games[1].source, "");
  EXPECT_EQ(journal.games[1].samples.size(), 3u);
  EXPECT_EQ(journal.valid_bytes, bytes.size());
  // A flipped byte in a source fails the entry's checksum: the journal ends before it.
  std::string damaged = bytes;
  damaged[12 + 20] ^= 1;
  EXPECT_TRUE(ParseJournal(damaged, "j", 8).games.empty());
}

// Every incoming game is taken once, whatever the order of kills: a game whose source
// the journal names is skipped; commit runs after the journal append, before a shard.
TEST(ReplayBuffer, IngestTakesEachSourceOnceAcrossRestarts) {
  const RunDir run = TempRun("ingest");
  WindowConfig window;
  window.shard_positions = 1000;
  std::vector<SourcedGame> games = {{"x-1.shard", Game(4, 1)}, {"x-2.shard", Game(5, 2)}};
  int commits = 0;
  {
    ReplayBuffer buffer(run, window);
    EXPECT_EQ(buffer.Ingest(games, [&] { ++commits; }), 2u);
    EXPECT_TRUE(buffer.HasSource("x-1.shard"));
  }
  // The learner was killed before it removed the files: they come again, and again once.
  {
    ReplayBuffer buffer(run, window);
    EXPECT_EQ(buffer.games(), 2u);
    games.push_back({"x-3.shard", Game(6, 3)});
    EXPECT_EQ(buffer.Ingest(games, [&] { ++commits; }), 1u);
    EXPECT_EQ(buffer.games(), 3u);
    EXPECT_EQ(buffer.seen(), 15u);
  }
  EXPECT_EQ(commits, 2);
  // A failing commit (a file that cannot be removed) leaves the games journaled once.
  ReplayBuffer buffer(run, window);
  EXPECT_THROW(buffer.Ingest({{"x-4.shard", Game(2, 4)}},
                             [] { throw core::InputError("cannot remove x-4.shard"); }),
               core::InputError);
  ReplayBuffer again(run, window);
  EXPECT_EQ(again.games(), 4u);
  EXPECT_EQ(again.Ingest({{"x-4.shard", Game(2, 4)}}, nullptr), 0u);
}

TEST(ReplayBuffer, AShardIsWrittenOnlyAfterTheCommit) {
  const RunDir run = TempRun("ingest_shard");
  WindowConfig window;
  window.shard_positions = 5;
  ReplayBuffer buffer(run, window);
  bool shard_before_commit = true;
  buffer.Ingest({{"y-1.shard", Game(6, 1)}}, [&] {
    shard_before_commit = std::filesystem::exists(run.replay_shard(0));
  });
  EXPECT_FALSE(shard_before_commit);
  EXPECT_TRUE(std::filesystem::exists(run.replay_shard(0)));
  EXPECT_FALSE(buffer.HasSource("y-1.shard"));  // in a shard now; its file is gone
}

// A follower (another data-parallel rank) sees the owner's positions, from shards and
// from the journal, each once, and writes nothing.
TEST(ReplayBuffer, AFollowerReadsWhatTheOwnerWrites) {
  const RunDir run = TempRun("follower");
  WindowConfig window;
  window.kind = ReplayWindow::kFixed;
  window.max = 1000;
  window.shard_positions = 10;
  ReplayBuffer owner(run, window);
  ReplayBuffer follower(run, window, 8, ReplayBuffer::Access::kFollower);
  EXPECT_EQ(follower.size(), 0u);
  owner.Add(Game(4, 1));  // journal only
  follower.Refresh();
  EXPECT_EQ(follower.seen(), 4u);
  owner.Add(Game(7, 2));  // 11 positions: a shard, the journal emptied
  owner.Add(Game(3, 3));  // journal
  follower.Refresh();
  EXPECT_EQ(follower.seen(), 14u);
  EXPECT_EQ(follower.size(), 14u);
  EXPECT_EQ(follower.games(), 3u);
  core::Rng rng(1);
  std::vector<int> tags(4, 0);
  for (const Sample& s : follower.Draw(2000, rng, false)) ++tags.at(s.exact_score);
  EXPECT_GT(tags[1], 0);
  EXPECT_GT(tags[2], 0);
  EXPECT_GT(tags[3], 0);
  follower.Refresh();  // nothing new: nothing taken twice
  EXPECT_EQ(follower.size(), 14u);
  EXPECT_THROW(follower.Add(Game(1, 1)), std::logic_error);
  ReplayBuffer late(run, window, 8, ReplayBuffer::Access::kFollower);
  EXPECT_EQ(late.seen(), 14u);
  EXPECT_EQ(late.size(), 14u);
}

TEST(ReplayBuffer, DamagedShardsAreReported) {
  const RunDir run = TempRun("damaged");
  WindowConfig window;
  window.shard_positions = 10;
  {
    ReplayBuffer buffer(run, window);
    buffer.Add(Game(10, 1));
  }
  const auto shard = run.replay_shard(0);
  std::string bytes;
  {
    std::ifstream in(shard, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  bytes[bytes.size() - 5] ^= 1;
  std::ofstream(shard, std::ios::binary | std::ios::trunc) << bytes;
  try {
    ReplayBuffer broken(run, window);
    FAIL() << "a corrupted shard was read";
  } catch (const core::InputError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("shard-000000.bin: corrupted: checksum mismatch"));
  }
  std::ofstream(shard, std::ios::binary | std::ios::trunc) << bytes.substr(0, 100);
  EXPECT_THROW(ReplayBuffer(run, window), core::InputError);
}

TEST(ReplayBuffer, SymmetryAugmentationMovesTargetsWithTheDiscs) {
  Sample s = Game(1, 0)[0];
  s.has_reply = 1;
  s.reply_policy[18] = 65535;  // c3
  ASSERT_EQ(CheckSample(s, 8), std::nullopt);
  for (int sym = 0; sym < 8; ++sym) {
    Sample t = s;
    TransformSample(t, sym);
    const int d3 = core::TransformSquare(19, 8, sym), a1 = core::TransformSquare(0, 8, sym);
    EXPECT_EQ(t.policy[d3], 65535);
    EXPECT_EQ(t.reply_policy[core::TransformSquare(18, 8, sym)], 65535);
    EXPECT_EQ(t.ownership[a1], 1);
    EXPECT_EQ(t.ToPosition().LegalMoves() & core::Bit(d3), core::Bit(d3));
  }
}

}  // namespace
}  // namespace othello::training
