// Scripted GTP and NBoard sessions against expected transcripts, and the game session
// (undo/redo, levels, analysis, the loop of a person against the AI) behind them. The uniform evaluator stands in for a
// network; a search's move is checked for legality where the exact move is not fixed.
#include <regex>
#include <sstream>

#include <gtest/gtest.h>

#include "core/notation.h"
#include "mcts/evaluator.h"
#include "play/game_session.h"
#include "play/gtp_engine.h"
#include "play/nboard_engine.h"

namespace othello::play {
namespace {

struct Step {
  const char* command;
  const char* reply;  // a regular expression for the whole reply
};

template <typename Engine>
void Expect(Engine& engine, const std::vector<Step>& script) {
  for (const Step& step : script) {
    const std::string reply = engine.Handle(step.command);
    EXPECT_TRUE(std::regex_match(reply, std::regex(step.reply)))
        << "command: " << step.command << "\nreply: [" << reply << "]\nexpected: " << step.reply;
  }
}

Strength Quick() {
  Strength s;
  s.visits = 32;
  return s;
}

// Black to move has none; white has b1 (flanking c1-g1 against h1), the last square.
core::GgfRecord LastMoveGame() {
  auto pos = core::ParseBoardString(std::string("O-XXXXXO") + std::string(56, 'X') + " X");
  core::GgfRecord record;
  if (pos.ok()) record.start = *pos;
  EXPECT_TRUE(pos.ok()) << pos.error();
  return record;
}

TEST(GtpEngine, ScriptedSession) {
  mcts::UniformEvaluator evaluator;
  GameSession session(evaluator, core::Rules{}, Quick());
  GtpEngine gtp(session);
  Expect(gtp, {
      {"protocol_version", "= 2\n\n"},
      {"name", "= othello-zero\n\n"},
      {"version", "= 0\\.1\\.0\n\n"},
      {"known_command genmove", "= true\n\n"},
      {"known_command fly", "= false\n\n"},
      {"list_commands", "= protocol_version\nname\n(.*\n)*quit\n\n"},
      {"7 boardsize 6", "=7\n\n"},
      {"boardsize 7", "\\? unacceptable size: board size 7 is not supported.*\n\n"},
      {"boardsize 8", "=\n\n"},
      {"clear_board", "=\n\n"},
      {"play black f5", "=\n\n"},
      {"play black d6", "\\? it is white's turn, not black's\n\n"},
      {"play white a1", "\\? illegal move: move 2 \\(a1\\) is illegal for white.*\n\n"},
      {"play white z9", "\\? illegal move: .*\n\n"},
      {"play purple d6", "\\? 'purple' is not a colour.*\n\n"},
      {"play white", "\\? expected: play COLOR MOVE\n\n"},
      {"play white d6", "=\n\n"},
      {"genmove black", "= [a-h][1-8]\n\n"},
      {"undo", "=\n\n"},
      {"showboard",
       "=\n    a b c d e f g h\n(  [1-8] .*\n){8}X \\(black\\): 3  O \\(white\\): 3  black to move\n\n"},
      {"time_settings 60 0 0", "=\n\n"},
      {"time_left black 30 0", "=\n\n"},
      {"time_left black soon 0", "\\? 'soon' is not a time in seconds\n\n"},
      {"final_score", "\\? cannot score: the game is not over\n\n"},
      {"frobnicate", "\\? unknown command\n\n"},
      {"", ""},
      {"# a comment", ""},
      {"12 quit", "=12\n\n"},
  });
  EXPECT_TRUE(gtp.quit());
}

TEST(GtpEngine, PassesAndTheEndOfTheGame) {
  mcts::UniformEvaluator evaluator;
  const core::GgfRecord record = LastMoveGame();
  for (const bool explicit_pass : {true, false}) {
    GameSession session(evaluator, core::Rules{}, Quick());
    session.SetGame(record);
    GtpEngine gtp(session);
    if (explicit_pass) Expect(gtp, {{"play black pass", "=\n\n"}});
    Expect(gtp, {
        {"play black b1", "\\? (illegal move: .*|it is white.s turn, not black.s)\n\n"},
        {"genmove white", "= b1\n\n"},  // black's forced pass is played first if needed
        {"genmove black", "= pass\n\n"},  // the game is over
        {"final_score", "= B\\+48\n\n"},
    });
  }
}

// The edges of GTP: board sizes that are not numbers, undo with nothing to undo, an id
// alone, CR line ends, and time_left, which sets the clock of its colour alone.
TEST(GtpEngine, EdgesOfTheProtocol) {
  mcts::UniformEvaluator evaluator;
  GameSession session(evaluator, core::Rules{}, Quick());
  GtpEngine gtp(session);
  Expect(gtp, {
      {"boardsize eight", "\\? 'eight' is not a board size\n\n"},
      {"boardsize 8x8", "\\? '8x8' is not a board size\n\n"},
      {"boardsize 99999999999999999999", "\\? .*\n\n"},
      {"boardsize -8", "\\? unacceptable size: .*\n\n"},
      {"boardsize 7", "\\? unacceptable size: .*\n\n"},
      {"boardsize", "\\? expected: boardsize N\n\n"},
      {"undo", "\\? cannot undo: no move played\n\n"},
      {"12", "\\?12 no command\n\n"},
      {"12 frobnicate", "\\?12 unknown command\n\n"},
      {"play b f5\r", "=\n\n"},
      {"time_left black 30", "\\? expected: time_left COLOR SECONDS STONES\n\n"},
      {"time_left green 30 0", "\\? 'green' is not a colour.*\n\n"},
      {"time_left white -1 0", "\\? '-1' is not a time in seconds\n\n"},
  });
  EXPECT_EQ(session.game().moves().size(), 1u);  // the board survived every bad size
  EXPECT_EQ(gtp.MoveBudget(), 0);                 // untimed: no time_settings yet
  Expect(gtp, {{"time_settings 600 0 0", "=\n\n"}, {"time_left black 2 0", "=\n\n"}});
  const double white = gtp.MoveBudget();  // white to move: its bank of 600 s
  EXPECT_GT(white, 1.0);
  Expect(gtp, {{"time_left white 1 0", "=\n\n"}});
  EXPECT_LT(gtp.MoveBudget(), 1.0);  // now white's own second
  Expect(gtp, {{"play w d6", "=\n\n"}});
  EXPECT_LT(gtp.MoveBudget(), 2.0);  // black to move: its 2 s, not white's bank
  EXPECT_GT(gtp.MoveBudget(), 0);
}

TEST(NBoardEngine, ScriptedSession) {
  mcts::UniformEvaluator evaluator;
  GameSession session(evaluator, core::Rules{}, Quick());
  NBoardEngine nboard(session);
  const std::string game =
      "set game (;GM[Othello]PC[NBoard]DT[2014-02-21 20:52:27 GMT]PB[a]PW[b]RE[?]TI[15:00]"
      "TY[8]BO[8 ---------------------------O*------*O--------------------------- *]"
      "B[F5]W[F6]B[D3]W[C5];)";
  Expect(nboard, {
      {"nboard 2", "set myname othello-zero\n"},
      {"set depth 1", ""},
      {game.c_str(), ""},
      {"set contempt 0", ""},
      {"ping 7", "pong 7\n"},
      {"go", "status othello-zero is thinking\n=== [A-H][1-8]/-?[0-9]+\\.[0-9]{2}/[0-9]+\\.[0-9]\n"
             "status othello-zero is waiting\n"},
      {"hint 3", "status othello-zero is thinking\n(search [A-H][1-8] -?[0-9.]+ 0 [0-9]+\n){3}status\n"},
      {"move e6/0.50/1.2", ""},
      {"move a1", "status error: move: move 6 \\(a1\\) is illegal for white: .*\n"},
      {"move", "status error: expected: move MOVE.*\n"},
      {"set depth 99", "status error: depth '99' is not a number from 1 to 60\n"},
      {"set game (;GM[Othello]BO[8 zz];)", "status error: set game: GGF BO\\[\\]: .*\n"},
      {"set", "status error: 'set' needs what to set.*\n"},
      {"bogus", "status error: unknown command 'bogus'\n"},
      {"learn", ""},
      {"ping 8", "pong 8\n"},
  });
  // The game after "set game" and "move e6": f5 f6 d3 c5 e6, white to move.
  EXPECT_EQ(core::FormatTranscript(session.game().moves(), 8), "f5f6d3c5e6");
}

// The edges of NBoard: CRLF line ends through Run, a forced pass's replies, hint and go
// once the game is over, and 6x6 and 10x10 games.
TEST(NBoardEngine, EdgesOfTheProtocol) {
  mcts::UniformEvaluator evaluator;
  {
    GameSession session(evaluator, core::Rules{}, Quick());
    NBoardEngine nboard(session);
    std::istringstream in("nboard 2\r\nset depth 1\r\nmove f5\r\nping 3\r\nquit\r\nping 4\r\n");
    std::ostringstream out;
    nboard.Run(in, out);
    EXPECT_EQ(out.str(), "set myname othello-zero\npong 3\n");  // quit ends it, CRs dropped
    EXPECT_EQ(core::FormatTranscript(session.game().moves(), 8), "f5");
  }
  {
    GameSession session(evaluator, core::Rules{}, Quick());
    session.SetGame(LastMoveGame());  // black to move must pass; white then plays b1
    NBoardEngine nboard(session);
    Expect(nboard, {
        {"hint 2", "search PA 0\\.00 0 0\nstatus\n"},
        {"go", "=== PA/0\\.00/0\\.0\n"},
        {"move pa", ""},
        {"go", "status othello-zero is thinking\n=== B1/.*\nstatus othello-zero is waiting\n"},
        {"move b1", ""},
        {"hint 1", "status error: hint: the game is over\n"},
        {"go", "status error: go: the game is over\n"},
    });
  }
  for (const int size : {6, 10}) {
    core::Rules rules;
    rules.size = size;
    GameSession session(evaluator, rules, Quick());
    NBoardEngine nboard(session);
    const int middle = size / 2;
    std::string board(static_cast<std::size_t>(size * size), '-');
    board[(middle - 1) * size + middle - 1] = 'O', board[(middle - 1) * size + middle] = '*';
    board[middle * size + middle - 1] = '*', board[middle * size + middle] = 'O';
    const std::string game = "set game (;GM[Othello]PB[a]PW[b]TY[" + std::to_string(size) +
                             "]BO[" + std::to_string(size) + " " + board + " *];)";
    Expect(nboard, {
        {game.c_str(), ""},
        {"go", "status othello-zero is thinking\n=== [A-J][0-9]+/-?[0-9]+\\.[0-9]{2}/[0-9]+\\.[0-9]\n"
               "status othello-zero is waiting\n"},
    });
    EXPECT_EQ(session.rules().size, size);
    EXPECT_TRUE(session.game().moves().empty());  // go answers; the GUI sends the move
  }
}

TEST(GameSession, UndoRedoAndLevels) {
  mcts::UniformEvaluator evaluator;
  GameSession session(evaluator, core::Rules{}, StrengthForLevel(1), 3);
  ASSERT_FALSE(session.Play(*core::ParseSquare("f5", 8)));
  const Analysis analysis = session.PlayAi();
  EXPECT_TRUE(core::Position::Standard(8).Play(*core::ParseSquare("f5", 8)).IsLegal(analysis.best.move));
  EXPECT_EQ(session.game().moves().size(), 2u);
  EXPECT_TRUE(session.Undo());
  EXPECT_TRUE(session.can_redo());
  EXPECT_TRUE(session.Redo());
  EXPECT_EQ(session.game().moves().size(), 2u);
  EXPECT_TRUE(session.Undo() && session.Undo());
  EXPECT_FALSE(session.Undo());
  ASSERT_FALSE(session.Play(*core::ParseSquare("d3", 8)));
  EXPECT_FALSE(session.can_redo());  // a new move clears redo
  EXPECT_THROW(StrengthForLevel(0), core::InputError);
  EXPECT_THROW(StrengthForLevel(11), core::InputError);
  EXPECT_LT(StrengthForLevel(2).visits, StrengthForLevel(9).visits);
  // Analysis: every legal move is evaluated, the best first.
  session.set_strength(Quick());
  const Analysis a = session.Analyze();
  EXPECT_EQ(a.moves.size(), static_cast<std::size_t>(core::PopCount(session.game().position().LegalMoves())));
  EXPECT_GE(a.moves.front().visits, a.moves.back().visits);
  EXPECT_GT(a.playouts, 0u);
}

// The game loop of a person against the AI that the terminal and the web page share.
TEST(GameSession, APersonAgainstTheAi) {
  mcts::UniformEvaluator evaluator;
  GameSession session(evaluator, core::Rules{}, Quick(), 5);
  session.set_human(core::Color::kWhite);
  EXPECT_FALSE(session.IsHumanTurn());
  EXPECT_EQ(session.HumanCannotMove()->message, "it is not your turn");
  EXPECT_EQ(session.PlayHuman(*core::ParseSquare("f5", 8))->message, "it is not your turn");
  EXPECT_FALSE(session.UndoToHumanTurn());  // nothing played yet
  // As white, the AI opens: one ply, reported once it is on the board.
  std::vector<AutoPly> plies;
  const auto record = [&](const AutoPly& ply) {
    EXPECT_EQ(session.game().moves().back(), ply.pass ? core::kPass : ply.analysis.best.move);
    plies.push_back(ply);
  };
  session.PlayAiTurns(record);
  ASSERT_EQ(plies.size(), 1u);
  EXPECT_FALSE(plies[0].pass);
  EXPECT_EQ(plies[0].color, core::Color::kBlack);
  EXPECT_TRUE(session.IsHumanTurn());
  EXPECT_FALSE(session.HumanCannotMove());
  EXPECT_FALSE(session.HumanResult());
  // Hints: every legal move, the hint budget (not the level's), the strength unchanged.
  const Analysis hints = session.Hints(/*playouts=*/100);
  EXPECT_EQ(hints.moves.size(), static_cast<std::size_t>(core::PopCount(session.game().position().LegalMoves())));
  EXPECT_GE(hints.playouts, 100u);
  EXPECT_EQ(session.strength().visits, Quick().visits);
  // An illegal move is refused; a legal one is played, and the AI answers.
  EXPECT_NE(session.PlayHuman(*core::ParseSquare("a1", 8))->message.find("illegal"), std::string::npos);
  const core::Square reply = core::LowestSquare(session.game().position().LegalMoves());
  ASSERT_FALSE(session.PlayHuman(reply));
  session.PlayAiTurns(record);
  EXPECT_EQ(plies.size(), 2u);
  EXPECT_EQ(session.game().moves().size(), 3u);
  // Undo goes back a whole turn (the AI's move and the person's); at the start, where the
  // AI is to move, it plays again. Redo comes forward to the person's next turn.
  EXPECT_TRUE(session.UndoToHumanTurn());
  EXPECT_EQ(session.game().moves().size(), 1u);
  EXPECT_TRUE(session.RedoToHumanTurn());
  EXPECT_EQ(session.game().moves().size(), 3u);
  EXPECT_FALSE(session.RedoToHumanTurn());
  EXPECT_TRUE(session.UndoToHumanTurn() && session.UndoToHumanTurn());
  EXPECT_TRUE(session.game().moves().empty());
  EXPECT_FALSE(session.IsHumanTurn());
  session.PlayAiTurns(record);
  EXPECT_TRUE(session.IsHumanTurn());
}

TEST(GameSession, ForcedPassesAndTheResultForThePerson) {
  mcts::UniformEvaluator evaluator;
  const core::GgfRecord record = LastMoveGame();  // black passes, white's b1 ends it B+48
  for (const core::Color human : {core::Color::kBlack, core::Color::kWhite}) {
    GameSession session(evaluator, core::Rules{}, Quick());
    ASSERT_FALSE(session.SetGame(record));
    session.set_human(human);
    std::vector<AutoPly> plies;
    session.PlayAiTurns([&](const AutoPly& ply) { plies.push_back(ply); });
    if (human == core::Color::kBlack) {
      // The person's forced pass, then the AI's last move.
      ASSERT_EQ(plies.size(), 2u);
      EXPECT_TRUE(plies[0].pass);
      EXPECT_EQ(plies[0].PassNote(), "black has no move and passes");
      EXPECT_EQ(plies[1].analysis.best.move, *core::ParseSquare("b1", 8));
      EXPECT_EQ(session.HumanResult(), "You win by 48");
    } else {
      // The AI's forced pass; then the person plays the last move.
      ASSERT_EQ(plies.size(), 1u);
      EXPECT_TRUE(plies[0].pass);
      EXPECT_EQ(plies[0].color, core::Color::kBlack);
      ASSERT_FALSE(session.PlayHuman(*core::ParseSquare("b1", 8)));
      session.PlayAiTurns([&](const AutoPly& ply) { plies.push_back(ply); });
      EXPECT_EQ(plies.size(), 1u);  // nothing is left to play
      EXPECT_EQ(session.HumanResult(), "The AI wins by 48");
    }
    EXPECT_FALSE(session.IsHumanTurn());
    EXPECT_EQ(session.HumanCannotMove()->message, "the game is over");
  }
}

}  // namespace
}  // namespace othello::play
