// The arena (schedule, colours, records, results), player specs and Elo fitting.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "arena/arena.h"
#include "arena/elo.h"
#include "arena/player_spec.h"
#include "core/hash.h"
#include "core/notation.h"
#include "core/rng.h"
#include "mcts/search_options.h"
#include "nn/model_file.h"
#include "nn/model_loader.h"
#include "tests/markdown_table.h"

namespace othello::arena {
namespace {

namespace fs = std::filesystem;

fs::path TempDir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("oz_arena_test_" + name);
  fs::remove_all(dir);
  return dir;
}

// An exported model of a tiny network with small random weights, written without
// LibTorch (what `othello-zero export` writes, as far as the arena can tell).
void WriteTinyModel(const std::string& path, const core::Rules& rules) {
  nn::NetConfig tiny;
  tiny.blocks = 1;
  tiny.channels = 8;
  tiny.head_channels = 4;
  tiny.value_hidden = 8;
  nn::WriteModelFile(path, nn::RandomModelFile(tiny, rules, /*seed=*/12345));
}

TEST(Arena, EveryOpeningIsPlayedTwiceWithColoursSwapped) {
  const fs::path dir = TempDir("swap");
  std::vector<ArenaPlayer> players = {MakeArenaPlayer("random"), MakeArenaPlayer("greedy"),
                                      MakeArenaPlayer("ab:1")};
  ArenaOptions options;
  options.games = 6;
  options.openings = "random:6";
  options.parallel = 3;
  options.out_dir = dir.string();
  std::ostringstream log;
  const ArenaSummary summary = RunArena(players, options, log);
  ASSERT_EQ(summary.pairs.size(), 3u);
  for (const PairResult& p : summary.pairs) EXPECT_EQ(p.games(), 6);
  ASSERT_EQ(summary.games.size(), 18u);
  // Per pair, each opening (the first 6 plies) appears once with each colour order.
  std::map<std::tuple<std::string, std::string, std::string>, int> seen;
  for (const auto& game : summary.games) {
    const core::Game g = game.record.ToGame();
    const std::vector<core::Square> opening(g.moves().begin(), g.moves().begin() + 6);
    const std::string key = core::FormatTranscript(opening, 8);
    seen[{game.record.black_name, game.record.white_name, key}]++;
  }
  for (const auto& [k, count] : seen) {
    const auto& [black, white, opening] = k;
    EXPECT_EQ(count, 1) << black << " " << white << " " << opening;
    EXPECT_EQ(seen.count({white, black, opening}), 1u) << "no colour-swapped twin of " << opening;
  }
  // Three different openings per pair.
  std::set<std::string> openings;
  for (const auto& [k, count] : seen) openings.insert(std::get<2>(k));
  EXPECT_EQ(openings.size(), 3u);
  // Every game is in games.ggf, and the Elo fit reads them back.
  const auto records = ReadGgfGames({dir.string()});
  EXPECT_EQ(records.size(), 18u);
  const auto ratings = FitElo(ScoredGames(records));
  EXPECT_EQ(ratings.size(), 3u);
  EXPECT_EQ(ratings.back().name, "random");  // the anchor, and the weakest here
  EXPECT_EQ(ratings.back().elo, 0);
  EXPECT_NE(log.str().find("game 18/18"), std::string::npos);
  EXPECT_NE(FormatArenaTable(summary).find("alphabeta1"), std::string::npos);
  const std::string json = ArenaJson(summary, options);
  EXPECT_NE(json.find("\"games_per_pair\": 6"), std::string::npos) << json;
  fs::remove_all(dir);
}

// With a deadline the games go opening by opening across the pairs (a match cut short has
// played every pair alike), and none starts once it has passed.
TEST(Arena, ADeadlineStopsNewGamesAndInterleavesThePairs) {
  std::vector<ArenaPlayer> players = {MakeArenaPlayer("ab:1"), MakeArenaPlayer("random"),
                                      MakeArenaPlayer("greedy")};
  ArenaOptions options;
  options.games = 4;
  options.gauntlet = true;
  options.deadline_seconds = 1e9;  // never reached: every game, in the deadline's order
  std::ostringstream log;
  const ArenaSummary all = RunArena(players, options, log);
  ASSERT_EQ(all.games.size(), 8u);
  EXPECT_EQ(all.unplayed, 0);
  for (std::size_t g = 0; g < all.games.size(); ++g) {
    const core::GgfRecord& record = all.games[g].record;
    const std::string opponent = record.black_name == "alphabeta1" ? record.white_name
                                                                   : record.black_name;
    EXPECT_EQ(opponent, g % 2 == 0 ? "random" : "greedy") << "game " << g;
    EXPECT_EQ(record.black_name == "alphabeta1", (g / 2) % 2 == 0) << "game " << g;
  }
  options.deadline_seconds = 1e-9;  // passed before the first game is handed out
  const ArenaSummary none = RunArena(players, options, log);
  EXPECT_EQ(none.games.size(), 0u);
  EXPECT_EQ(none.unplayed, 8);
  for (const PairResult& p : none.pairs) EXPECT_EQ(p.games(), 0);
}

TEST(Arena, GauntletPlaysOnlyTheFirstPlayer) {
  std::vector<ArenaPlayer> players = {MakeArenaPlayer("ab:1"), MakeArenaPlayer("random"),
                                      MakeArenaPlayer("greedy")};
  ArenaOptions options;
  options.games = 3;  // rounded up to 4
  options.gauntlet = true;
  std::ostringstream log;
  const ArenaSummary summary = RunArena(players, options, log);
  ASSERT_EQ(summary.pairs.size(), 2u);
  for (const PairResult& p : summary.pairs) {
    EXPECT_EQ(p.a, 0);
    EXPECT_EQ(p.games(), 4);
  }
  EXPECT_EQ(summary.games.size(), 8u);
}

TEST(Arena, OpeningsFromAFile) {
  const fs::path dir = TempDir("file");
  fs::create_directories(dir);
  const fs::path file = dir / "openings.txt";
  std::ofstream(file) << "# two openings\nf5d6\n\nf5f6e6\n";
  auto openings = ArenaOpenings(file.string(), core::Position::Standard(8), 3, 1);
  ASSERT_EQ(openings.size(), 3u);
  EXPECT_EQ(core::FormatTranscript(openings[0], 8), "f5d6");
  EXPECT_EQ(core::FormatTranscript(openings[1], 8), "f5f6e6");
  EXPECT_EQ(core::FormatTranscript(openings[2], 8), "f5d6");
  std::ofstream(file) << "f5d6\nf5a1\n";
  try {
    ArenaOpenings(file.string(), core::Position::Standard(8), 2, 1);
    FAIL() << "an illegal opening was accepted";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("line 2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(ArenaOpenings("random:x", core::Position::Standard(8), 2, 1), core::InputError);
  EXPECT_THROW(ArenaOpenings((dir / "missing").string(), core::Position::Standard(8), 2, 1), core::InputError);
  fs::remove_all(dir);
}

TEST(Arena, ForfeitingEngineIsCountedAndTheArenaGoesOn) {
  PlayerDefaults defaults;
  defaults.engine_timeout_seconds = 1;
  std::vector<ArenaPlayer> players = {
      MakeArenaPlayer("hanger@gtp:" + std::string(OZ_TEST_DIR) + "/../play/fake_gtp_engine.sh hang",
                      defaults),
      MakeArenaPlayer("random")};
  ArenaOptions options;
  options.games = 2;
  options.parallel = 2;
  std::ostringstream log;
  const ArenaSummary summary = RunArena(players, options, log);
  ASSERT_EQ(summary.pairs.size(), 1u);
  EXPECT_EQ(summary.players[0], "hanger");
  // As black the hanging engine forfeits at once; as white it does at its first move.
  EXPECT_EQ(summary.pairs[0].losses, 2);
  EXPECT_EQ(summary.pairs[0].forfeits[0], 2);
  EXPECT_NE(log.str().find("forfeits"), std::string::npos);
}

TEST(PlayerSpec, BadSpecsNameTheProblem) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"rando", "unknown player kind 'rando'"},
      {"ab:0", "not a number in [1"},
      {"ab:2.5", "whole number"},
      {"random:3", "takes no argument"},
      {"model:/nonexistent.ckpt", "/nonexistent.ckpt"},
      {"model:x.ckpt,visits=abc", "visits=abc"},
      {"model:x.ckpt,foo=1", "unknown option 'foo'"},
      {"model:x.ckpt,fpu=2.5", "fpu=2.5 is not a number in [0, 2]"},
      {"model:x.ckpt,rootfpu=-1", "rootfpu=-1 is not a number in [0, 2]"},
      {"model:x.ckpt,lcb=11", "lcb=11 is not a number in [0, 10]"},
      {"model:x.ckpt,cpuctstdev=-0.5", "cpuctstdev=-0.5 is not a number in [0, 10]"},
      {"model:x.ckpt,score=5", "score=5 is not a number in [0, 4]"},
      {"model:x.ckpt,valuebias=1.5", "valuebias=1.5 is not a number in [0, 1]"},
      {"model:x.ckpt,valuebias=-0.1", "valuebias=-0.1 is not a number in [0, 1]"},
      {"model:x.ckpt,valuebias=lots", "valuebias=lots is not a number in [0, 1]"},
      {"model:x.ckpt,rootsolve=21", "rootsolve=21 is not a number in [0, 20]"},
      {"model:x.ckpt,rootsolve=16.5", "rootsolve=16.5 is not a whole number"},
      {"model:x.ckpt,rootsolve=", "rootsolve= is not a number"},
      {"gtp:", "needs the engine's command line"},
      {"gtp:/nonexistent/gtp-rhino -l 1", "program '/nonexistent/gtp-rhino' is not an executable file"},
      {"gtp:/tmp", "program '/tmp' is not an executable file"},
      {"nboard:oz-no-such-engine -x", "program 'oz-no-such-engine' is not on PATH"},
      {"@random", "name before '@' is empty"},
      {"ab:4,foo=1", "unknown option 'foo' (known: solver)"},
      {"ab:4,solver=2.5", "solver=2.5 is not a whole number"},
      {"model:x.ckpt,threads=0", "threads=0 is not a number in [1, 256]"},
      {"model:x.ckpt,visits=1000001", "visits=1000001 is not a number in [0, 1000000]"},
      {"model:x.ckpt,visits=0", "give visits=N or time=SECONDS"},
      {"ab:4,solver=30", "solver=30 is not a number in [0, 20]"},
  };
  for (const auto& [spec, expected] : cases) {
    try {
      MakeArenaPlayer(spec);
      ADD_FAILURE() << spec << " was accepted";
    } catch (const core::InputError& e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("player '" + spec + "'"), std::string::npos);
    }
  }
  EXPECT_EQ(MakeArenaPlayer("me@greedy").name, "me");
  EXPECT_EQ(MakeArenaPlayer("gtp:/bin/sh -l 3").name, "sh -l 3");
  EXPECT_EQ(MakeArenaPlayer("nboard:sh -x").name, "sh -x");  // found on PATH
  EXPECT_EQ(MakeArenaPlayer("alphabeta:4").name, "alphabeta4");
  EXPECT_EQ(MakeArenaPlayer("ab:8,solver=16").name, "alphabeta8-solve16");
}

// The subtree value-bias correction's key: a model player with it plays whole games.
TEST(PlayerSpec, AModelWithTheValueBiasCorrectionPlays) {
  const fs::path dir = TempDir("valuebias");
  fs::create_directories(dir);
  core::Rules six;
  six.size = 6;
  const std::string path = (dir / "six.ozm").string();
  WriteTinyModel(path, six);
  ArenaOptions options;
  options.rules.size = 6;
  options.games = 2;
  std::ostringstream log;
  const ArenaSummary summary = RunArena(
      {MakeArenaPlayer("vb@model:" + path + ",visits=16,valuebias=0.35"), MakeArenaPlayer("random")},
      options, log);
  ASSERT_EQ(summary.games.size(), 2u);
  for (const play::MatchResult& game : summary.games) {
    EXPECT_EQ(game.end, play::MatchEnd::kNormal) << game.reason;
  }
  fs::remove_all(dir);
}

TEST(PlayerSpec, AnExportedModelPlaysOnlyTheBoardItWasTrainedFor) {
  const fs::path dir = TempDir("rules");
  fs::create_directories(dir);
  core::Rules six;
  six.size = 6;
  const std::string path = (dir / "six.ozm").string();
  WriteTinyModel(path, six);
  const ArenaPlayer model = MakeArenaPlayer("model:" + path + ",visits=2");
  ASSERT_TRUE(model.trained.has_value());
  EXPECT_EQ(model.trained->size, 6);
  ArenaOptions options;  // 8x8
  std::ostringstream log;
  try {
    RunArena({model, MakeArenaPlayer("random")}, options, log);
    ADD_FAILURE() << "a 6x6 model played 8x8";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("player six/v2: the model was trained for 6x6, not 8x8"),
              std::string::npos)
        << e.what();
  }
  options.rules.size = 6;
  options.games = 4;
  // The root solve from 14 empties (its node budget at 2 playouts cuts some solves off).
  const ArenaPlayer solving = MakeArenaPlayer("solving@model:" + path + ",visits=2,rootsolve=14");
  const ArenaSummary summary =
      RunArena({model, MakeArenaPlayer("random"), solving}, options, log);
  ASSERT_EQ(summary.games.size(), 12u);
  for (const play::MatchResult& game : summary.games) {
    EXPECT_EQ(game.end, play::MatchEnd::kNormal) << game.reason;
  }
  fs::remove_all(dir);
}

TEST(PlayerSpec, WithoutLibTorchACheckpointIsRefusedClearly) {
  const fs::path dir = TempDir("ckpt");
  fs::create_directories(dir);
  const std::string path = (dir / "model.ckpt").string();
  std::ofstream(path) << "OZCKPT not an exported model";
  try {
    MakeArenaPlayer("model:" + path);
    ADD_FAILURE() << "a checkpoint was read by the LibTorch-free loader";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("a checkpoint, which this build cannot read"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  try {
    MakeArenaPlayer("model:" + path + ",device=cuda");
    ADD_FAILURE() << "device=cuda was accepted for an exported model";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("device"), std::string::npos) << e.what();
  }
  fs::remove_all(dir);
}

// A file that is neither model file, a missing file and a folder: each says what it is
// (the loader of every front end, nn::LoadExportedModel).
TEST(PlayerSpec, AFileThatIsNoModelSaysWhatItIs) {
  const fs::path dir = TempDir("notamodel");
  fs::create_directories(dir);
  const std::string text = (dir / "notes.txt").string();
  std::ofstream(text) << "a text file\n";
  const auto error = [](const std::string& path) -> std::string {
    try {
      nn::LoadExportedModel(path);
    } catch (const core::InputError& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_EQ(nn::ProbeModelFile(text), nn::ModelFileKind::kNeither);
  EXPECT_THAT(error(text), ::testing::HasSubstr("model " + text +
                                                ": neither an exported model"));
  EXPECT_THAT(error(text), ::testing::HasSubstr("nor a checkpoint"));
  const std::string missing = (dir / "missing.ozm").string();
  EXPECT_EQ(error(missing), "model " + missing + ": cannot be opened: No such file or directory");
  EXPECT_EQ(error(dir.string()), "model " + dir.string() + ": is a folder, not a model file");
  std::ofstream(dir / "empty.ozm");
  EXPECT_EQ(nn::ProbeModelFile((dir / "empty.ozm").string()), nn::ModelFileKind::kNeither);
  fs::remove_all(dir);
}

// docs/evaluation.md's table of a model player's keys lists each as it is declared:
// "| `key` | default | range | help... |".
TEST(PlayerSpec, TheModelKeysInTheDocsAreTheDeclarations) {
  const std::string path = std::string(OZ_DOCS_DIR) + "/evaluation.md";
  const auto rows = test::MarkdownRows(path);
  ASSERT_FALSE(rows.empty()) << "cannot read " << path;
  for (const play::SettingText& key : ModelPlayerKeyTexts()) {
    const auto it = rows.find("`" + key.key + "`");
    if (it == rows.end()) {
      ADD_FAILURE() << path << " has no row for the key " << key.key;
      continue;
    }
    const std::vector<std::string>& cells = it->second;
    ASSERT_EQ(cells.size(), 4u) << key.key;
    EXPECT_EQ(cells[1], key.default_text) << key.key;
    EXPECT_EQ(cells[2], key.range) << key.key;
    EXPECT_EQ(cells[3].substr(0, key.help.size()), key.help) << key.key;
  }
}

// A search setting's range is its declaration's, for every player key that sets one.
TEST(PlayerSpec, SearchKeysTakeTheirDeclaredRanges) {
  for (const mcts::SearchOption& option : mcts::SearchOptions()) {
    if (!option.spec_key) continue;
    const std::string key = option.spec_key;
    const auto error = [&](const std::string& value) -> std::string {
      try {
        MakeArenaPlayer("model:/no/such/model.ozm," + key + "=" + value);
      } catch (const core::InputError& e) {
        return e.what();
      }
      return "accepted";
    };
    std::ostringstream above;
    above << option.high * 2 + 1;
    EXPECT_THAT(error(above.str()), ::testing::HasSubstr(key + "=" + above.str() + " is not"))
        << key;
    EXPECT_THAT(error("x"), ::testing::HasSubstr(key + "=x is not a number")) << key;
    std::ostringstream high;
    high << option.high;
    // In range: refused only for the missing file.
    EXPECT_THAT(error(high.str()), ::testing::HasSubstr("cannot be opened")) << key;
  }
  EXPECT_THAT(
      [] {
        try {
          MakeArenaPlayer("model:/no/such/model.ozm,visits=-5");
        } catch (const core::InputError& e) {
          return std::string(e.what());
        }
        return std::string("accepted");
      }(),
      ::testing::HasSubstr("visits=-5 is not a number in [0, 1000000]"));
}

TEST(PlayerSpec, ModelFilesWithOneStemAreToldApartByTheirFolders) {
  EXPECT_EQ(ModelLabels({"runs/a/checkpoints/latest.ckpt", "runs/b/checkpoints/latest.ckpt"}),
            (std::vector<std::string>{"a/latest", "b/latest"}));
  EXPECT_EQ(ModelLabels({"x/m.ozm", "y/other.ozm"}), (std::vector<std::string>{"m", "other"}));
  EXPECT_EQ(ModelLabels({"m.ozm", "./m.ozm"}), (std::vector<std::string>{"m", "m"}));
  EXPECT_EQ(ModelLabels({"/r/a/b/m.ozm", "/r/c/b/m.ozm", "/r/other/m.ozm"}),
            (std::vector<std::string>{"a/b/m", "c/b/m", "other/m"}));
  EXPECT_EQ(ModelLabels({"/b/m.ozm", "/a/b/m.ozm"}), (std::vector<std::string>{"b/m", "a/b/m"}));
}

TEST(PlayerSpec, TwoRunsLatestCheckpointsGetDistinctNames) {
  const fs::path dir = TempDir("runs");
  for (const char* run : {"a", "b"}) {
    fs::create_directories(dir / run / "checkpoints");
    WriteTinyModel((dir / run / "checkpoints" / "latest.ozm").string(), core::Rules{});
  }
  const std::string a = "model:" + (dir / "a/checkpoints/latest.ozm").string() + ",visits=2";
  const std::string b = "model:" + (dir / "b/checkpoints/latest.ozm").string() + ",visits=2";
  const std::vector<ArenaPlayer> players = MakeArenaPlayers({a, b, "random"});
  ASSERT_EQ(players.size(), 3u);
  EXPECT_EQ(players[0].name, "a/latest/v2");
  EXPECT_EQ(players[1].name, "b/latest/v2");
  EXPECT_EQ(players[2].name, "random");
  // One run's model under its own name.
  EXPECT_EQ(MakeArenaPlayers({a, "random"})[0].name, "latest/v2");
  // The same file twice with the same limits cannot be told apart: named by hand, it plays.
  try {
    MakeArenaPlayers({a, a});
    ADD_FAILURE() << "two players named alike were accepted";
  } catch (const core::InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("are both named 'latest/v2'"), std::string::npos) << what;
    EXPECT_NE(what.find("NAME@SPEC"), std::string::npos) << what;
    EXPECT_NE(what.find("'" + a + "'"), std::string::npos) << what;
  }
  EXPECT_EQ(MakeArenaPlayers({"one@" + a, "two@" + a})[1].name, "two");
  fs::remove_all(dir);
}

TEST(PlayerSpec, PlayersNamedAlikeByHandAreRefused) {
  try {
    MakeArenaPlayers({"x@random", "x@greedy"});
    ADD_FAILURE() << "two players named x were accepted";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("players 'x@random' and 'x@greedy' are both named 'x'"),
              std::string::npos)
        << e.what();
  }
  try {
    MakeArenaPlayers({"random", "ab:2", "random"});
    ADD_FAILURE() << "random twice was accepted";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("both named 'random'"), std::string::npos) << e.what();
  }
}

// Games drawn from known ratings; the fit must find them within its intervals.
// Games between the players of `truth` (`games` for each pair that `plays` allows),
// drawn from the Bradley-Terry model with some draws.
std::vector<ScoredGame> SimulatedGames(
    const std::map<std::string, double>& truth, int games, std::uint64_t seed,
    const std::function<bool(const std::string&, const std::string&)>& plays) {
  core::Rng rng(seed);
  std::vector<ScoredGame> out;
  for (const auto& [x, rx] : truth) {
    for (const auto& [y, ry] : truth) {
      if (x >= y || !plays(x, y)) continue;
      for (int g = 0; g < games; ++g) {
        const double p = 1 / (1 + std::pow(10.0, (ry - rx) / 400));
        // Some draws; the expected score is the model's p.
        const double draw = 0.3 * std::min(p, 1 - p);
        const double u = (rng.Next() >> 11) * 0x1.0p-53;
        const double score = u < p - draw / 2 ? 1.0 : u < p + draw / 2 ? 0.5 : 0.0;
        out.push_back(g % 2 ? ScoredGame{x, y, score} : ScoredGame{y, x, 1 - score});
      }
    }
  }
  return out;
}

TEST(Elo, RecoversKnownRatings) {
  const std::map<std::string, double> truth = {
      {"a", 0}, {"b", 150}, {"c", 400}, {"d", -200}, {"e", 700}};
  const std::vector<ScoredGame> games =
      SimulatedGames(truth, 1500, 42, [](const std::string&, const std::string&) { return true; });
  EloOptions options;
  options.anchor = "a";
  const auto ratings = FitElo(games, options);
  ASSERT_EQ(ratings.size(), 5u);
  EXPECT_EQ(ratings.front().name, "e");
  for (const Rating& r : ratings) {
    const double expected = truth.at(r.name);
    if (r.name == "a") {
      EXPECT_EQ(r.elo, 0);
      continue;
    }
    EXPECT_GT(r.ci95, 5) << r.name;
    EXPECT_LT(r.ci95, 60) << r.name;
    EXPECT_NEAR(r.elo, expected, std::max(25.0, r.ci95)) << r.name;
    EXPECT_EQ(r.games, 6000);
  }
}

// A new player against a ladder whose ratings are held: only its rating is fitted.
TEST(Elo, ANewPlayerIsPlacedOnAFixedLadder) {
  const std::map<std::string, double> ladder = {{"a", 0}, {"b", 150}, {"c", 400}, {"d", -200}};
  std::map<std::string, double> truth = ladder;
  truth["new"] = 300;
  const std::vector<ScoredGame> games = SimulatedGames(
      truth, 400, 7, [](const std::string& x, const std::string& y) { return x == "new" || y == "new"; });
  EloOptions options;
  options.fixed = ladder;
  options.fixed["absent"] = 900;  // a ladder player that did not play is ignored
  const auto ratings = FitElo(games, options);
  ASSERT_EQ(ratings.size(), 5u);
  for (const Rating& r : ratings) {
    if (r.name == "new") {
      EXPECT_GT(r.ci95, 10);
      EXPECT_LT(r.ci95, 60);
      EXPECT_NEAR(r.elo, 300, std::max(25.0, r.ci95));
      EXPECT_EQ(r.games, 1600);
    } else {
      EXPECT_NEAR(r.elo, ladder.at(r.name), 1e-9) << r.name;  // held
      EXPECT_EQ(r.ci95, 0) << r.name;
    }
  }
  options.fixed = {{"x", 0}};
  EXPECT_THROW(FitElo(games, options), core::InputError);  // nobody of the ladder played
}

TEST(Elo, LadderFilesRoundTripAndBadLinesAreNamed) {
  const fs::path dir = TempDir("ladder");
  fs::create_directories(dir);
  std::vector<Rating> ratings(3);
  ratings[0].name = "rhino4";
  ratings[0].elo = 812.5;
  ratings[1].name = "a, \"quoted\" one";
  ratings[1].elo = -12.25;
  ratings[2].name = "random";
  const std::string path = (dir / "ladder.csv").string();
  const std::map<std::string, double> expected = {
      {"rhino4", 812.5}, {"a, \"quoted\" one", -12.25}, {"random", 0}};
  std::ofstream(path) << LadderCsv(ratings) << "# made by: othello-zero elo ...\n";
  EXPECT_EQ(ReadLadderCsv(path), expected);
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"player,elo\nrandom,abc\n", "line 2: the rating of 'random' is not a number"},
      {"player,elo\nrandom\n", "line 2: expected player,elo"},
      {"player,elo\n\"open,1\n", "line 2: unterminated quoted name"},
      {"player,elo\nx,1\nx,2\n", "line 3: player 'x' is listed twice"},
      {"player,elo\n", "no players in it"},
  };
  for (const auto& [text, message] : bad) {
    std::ofstream(path, std::ios::trunc) << text;
    try {
      ReadLadderCsv(path);
      ADD_FAILURE() << text << " was accepted";
    } catch (const core::InputError& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(ReadLadderCsv((dir / "none.csv").string()), core::InputError);
  fs::remove_all(dir);
}

TEST(Elo, UnbeatenPlayersStayFiniteAndErrorsAreClear) {
  std::vector<ScoredGame> games(10, ScoredGame{"strong", "weak", 1.0});
  const auto ratings = FitElo(games, {});
  ASSERT_EQ(ratings.size(), 2u);
  EXPECT_EQ(ratings[0].name, "strong");
  EXPECT_EQ(ratings[0].elo, 0);  // the first player seen is the anchor without "random"
  EXPECT_TRUE(std::isfinite(ratings[1].elo));
  EXPECT_LT(ratings[1].elo, -300);
  EXPECT_THROW(FitElo({}, {}), core::InputError);
  EloOptions unknown;
  unknown.anchor = "nobody";
  EXPECT_THROW(FitElo(games, unknown), core::InputError);
  games.push_back({"x", "y", 0.5});
  try {
    FitElo(games, {});
    FAIL() << "disconnected players were rated";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot rate x, y"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace othello::arena
