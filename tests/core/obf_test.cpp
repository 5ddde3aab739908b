// .obf lines (core/obf.h).
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/notation.h"
#include "core/obf.h"

namespace othello::core {
namespace {

TEST(Obf, ReadsTheFfoSuite) {
  std::ifstream in(std::string(OZ_TEST_DATA_DIR) + "/ffo40-59.obf");
  int positions = 0;
  for (std::string line; std::getline(in, line);) {
    auto entry = ParseObfLine(line);
    ASSERT_TRUE(entry.ok()) << entry.error();
    if (!*entry) continue;
    ++positions;
    EXPECT_FALSE((*entry)->scores.empty());
  }
  EXPECT_EQ(positions, 20);
  auto first = ParseObfLine(
      "O--OOOOX-OOOOOOXOOXXOOOXOOXOOOXXOOOOOOXX---OOOOX----O--X-------- X; A2:+38; C7:+36;");
  ASSERT_TRUE(first.ok() && *first);
  EXPECT_EQ((*first)->scores.size(), 2u);
  EXPECT_EQ((*first)->scores[0].move, *ParseSquare("a2", 8));
  EXPECT_EQ((*first)->scores[1].score, 36);
  EXPECT_EQ((*first)->BestScore(), 38);
}

TEST(Obf, CommentsBlanksAndBareBoards) {
  EXPECT_FALSE(*ParseObfLine("% a comment"));
  EXPECT_FALSE(*ParseObfLine("   # another"));
  EXPECT_FALSE(*ParseObfLine(""));
  auto bare = ParseObfLine(std::string(27, '-') + "XO" + std::string(6, '-') + "OX" +
                           std::string(27, '-') + " X");
  ASSERT_TRUE(bare.ok() && *bare) << bare.error();
  EXPECT_FALSE((*bare)->BestScore());
}

TEST(Obf, BadLinesNameTheColumnAndTheProblem) {
  const std::string board =
      "O--OOOOX-OOOOOOXOOXXOOOXOOXOOOXXOOOOOOXX---OOOOX----O--X-------- X";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {board + "; A2+38;", "column 68 ('A2+38'): expected move:score"},
      {board + "; Z9:+38;", "bad square 'Z9'"},
      {board + "; H8:+2;", "the move is illegal"},
      {board + "; A2:+99;", "from -64 to +64"},
      {board + "; A2:99999999999999;", "whole number of discs"},
      {board + "; A2:;", "whole number of discs"},
      {"XO- X; A1:0", "board string has 3 squares"},
  };
  for (const auto& [line, message] : cases) {
    auto entry = ParseObfLine(line);
    ASSERT_FALSE(entry.ok()) << line;
    EXPECT_THAT(entry.error(), ::testing::HasSubstr(message)) << line;
  }
}

}  // namespace
}  // namespace othello::core
