#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/ggf.h"
#include "core/hash.h"
#include "core/notation.h"
#include "core/rng.h"

namespace othello::core {
namespace {

using ::testing::HasSubstr;

const char* kGgsGame =
    "(;GM[Othello]PC[GGS/os]DT[2003.12.15_13:24:03.MST]PB[Saio1200]PW[Zebra]RB[2197.01]"
    "RW[2141.90]TI[05:00//02:00]TY[8]RE[+2.000]BO[8 -------- -------- -------- ---O*--- "
    "---*O--- -------- -------- -------- *]B[f5//0.01]W[d6/-1.50/1.06]B[C3]W[d3//0:02.5];)";

TEST(Ggf, ReadsAGgsRecord) {
  auto rec = ParseGgf(kGgsGame);
  ASSERT_TRUE(rec.ok()) << rec.error();
  EXPECT_EQ(rec->place, "GGS/os");
  EXPECT_EQ(rec->black_name, "Saio1200");
  EXPECT_EQ(rec->white_name, "Zebra");
  EXPECT_EQ(rec->time_control, "05:00//02:00");
  EXPECT_EQ(rec->start, Position::Standard(8));
  ASSERT_EQ(rec->moves.size(), 4u);
  EXPECT_EQ(SquareName(rec->moves[2].square, 8), "c3");
  EXPECT_DOUBLE_EQ(*rec->moves[1].eval, -1.5);
  EXPECT_DOUBLE_EQ(*rec->moves[1].seconds, 1.06);
  EXPECT_DOUBLE_EQ(*rec->moves[3].seconds, 2.5);
  EXPECT_FALSE(rec->moves[2].eval.has_value());
  EXPECT_DOUBLE_EQ(*rec->result, 2.0);
  EXPECT_EQ(FormatTranscript(rec->ToGame().moves(), 8), "f5d6c3d3");
  EXPECT_THAT(rec->comment, HasSubstr("RB[2197.01]"));
}

TEST(Ggf, RoundTripsRandomGamesOfEveryVariant) {
  Rng rng(/*seed=*/5);
  for (int size : {4, 6, 8, 10}) {
    for (StartKind start : {StartKind::kStandard, StartKind::kReversi, StartKind::kRandom,
                            StartKind::kHandicap}) {
      Rules rules;
      rules.size = size;
      rules.start = start;
      rules.random_moves = 6;
      rules.handicap = 3;
      rules.anti = rng.Below(2);
      Game game(rules, rng.Next());
      while (!game.IsOver()) game.Play(RandomLegalMove(game.position(), rng));
      GgfRecord rec = GgfRecord::FromGame(game);
      rec.black_name = "alpha";
      rec.white_name = "beta]";  // ']' cannot be stored and is replaced
      rec.moves[0].eval = 1.25;
      rec.moves[0].seconds = 0.5;
      rec.result_flag = 't';
      const std::string text = WriteGgf(rec);
      auto back = ParseGgf(text);
      ASSERT_TRUE(back.ok()) << back.error() << "\n" << text;
      EXPECT_EQ(back->start, game.start()) << text;
      EXPECT_EQ(back->rules.size, size);
      EXPECT_EQ(back->rules.anti, rules.anti);
      EXPECT_EQ(back->white_name, "beta)");
      EXPECT_DOUBLE_EQ(*back->moves[0].eval, 1.25);
      EXPECT_DOUBLE_EQ(*back->moves[0].seconds, 0.5);
      EXPECT_EQ(back->result, rec.result);
      EXPECT_EQ(back->result_flag, 't');
      const Game replay = back->ToGame();
      EXPECT_EQ(replay.moves(), game.moves()) << text;
      EXPECT_EQ(replay.position(), game.position());
      EXPECT_EQ(WriteGgf(*back), text);
    }
  }
}

TEST(Ggf, ReadsSeveralGamesAndOmittedPasses) {
  // White cannot move after black's first move here, and the record omits "W[PA]".
  const std::string board =
      "BO[8 XXXXXXXX XXXXXXXX XXXXXXXX XXXXXXXX XXXXXXXX XXXXXXXX XXXXXXO- XXXXXX-- O]";
  auto games = ParseGgfFile(std::string(kGgsGame) + "\n(;GM[Othello]" + board + "B[h7];)\n");
  ASSERT_TRUE(games.ok()) << games.error();
  ASSERT_EQ(games->size(), 2u);
  ASSERT_EQ((*games)[1].moves.size(), 2u);
  EXPECT_EQ((*games)[1].moves[0].square, kPass);
}

TEST(Ggf, BrokenRecordsNameWhatAndWhere) {
  const std::string head = "(;GM[Othello]BO[8 " + std::string(27, '-') + "O*------*O" +
                           std::string(27, '-') + " *]";
  EXPECT_THAT(ParseGgf("GM[Othello]").error(), HasSubstr("no game start"));
  EXPECT_THAT(ParseGgf(head + "B[f5]").error(), HasSubstr("not closed with ';)'"));
  EXPECT_THAT(ParseGgf(head + "B[f5;)").error(), HasSubstr("not closed with ']'"));
  EXPECT_THAT(ParseGgf(head + "B[f5]W[a1];)").error(),
              HasSubstr("move 2 W[a1]: illegal move for white"));
  EXPECT_THAT(ParseGgf(head + "B[f5]B[d6];)").error(), HasSubstr("move 2 B[d6]: white is to move"));
  EXPECT_THAT(ParseGgf(head + "B[z9];)").error(), HasSubstr("move 1 B[z9]: bad square"));
  EXPECT_THAT(ParseGgf(head + "B[f5/x];)").error(), HasSubstr("bad evaluation 'x'"));
  EXPECT_THAT(ParseGgf(head + "B[f5//y];)").error(), HasSubstr("bad time 'y'"));
  EXPECT_THAT(ParseGgf(head + "RE[abc];)").error(), HasSubstr("RE[abc]: bad result"));
  EXPECT_THAT(ParseGgf(head + "RE[nan];)").error(), HasSubstr("RE[nan]: bad result"));
  EXPECT_THAT(ParseGgf(head + "B[f5/1e999];)").error(), HasSubstr("bad evaluation '1e999'"));
  EXPECT_THAT(ParseGgf(head + "TY[99999999999999999999];)").error(),
              HasSubstr("unsupported board size"));
  EXPECT_THAT(ParseGgf("(;BO[00000000000000000000008 -];)").error(), HasSubstr("not supported"));
  EXPECT_THAT(ParseGgf(head + "TY[6];)").error(), HasSubstr("TY[] says size 6"));
  EXPECT_THAT(ParseGgf("(;GM[Othello]B[f5];)").error(), HasSubstr("move before BO[]"));
  EXPECT_THAT(ParseGgf("(;GM[Othello];)").error(), HasSubstr("missing BO[]"));
  EXPECT_THAT(ParseGgf("(;GM[Chess]BO[8 x];)").error(), HasSubstr("not an Othello game"));
  EXPECT_THAT(ParseGgf("(;BO[7 -];)").error(), HasSubstr("board size 7"));
  EXPECT_THAT(ParseGgf("(;BO[8 ---- *];)").error(), HasSubstr("expected 64 squares"));
  EXPECT_THAT(ParseGgf("(;BO[4 ---------------Q *];)").error(), HasSubstr("bad character 'Q'"));
  EXPECT_THAT(ParseGgf("(; 12[x];)").error(), HasSubstr("at character 4"));
  EXPECT_THAT(ParseGgfFile(std::string(kGgsGame) + "(;GM[Othello];)").error(),
              HasSubstr("game 2: GGF: missing BO[]"));
}

}  // namespace
}  // namespace othello::core
