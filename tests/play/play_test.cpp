// Players and the refereed game session: built-in players, time control, outside
// engines over GTP and NBoard (fake engines that misbehave, and GRhino when installed).
#include <chrono>
#include <filesystem>
#include <thread>

#include <gtest/gtest.h>

#include "core/ggf.h"
#include "core/notation.h"
#include "core/rng.h"
#include "core/solver.h"
#include "mcts/evaluator.h"
#include "play/basic_players.h"
#include "play/engine_players.h"
#include "play/match.h"
#include "play/play_settings.h"
#include "play/search_player.h"
#include "tests/markdown_table.h"

namespace othello::play {
namespace {

const std::string kFakeGtp = std::string(OZ_TEST_DIR) + "/fake_gtp_engine.sh";
const std::string kFakeNBoard = std::string(OZ_TEST_DIR) + "/fake_nboard_engine.sh";
const char* const kRhino = "/usr/games/gtp-rhino";

core::Square Sq(const char* name) { return *core::ParseSquare(name, 8); }

TEST(TimeControl, Parses) {
  auto tc = ParseTimeControl("60+1.5");
  ASSERT_TRUE(tc.ok());
  EXPECT_EQ(tc->main_seconds, 60);
  EXPECT_EQ(tc->increment_seconds, 1.5);
  EXPECT_EQ(ParseTimeControl("300")->increment_seconds, 0);
  for (const char* bad : {"", "abc", "-5", "10+", "+3", "0+1", "10+-1", "nan"}) {
    auto r = ParseTimeControl(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.error().find("time control"), std::string::npos);
  }
}

TEST(Session, PlaysAFullGameAndRecordsIt) {
  RandomPlayer black(1);
  GreedyPlayer white(2);
  MatchSetup setup;
  setup.opening = {Sq("f5"), Sq("d6")};
  const MatchResult out = PlayMatch(black, white, setup);
  EXPECT_EQ(out.end, MatchEnd::kNormal);
  const core::Game game = out.record.ToGame();
  EXPECT_TRUE(game.IsOver());
  EXPECT_EQ(game.moves()[0], Sq("f5"));
  EXPECT_EQ(game.moves()[1], Sq("d6"));
  EXPECT_EQ(out.black_margin, game.FinalOutcome().black_margin);
  // The record survives a GGF round trip with its names and result.
  auto parsed = core::ParseGgf(core::WriteGgf(out.record));
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  EXPECT_EQ(parsed->black_name, "random");
  EXPECT_EQ(parsed->white_name, "greedy");
  EXPECT_EQ(*parsed->result, out.black_margin);
  EXPECT_EQ(parsed->moves.size(), game.moves().size());
}

TEST(Session, BadOpeningIsAnInputError) {
  RandomPlayer a(1), b(2);
  MatchSetup setup;
  setup.opening = {Sq("a1")};
  EXPECT_THROW(PlayMatch(a, b, setup), core::InputError);
}

TEST(Players, AlphaBetaTakesAnOfferedCornerAndBeatsRandom) {
  // Black to move can take a1 (flanking b2 against c3).
  auto pos = core::ParseBoardString(
      "--------"
      "-O------"
      "--XO----"
      "---XO---"
      "---OX---"
      "--------"
      "--------"
      "-------- X");
  ASSERT_TRUE(pos.ok()) << pos.error();
  AlphaBetaPlayer ab(1, 7);
  core::Game game(core::Rules{}, *pos);
  ab.NewGame(game, std::nullopt);
  EXPECT_EQ(ab.GenMove(game, {}).square, Sq("a1"));

  int wins = 0;
  for (int g = 0; g < 10; ++g) {
    AlphaBetaPlayer a(2, g);
    RandomPlayer r(100 + g);
    const MatchResult out = g % 2 ? PlayMatch(r, a, {}) : PlayMatch(a, r, {});
    wins += (g % 2 ? -out.black_margin : out.black_margin) > 0;
  }
  EXPECT_GE(wins, 8);
}

TEST(Players, AlphaBetaWithTheSolverPlaysTheEndgamePerfectly) {
  core::Rules rules;
  core::Rng rng(11);
  int checked = 0;
  for (int g = 0; g < 6; ++g) {
    // A random game down to 12 empties.
    core::Position pos = core::Position::Standard(8);
    while (pos.EmptyCount() > 12 && !pos.IsGameOver()) {
      std::vector<core::Square> moves;
      core::ForEachSquare(pos.LegalMoves(), [&](core::Square sq) { moves.push_back(sq); });
      pos = pos.Play(moves.empty() ? core::kPass : moves[rng.Below(moves.size())]);
    }
    if (pos.IsGameOver() || pos.MustPass()) continue;
    core::Game game(rules, pos);
    AlphaBetaPlayer ab(1, g, /*solve_empties=*/14);
    ab.NewGame(game, std::nullopt);
    const PlayedMove move = ab.GenMove(game, {});
    const int best = core::SolveExact(pos, rules).score;
    ASSERT_TRUE(move.eval.has_value());
    EXPECT_EQ(*move.eval, best);
    EXPECT_EQ(-core::SolveExact(pos.Play(move.square), rules).score, best) << "game " << g;
    ++checked;
  }
  EXPECT_GE(checked, 3);
  EXPECT_EQ(AlphaBetaPlayer(8, 1, 16).name(), "alphabeta8-solve16");
  EXPECT_EQ(AlphaBetaPlayer(8, 1).name(), "alphabeta8");
}

TEST(Players, SearchPlayerPlaysLegalMovesToTheEnd) {
  mcts::UniformEvaluator evaluator;
  SearchPlayerOptions options;
  options.visits = 64;
  SearchPlayer search(evaluator, options);
  GreedyPlayer greedy(3);
  const MatchResult out = PlayMatch(search, greedy, {});
  EXPECT_EQ(out.end, MatchEnd::kNormal);
  EXPECT_TRUE(out.record.ToGame().IsOver());
  // The last search either ran playouts or proved the root with the solver.
  EXPECT_TRUE(search.last_result().playouts > 0 || search.last_result().proven);
}

TEST(Players, SearchPlayerKeepsItsTreeBetweenMoves) {
  mcts::UniformEvaluator evaluator;
  SearchPlayerOptions options;
  options.visits = 64;
  options.params.solver_empties = 0;
  SearchPlayer search(evaluator, options);
  core::Game game;
  search.NewGame(game, std::nullopt);
  const auto searched = [&] {
    std::uint64_t visits = 0;
    for (const auto& child : search.last_result().children) visits += child.visits;
    return visits;
  };
  game.Play(search.GenMove(game, {}).square);
  EXPECT_LE(searched(), options.visits);  // a fresh tree holds this search's playouts only
  game.Play(core::LowestSquare(game.position().LegalMoves()));
  game.Play(search.GenMove(game, {}).square);
  // The kept subtree's visits add to the new search's: a rebuilt tree would hold 64.
  EXPECT_GT(searched(), options.visits);
  // A game that went back (an undo) is not followed: the tree starts again.
  game.Undo();
  game.Undo();
  search.GenMove(game, {});
  EXPECT_LE(searched(), options.visits);
}

// A player that thinks for a fixed time per move.
class SlowPlayer : public Player {
 public:
  explicit SlowPlayer(double seconds) : seconds_(seconds) {}
  std::string name() const override { return "slow"; }
  PlayedMove GenMove(const core::Game& game, const MoveClock&) override {
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds_));
    return {core::RandomLegalMove(game.position(), rng_), std::nullopt};
  }

 private:
  double seconds_;
  core::Rng rng_{5};
};

TEST(Session, RunningOutOfTimeLosesAndTheRecordSaysSo) {
  SlowPlayer slow(0.05);
  RandomPlayer fast(1);
  MatchSetup setup;
  setup.time = TimeControl{0.2, 0.01};
  const MatchResult out = PlayMatch(slow, fast, setup);
  EXPECT_EQ(out.end, MatchEnd::kTime);
  EXPECT_EQ(out.black_margin, -64);
  EXPECT_NE(out.reason.find("black (slow) lost on time"), std::string::npos) << out.reason;
  EXPECT_EQ(out.record.result_flag, 't');
  const std::string ggf = core::WriteGgf(out.record);
  EXPECT_NE(ggf.find("RE[-64.000:t]"), std::string::npos) << ggf;
  EXPECT_NE(ggf.find("TI[0.2+0.01]"), std::string::npos) << ggf;
}

TEST(Session, TimeBankIsGivenToPlayers) {
  // A search player on the clock budgets its bank and finishes in time.
  mcts::RolloutEvaluator evaluator(/*rollouts=*/8);
  SearchPlayerOptions options;
  options.visits = 0;
  options.seconds_per_move = 0;
  SearchPlayer search(evaluator, options);
  RandomPlayer random(4);
  MatchSetup setup;
  setup.time = TimeControl{4.0, 0.0};
  const MatchResult out = PlayMatch(search, random, setup);
  EXPECT_EQ(out.end, MatchEnd::kNormal) << out.reason;  // it never overran its bank
}

TEST(Session, TheBudgetIsAShareOfTheBankThatLeavesAReserve) {
  const core::Position start = core::Position::Standard(8);
  core::Rules rules;
  rules.start = core::StartKind::kRandom;
  rules.random_moves = 40;
  const core::Position late = core::StartPosition(rules, 3);
  const MoveClock clock{true, 60.0, 0.0};
  EXPECT_EQ((MoveClock{false, 60.0, 0.0}.Budget(start)), 0.0);  // untimed: no budget
  // 30 moves to play at the start: about 60 / 32 seconds; fewer moves left, more each.
  EXPECT_NEAR(clock.Budget(start), (60.0 - 0.5) / 32, 1e-9);
  EXPECT_GT(clock.Budget(late), clock.Budget(start));
  // Never the whole bank, however few moves are left; most of an increment is spent.
  for (const double bank : {0.01, 0.5, 5.0}) {
    EXPECT_LT((MoveClock{true, bank, 0.0}.Budget(late)), bank);
    EXPECT_GT((MoveClock{true, bank, 2.0}.Budget(start)), (MoveClock{true, bank, 0.0}.Budget(start)));
  }
}

struct BrokenCase {
  const char* mode;
  const char* reason;
};

class BrokenEngine : public ::testing::TestWithParam<BrokenCase> {};

TEST_P(BrokenEngine, ForfeitsWithoutHanging) {
  EngineOptions options;
  options.name = std::string("fake-") + GetParam().mode;
  options.move_timeout_seconds = 1.0;
  GtpPlayer engine(kFakeGtp + " " + GetParam().mode, options);
  RandomPlayer random(1);
  // A hang would be caught by the move timeout (and by ctest's timeout, were it broken).
  const MatchResult out = PlayMatch(engine, random, {});  // the engine is black: moves first
  EXPECT_EQ(out.end, MatchEnd::kForfeit);
  EXPECT_EQ(out.black_margin, -64);
  EXPECT_EQ(out.record.result_flag, 'r');
  EXPECT_NE(out.reason.find("black (" + options.name + ") forfeits"), std::string::npos);
  EXPECT_NE(out.reason.find(GetParam().reason), std::string::npos) << out.reason;
  EXPECT_NE(out.record.comment.find("forfeits"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(
    Gtp, BrokenEngine,
    ::testing::Values(BrokenCase{"garbage", "garbage: 'hello there'"},
                      BrokenCase{"illegal", "(a1) is illegal"},
                      BrokenCase{"error", "refused 'genmove black': something went wrong"},
                      BrokenCase{"hang", "did not answer within 1.0 s"},
                      BrokenCase{"chatty", "did not answer within 1.0 s"},
                      BrokenCase{"die", "died"}),
    [](const auto& info) { return std::string(info.param.mode); });

TEST(Engines, AChattyNBoardEngineThatNeverMovesForfeits) {
  EngineOptions options;
  options.name = "chatty";
  options.move_timeout_seconds = 1.0;
  NBoardPlayer engine(kFakeNBoard + " chatty", options);
  RandomPlayer random(1);
  const MatchResult out = PlayMatch(engine, random, {});
  EXPECT_EQ(out.end, MatchEnd::kForfeit);
  EXPECT_NE(out.reason.find("did not answer within 1.0 s"), std::string::npos) << out.reason;
}

TEST(Engines, MissingEngineForfeits) {
  EngineOptions options;
  options.move_timeout_seconds = 1.0;
  GtpPlayer engine("/nonexistent/engine", options);
  RandomPlayer random(1);
  const MatchResult out = PlayMatch(random, engine, {});
  EXPECT_EQ(out.end, MatchEnd::kForfeit);
  EXPECT_EQ(out.black_margin, 64);
  EXPECT_NE(out.reason.find("white (/nonexistent/engine) forfeits"), std::string::npos)
      << out.reason;
}

TEST(Engines, GtpRefusesAStartItCannotSetUp) {
  GtpPlayer engine(kFakeGtp + " ok", {});
  RandomPlayer random(1);
  MatchSetup setup;
  setup.rules.start = core::StartKind::kReversi;
  const MatchResult out = PlayMatch(engine, random, setup);
  EXPECT_EQ(out.end, MatchEnd::kForfeit);
  EXPECT_NE(out.reason.find("cannot set up a position"), std::string::npos) << out.reason;
}

TEST(Engines, NBoardMovesAndEvaluationsAreRead) {
  EngineOptions options;
  options.name = "fake-nboard";
  options.move_timeout_seconds = 2.0;
  NBoardPlayer engine(kFakeNBoard, options);
  RandomPlayer random(1);
  const MatchResult out = PlayMatch(engine, random, {});
  // f5 is legal once, as black's first move, and illegal on its second turn.
  ASSERT_EQ(out.record.moves.size(), 2u);
  EXPECT_EQ(out.record.moves[0].square, Sq("f5"));
  EXPECT_EQ(out.record.moves[0].eval.value_or(0), 1.5);
  EXPECT_EQ(out.end, MatchEnd::kForfeit);
  EXPECT_NE(out.reason.find("(f5) is illegal"), std::string::npos) << out.reason;
}

TEST(Engines, GtpGameAgainstGRhino) {
  if (!std::filesystem::exists(kRhino)) GTEST_SKIP() << kRhino << " is not installed (grhino)";
  EngineOptions options;
  options.name = "gtp-rhino -l 1";
  for (const bool rhino_black : {true, false}) {
    GtpPlayer rhino(std::string(kRhino) + " -l 1", options);
    GreedyPlayer greedy(9);
    MatchSetup setup;
    setup.opening = {Sq("f5"), Sq("f6")};
    const MatchResult out = rhino_black ? PlayMatch(rhino, greedy, setup) : PlayMatch(greedy, rhino, setup);
    EXPECT_EQ(out.end, MatchEnd::kNormal) << out.reason;
    const core::Game game = out.record.ToGame();
    EXPECT_TRUE(game.IsOver());
    EXPECT_EQ(out.black_margin, game.FinalOutcome().black_margin);
  }
}

TEST(Engines, GRhinoOnTheClock) {
  if (!std::filesystem::exists(kRhino)) GTEST_SKIP() << kRhino << " is not installed (grhino)";
  GtpPlayer rhino(std::string(kRhino) + " -l 2", {});
  RandomPlayer random(3);
  MatchSetup setup;
  setup.time = TimeControl{30, 1};
  const MatchResult out = PlayMatch(random, rhino, setup);
  EXPECT_EQ(out.end, MatchEnd::kNormal) << out.reason;
  EXPECT_EQ(out.record.time_control, "30+1");
}

// docs/play.md's table of limits lists every play setting as play_settings.h declares it:
// "| `name` | options | `key` | default | range | help... |".
TEST(PlaySettings, TheTableInTheDocsIsTheDeclaration) {
  const std::string path = std::string(OZ_DOCS_DIR) + "/play.md";
  const auto rows = test::MarkdownRows(path);
  ASSERT_FALSE(rows.empty()) << "cannot read " << path;
  for (const SettingText& setting : PlaySettingsText()) {
    const auto it = rows.find("`" + setting.name + "`");
    if (it == rows.end()) {
      ADD_FAILURE() << path << " has no row for " << setting.name;
      continue;
    }
    const std::vector<std::string>& cells = it->second;
    ASSERT_EQ(cells.size(), 6u) << setting.name;
    EXPECT_NE(cells[1].find("`" + setting.flag + "`"), std::string::npos) << setting.name;
    EXPECT_EQ(cells[2], "`" + setting.key + "`") << setting.name;
    EXPECT_EQ(cells[3], setting.default_text) << setting.name;
    EXPECT_EQ(cells[4], setting.range) << setting.name;
    EXPECT_EQ(cells[5].substr(0, setting.help.size()), setting.help) << setting.name;
  }
}

TEST(PlaySettings, TheTreeForAnyBudgetIsBoundedAndNeverWraps) {
  EXPECT_EQ(TreeNodesFor(400, 0), 400u * 24 + 4096);
  EXPECT_EQ(TreeNodesFor(kMaxVisits, 0), kMaxVisits * 24 + 4096);
  EXPECT_EQ(TreeNodesFor(0, 0), std::size_t{4} << 20);            // no playout limit
  EXPECT_EQ(TreeNodesFor(400, 1.5), std::size_t{4} << 20);        // timed
  EXPECT_EQ(TreeNodesFor(std::uint64_t{1} << 62, 0), std::size_t{4} << 20);  // past any range
  EXPECT_EQ(TreeNodesFor(~std::uint64_t{0}, 0), std::size_t{4} << 20);
}

}  // namespace
}  // namespace othello::play
