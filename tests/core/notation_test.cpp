#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/game.h"
#include "core/notation.h"
#include "core/rules.h"

namespace othello::core {
namespace {

using ::testing::HasSubstr;

TEST(Notation, SquareNamesRoundTripOnEverySize) {
  for (int size : {4, 6, 8, 10}) {
    for (Square sq = 0; sq < size * size; ++sq) {
      const std::string name = SquareName(sq, size);
      ASSERT_EQ(*ParseSquare(name, size), sq) << name;
      std::string upper = name;
      upper[0] = static_cast<char>(upper[0] - 'a' + 'A');
      ASSERT_EQ(*ParseSquare(upper, size), sq) << upper;
    }
  }
  EXPECT_EQ(*ParseSquare("a1", 8), 0);
  EXPECT_EQ(*ParseSquare("h1", 8), 7);
  EXPECT_EQ(*ParseSquare("a2", 8), 8);
  EXPECT_EQ(*ParseSquare("h8", 8), 63);
  EXPECT_EQ(*ParseSquare("j10", 10), 99);
  EXPECT_EQ(*ParseSquare("PA", 8), kPass);
  EXPECT_EQ(*ParseSquare("pass", 8), kPass);
  EXPECT_EQ(SquareName(kPass, 8), "pass");
}

TEST(Notation, BadSquaresNameTheProblem) {
  EXPECT_THAT(ParseSquare("i1", 8).error(), HasSubstr("column out of range a..h"));
  EXPECT_THAT(ParseSquare("a9", 8).error(), HasSubstr("row out of range 1..8"));
  EXPECT_THAT(ParseSquare("a0", 8).error(), HasSubstr("row out of range"));
  EXPECT_THAT(ParseSquare("a01", 8).error(), HasSubstr("row out of range"));
  EXPECT_THAT(ParseSquare("g7", 6).error(), HasSubstr("for 6x6"));
  EXPECT_THAT(ParseSquare("5f", 8).error(), HasSubstr("bad square '5f'"));
  EXPECT_THAT(ParseSquare("f", 8).error(), HasSubstr("bad square"));
  EXPECT_THAT(ParseSquare("", 8).error(), HasSubstr("bad square"));
  EXPECT_THAT(ParseSquare("b2x", 8).error(), HasSubstr("row must be a number"));
}

TEST(Notation, TranscriptsParseCaseInsensitivelyAndRoundTrip) {
  const Position start = Position::Standard(8);
  auto plies = ParseTranscript("F5d6C3 d3,c4", start);
  ASSERT_TRUE(plies.ok()) << plies.error();
  EXPECT_EQ(FormatTranscript(*plies, 8), "f5d6c3d3c4");
  EXPECT_TRUE(ParseTranscript("", start).ok());
}

TEST(Notation, TranscriptInsertsForcedPasses) {
  // The shortest 8x8 game: a 9-ply wipe-out.
  const Position start = Position::Standard(8);
  auto plies = ParseTranscript("d3c3b3d2e1d6d7e3f4", start);
  ASSERT_TRUE(plies.ok()) << plies.error();
  Position pos = start;
  for (Square sq : *plies) pos = pos.Play(sq);
  EXPECT_TRUE(pos.IsGameOver());

  // Build a position where the side to move must pass, then continue with the other side.
  const auto board = ParseBoardString(
      "XXXXXXXX"
      "XXXXXXXX"
      "XXXXXXXX"
      "XXXXXXXX"
      "XXXXXXXX"
      "XXXXXXXX"
      "XXXXXXO-"
      "XXXXXX-- O");
  ASSERT_TRUE(board.ok()) << board.error();
  ASSERT_TRUE(board->MustPass());
  auto with_pass = ParseTranscript("h7", *board);
  ASSERT_TRUE(with_pass.ok()) << with_pass.error();
  EXPECT_EQ(with_pass->size(), 2u);
  EXPECT_EQ((*with_pass)[0], kPass);
  EXPECT_EQ(FormatTranscript(*with_pass, 8), "h7");
  // An explicit pass is accepted too, but only when forced.
  EXPECT_TRUE(ParseTranscript("pass h7", *board).ok());
  EXPECT_THAT(ParseTranscript("f5pa", start).error(), HasSubstr("move 2"));
}

TEST(Notation, BadTranscriptsNameTheMoveNumber) {
  const Position start = Position::Standard(8);
  EXPECT_THAT(ParseTranscript("f5d6a1", start).error(),
              HasSubstr("move 3 ('a1', column 5): illegal for black"));
  EXPECT_THAT(ParseTranscript("f5z6", start).error(), HasSubstr("move 2 ('z6'"));
  EXPECT_THAT(ParseTranscript("f5d6c3?", start).error(), HasSubstr("move 4 ('?'"));
  EXPECT_THAT(ParseTranscript("f5f5", start).error(), HasSubstr("move 2"));
  EXPECT_THAT(ParseTranscript("d3c3b3d2e1d6d7e3f4c4", start).error(),
              HasSubstr("move 10 ('c4', column 19): the game is already over"));
}

TEST(Notation, BoardStringsRoundTripOnEverySize) {
  Rules rules;
  rules.start = StartKind::kRandom;
  rules.random_moves = 9;
  for (int size : {4, 6, 8, 10}) {
    rules.size = size;
    for (std::uint64_t seed = 0; seed < 20; ++seed) {
      const Position pos = StartPosition(rules, seed);
      const std::string text = FormatBoardString(pos);
      ASSERT_EQ(text.size(), static_cast<std::size_t>(size * size + 2));
      auto back = ParseBoardString(text);
      ASSERT_TRUE(back.ok()) << back.error();
      EXPECT_EQ(*back, pos) << text;
    }
  }
  const auto obf = ParseBoardString(
      "O--OOOOX-OOOOOOXOOXXOOOXOOXOOOXXOOOOOOXX---OOOOX----O--X-------- X; A2:+38;");
  ASSERT_TRUE(obf.ok()) << obf.error();
  EXPECT_EQ(obf->side_to_move(), Color::kBlack);
  EXPECT_EQ(obf->EmptyCount(), 20);
  EXPECT_EQ(FormatBoardString(Position::Standard(8)),
            "---------------------------OX------XO--------------------------- X");
}

TEST(Notation, BadBoardStringsNameWhatAndWhere) {
  EXPECT_THAT(ParseBoardString("XO- X").error(), HasSubstr("board string has 3 squares"));
  const std::string good(64, '-');
  std::string bad = good;
  bad[10] = 'Q';
  EXPECT_THAT(ParseBoardString(bad + " X").error(),
              HasSubstr("bad character 'Q' at c2 (character 11)"));
  EXPECT_THAT(ParseBoardString(good).error(), HasSubstr("side to move is missing"));
  EXPECT_THAT(ParseBoardString(good + " Z").error(), HasSubstr("'z' is not X or O"));
  EXPECT_THAT(ParseBoardString(good + " X junk").error(), HasSubstr("unexpected text"));
  EXPECT_TRUE(ParseBoardString(good + " O").ok());
}

TEST(Notation, RenderShowsDiscsLegalMovesAndCounts) {
  const std::string text = RenderBoard(Position::Standard(8));
  EXPECT_THAT(text, HasSubstr("    a b c d e f g h\n"));
  EXPECT_THAT(text, HasSubstr("  3 . . . * . . . .\n"));
  EXPECT_THAT(text, HasSubstr("  4 . . * O X . . .\n"));
  EXPECT_THAT(text, HasSubstr("X (black): 2  O (white): 2  black to move"));
  EXPECT_THAT(RenderBoard(Position::Standard(10)), HasSubstr(" 10 . . ."));
}

}  // namespace
}  // namespace othello::core
