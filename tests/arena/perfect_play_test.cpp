// The perfect-play check (arena/perfect_play.h) on boards the solver takes in
// milliseconds: a full-depth alpha-beta keeps every value, a random player does not.
#include <gtest/gtest.h>

#include <sstream>

#include "arena/perfect_play.h"
#include "arena/player_spec.h"
#include "core/error.h"
#include "core/notation.h"

namespace othello::arena {
namespace {

PerfectPlayOptions Board(int size) {
  PerfectPlayOptions options;
  options.rules.size = size;
  options.prove_seconds = 5;
  options.solver_megabytes = 16;
  return options;
}

TEST(PerfectPlay, AFullDepthSearchKeepsTheValueAsBothColours) {
  const PerfectPlayReport report = CheckPerfectPlay(MakeArenaPlayer("ab:12"), Board(4));
  EXPECT_EQ(report.start_ply, 0);  // 4x4 is proven from the start
  EXPECT_EQ(report.start_empties, 12);
  ASSERT_EQ(report.colours.size(), 2u);
  for (const PerfectPlayColour& c : report.colours) {
    EXPECT_GT(c.checked, 10u);
    EXPECT_EQ(c.mistakes, 0u);
    EXPECT_EQ(c.unproven, 0u);
    EXPECT_TRUE(c.complete);
  }
  EXPECT_TRUE(report.Perfect());
  EXPECT_NE(FormatPerfectPlay(report).find("perfect play from ply 0 as both colours"),
            std::string::npos)
      << FormatPerfectPlay(report);
}

// Against perfect replies only, the walk is a part of the whole: a full-depth search
// is still perfect there, with fewer moves to check.
TEST(PerfectPlay, OptimalRepliesWalkOnlyThePerfectOpponentsMoves) {
  const PerfectPlayReport all = CheckPerfectPlay(MakeArenaPlayer("ab:12"), Board(4));
  PerfectPlayOptions options = Board(4);
  options.optimal_replies = true;
  const PerfectPlayReport optimal = CheckPerfectPlay(MakeArenaPlayer("ab:12"), options);
  EXPECT_TRUE(optimal.Perfect());
  EXPECT_TRUE(optimal.optimal_replies);
  for (int c = 0; c < 2; ++c) {
    EXPECT_GT(optimal.colours[c].checked, 0u);
    EXPECT_LT(optimal.colours[c].checked, all.colours[c].checked);
    EXPECT_EQ(optimal.colours[c].unproven, 0u);
  }
  EXPECT_NE(FormatPerfectPlay(optimal).find("against every perfect reply"), std::string::npos)
      << FormatPerfectPlay(optimal);
  // A random player still loses value somewhere on the perfect lines.
  const PerfectPlayReport random = CheckPerfectPlay(MakeArenaPlayer("random"), options);
  EXPECT_GT(random.colours[0].mistakes + random.colours[1].mistakes, 0u);
  EXPECT_FALSE(random.Perfect());
}

// By win/draw/loss every move of a lost position keeps the value, so the losing side's
// check is empty and its "perfect" replies are all of them. By exact margin a full-depth
// search is still perfect, a random player is caught as the losing side too, and the
// perfect replies of the losing side are fewer than all its replies.
TEST(PerfectPlay, TheExactMarginChecksTheLosingSideToo) {
  PerfectPlayOptions wld = Board(4);
  wld.optimal_replies = true;
  PerfectPlayOptions score = wld;
  score.exact_score = true;
  const PerfectPlayReport best = CheckPerfectPlay(MakeArenaPlayer("ab:12"), score);
  EXPECT_TRUE(best.Perfect()) << FormatPerfectPlay(best);
  EXPECT_TRUE(best.exact_score);
  ASSERT_LT(best.start_value, 0);  // 4x4: white wins
  const std::string text = FormatPerfectPlay(best);
  EXPECT_NE(text.find("a loss by " + std::to_string(-best.start_value) + " for black"),
            std::string::npos) << text;
  EXPECT_NE(text.find("keeping the exact margin"), std::string::npos) << text;

  const PerfectPlayReport best_wld = CheckPerfectPlay(MakeArenaPlayer("ab:12"), wld);
  EXPECT_LT(best.colours[1].checked, best_wld.colours[1].checked);  // white's walk: fewer replies

  const PerfectPlayReport random_wld = CheckPerfectPlay(MakeArenaPlayer("random"), wld);
  EXPECT_EQ(random_wld.colours[0].mistakes, 0u);  // black's moves all keep the loss
  const PerfectPlayReport random = CheckPerfectPlay(MakeArenaPlayer("random"), score);
  EXPECT_GT(random.colours[0].mistakes, 0u);
  ASSERT_FALSE(random.mistakes.empty());
  EXPECT_LT(random.mistakes.front().after, random.mistakes.front().before);
}

TEST(PerfectPlay, ARandomPlayerIsCaughtAndItsMistakesAreNamed) {
  const PerfectPlayReport report = CheckPerfectPlay(MakeArenaPlayer("random"), Board(4));
  const std::uint64_t mistakes = report.colours[0].mistakes + report.colours[1].mistakes;
  EXPECT_GT(mistakes, 0u);
  EXPECT_FALSE(report.Perfect());
  ASSERT_FALSE(report.mistakes.empty());
  const PerfectPlayMistake& m = report.mistakes.front();
  EXPECT_LT(m.after, m.before);  // the move lost value
  EXPECT_FALSE(m.move.empty());
  EXPECT_NE(FormatPerfectPlay(report).find("mistake as "), std::string::npos);
}

// A check can take an hour: its progress names the start, each mistake as it is found
// and each colour's end, each line stamped with the minutes since it began.
TEST(PerfectPlay, ProgressNamesTheStartEachMistakeAndEachColoursEnd) {
  PerfectPlayOptions options = Board(4);
  options.optimal_replies = true;
  options.exact_score = true;
  std::ostringstream progress;
  const PerfectPlayReport report = CheckPerfectPlay(MakeArenaPlayer("random"), options, &progress);
  const std::string text = progress.str();
  EXPECT_NE(text.find("[0.0 min] proving ply 0 of the player's own game (12 empties"),
            std::string::npos) << text;
  EXPECT_NE(text.find("[0.0 min] start: ply 0 (12 empties)"), std::string::npos) << text;
  ASSERT_FALSE(report.mistakes.empty());
  const PerfectPlayMistake& m = report.mistakes.front();
  EXPECT_NE(text.find("mistake as " + std::string(core::ColorName(m.colour)) + " after '" +
                      m.transcript + "': " + m.move + " turns "),
            std::string::npos) << text;
  // The lines come in the order of the check: the start, black's walk, white's.
  const std::size_t start = text.find("start: ply 0");
  const std::size_t black = text.find("black: ");
  const std::size_t white = text.find("white: ");
  ASSERT_NE(black, std::string::npos) << text;
  ASSERT_NE(white, std::string::npos) << text;
  EXPECT_LT(start, black);
  EXPECT_LT(black, white);
  EXPECT_NE(text.find("every perfect reply walked"), std::string::npos) << text;
}

TEST(PerfectPlay, TheStartIsTheFirstProvenPlyAndTheWalkIsBounded) {
  PerfectPlayOptions options = Board(6);
  options.prove_seconds = 0.05;  // 6x6's early positions are far beyond this
  options.max_positions = 300;
  const PerfectPlayReport report = CheckPerfectPlay(MakeArenaPlayer("ab:2"), options);
  EXPECT_GT(report.start_ply, 0);
  EXPECT_LT(report.start_empties, 32);
  EXPECT_FALSE(report.start_line.empty());
  EXPECT_FALSE(report.colours[0].complete);  // stopped at max_positions
  EXPECT_FALSE(report.Perfect());
  EXPECT_NE(FormatPerfectPlay(report).find("stopped at --max-positions"), std::string::npos);
}

TEST(PerfectPlay, AStartPastTheEndIsAClearError) {
  PerfectPlayOptions options = Board(4);
  options.start_ply = 100;
  try {
    CheckPerfectPlay(MakeArenaPlayer("ab:3"), options);
    FAIL() << "a start past the game's end was accepted";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("ends before ply 100"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace othello::arena
