#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/game.h"
#include "core/notation.h"
#include "core/rules.h"

namespace othello::core {
namespace {

using ::testing::HasSubstr;

Position Board(const char* text) {
  auto pos = ParseBoardString(text);
  EXPECT_TRUE(pos.ok()) << pos.error();
  return *pos;
}

TEST(Rules, StandardStartOnEverySize) {
  const Position p8 = Position::Standard(8);
  EXPECT_EQ(p8.side_to_move(), Color::kBlack);
  EXPECT_EQ(p8.discs(Color::kWhite), Bit(*ParseSquare("d4", 8)) | Bit(*ParseSquare("e5", 8)));
  EXPECT_EQ(p8.discs(Color::kBlack), Bit(*ParseSquare("d5", 8)) | Bit(*ParseSquare("e4", 8)));
  EXPECT_EQ(p8.LegalMoves(), Bit(*ParseSquare("d3", 8)) | Bit(*ParseSquare("c4", 8)) |
                                 Bit(*ParseSquare("f5", 8)) | Bit(*ParseSquare("e6", 8)));
  const Position p6 = Position::Standard(6);
  EXPECT_EQ(p6.discs(Color::kWhite), Bit(*ParseSquare("c3", 6)) | Bit(*ParseSquare("d4", 6)));
  const Position p10 = Position::Standard(10);
  EXPECT_EQ(p10.discs(Color::kWhite), Bit(*ParseSquare("e5", 10)) | Bit(*ParseSquare("f6", 10)));
  EXPECT_EQ(PopCount(p10.LegalMoves()), 4);
}

TEST(Rules, ReversiStartFillsTheCentreWithoutFlips) {
  Rules rules;
  rules.start = StartKind::kReversi;
  Game game(rules);
  EXPECT_EQ(game.position().EmptyCount(), 64);
  EXPECT_EQ(game.position().LegalMoves(), CenterSquares(8));
  // Black and white alternate on the centre; a same-colour diagonal is allowed.
  ASSERT_FALSE(game.PlayTranscript("d4e4d5").has_value());
  EXPECT_EQ(game.position().LegalMoves(), Bit(*ParseSquare("e5", 8)));
  EXPECT_TRUE(game.Play(*ParseSquare("c3", 8)).has_value());  // not a centre square
  ASSERT_FALSE(game.Play(*ParseSquare("e5", 8)).has_value());
  EXPECT_FALSE(game.position().InPlacementPhase());
  EXPECT_EQ(game.position().DiscCount(Color::kBlack), 2);  // no flips while placing
  EXPECT_EQ(game.position().DiscCount(Color::kWhite), 2);
  EXPECT_EQ(game.position().side_to_move(), Color::kBlack);
}

TEST(Rules, RandomOpeningIsSeededAndLegal) {
  Rules rules;
  rules.start = StartKind::kRandom;
  rules.random_moves = 20;
  const Position a = StartPosition(rules, /*seed=*/7);
  EXPECT_EQ(a, StartPosition(rules, /*seed=*/7));
  EXPECT_NE(a, StartPosition(rules, /*seed=*/8));
  EXPECT_EQ(64 - a.EmptyCount(), 24);  // 4 + 20 discs unless passes occurred
}

TEST(Rules, HandicapCornersGoToTheChosenSide) {
  Rules rules;
  rules.start = StartKind::kHandicap;
  rules.handicap = 2;
  const Position black = StartPosition(rules);
  EXPECT_EQ(black.discs(Color::kBlack) & ~Position::Standard(8).discs(Color::kBlack),
            Bit(*ParseSquare("a1", 8)) | Bit(*ParseSquare("h8", 8)));
  rules.handicap = 4;
  rules.handicap_side = Color::kWhite;
  const Position white = StartPosition(rules);
  EXPECT_EQ(white.DiscCount(Color::kWhite), 6);
  EXPECT_EQ(white.side_to_move(), Color::kBlack);
  rules.handicap = 5;
  EXPECT_THAT(ValidateRules(rules)->message, HasSubstr("handicap 5 is out of range"));
}

TEST(Rules, ValidationNamesTheField) {
  Rules rules;
  rules.size = 7;
  EXPECT_THAT(ValidateRules(rules)->message, HasSubstr("board size 7 is not supported"));
  rules.size = 8;
  rules.start = StartKind::kRandom;
  rules.random_moves = -1;
  EXPECT_THAT(ValidateRules(rules)->message, HasSubstr("random opening length -1"));
  EXPECT_THAT(ParseStartKind("weird").error(), HasSubstr("unknown start 'weird'"));
  EXPECT_EQ(*ParseStartKind("reversi"), StartKind::kReversi);
}

TEST(Rules, ScoringRules) {
  // 40 black, 20 white, 4 empty, game over not required for scoring.
  const Position pos = Board(
      "XXXXXXXX"
      "XXXXXXXX"
      "XXXXXXXX"
      "XXXXXXXX"
      "XXXXXXXX"
      "OOOOOOOO"
      "OOOOOOOO"
      "OOOO---- X");
  Rules rules;
  EXPECT_EQ(Score(pos, rules).black_margin, 40 - 20 + 4);  // empties to the winner
  rules.empties_to_winner = false;
  EXPECT_EQ(Score(pos, rules).black_margin, 20);
  rules.anti = true;
  EXPECT_EQ(Score(pos, rules).black_margin, -20);  // fewest discs wins
  rules.empties_to_winner = true;
  EXPECT_EQ(Score(pos, rules).black_margin, -24);
  EXPECT_EQ(*Score(pos, rules).winner(), Color::kWhite);
  EXPECT_EQ(Score(pos, rules).MarginFor(Color::kWhite), 24);

  const Position draw = Board(
      "XXXXXXXX"
      "XXXXXXXX"
      "XXXXXXXX"
      "XXXXXXX-"
      "OOOOOOO-"
      "OOOOOOOO"
      "OOOOOOOO"
      "OOOOOOOO O");
  EXPECT_EQ(Score(draw, Rules{}).black_margin, 0);
  EXPECT_FALSE(Score(draw, Rules{}).winner().has_value());
}

TEST(Rules, GameEndsWhenNeitherSideCanMoveEvenWithEmpties) {
  Game game;
  ASSERT_FALSE(game.PlayTranscript("d3c3b3d2e1d6d7e3f4").has_value());
  EXPECT_TRUE(game.IsOver());
  EXPECT_GT(game.position().EmptyCount(), 0);
  EXPECT_EQ(game.FinalOutcome().black_margin, 64);  // 13-0 plus 51 empties
  EXPECT_EQ(*game.FinalOutcome().winner(), Color::kBlack);
}

TEST(Game, PlayRefusesIllegalMovesAndUndoRestores) {
  Game game;
  auto err = game.Play(*ParseSquare("a1", 8));
  ASSERT_TRUE(err.has_value());
  EXPECT_THAT(err->message, HasSubstr("move 1 (a1) is illegal for black"));
  EXPECT_THAT(game.Play(kPass)->message, HasSubstr("a legal move exists"));
  EXPECT_THAT(game.Play(64)->message, HasSubstr("square 64"));
  EXPECT_THAT(game.Play(-7)->message, HasSubstr("illegal"));
  EXPECT_TRUE(game.moves().empty());
  ASSERT_FALSE(game.PlayTranscript("f5d6").has_value());
  EXPECT_THAT(game.PlayTranscript("c3a1")->message, HasSubstr("move 2 ('a1'"));
  EXPECT_EQ(game.moves().size(), 2u);  // all or nothing
  EXPECT_TRUE(game.Undo());
  EXPECT_TRUE(game.Undo());
  EXPECT_FALSE(game.Undo());
  EXPECT_EQ(game.position(), Position::Standard(8));
}

}  // namespace
}  // namespace othello::core
