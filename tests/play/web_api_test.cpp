// The web page's JSON API (play/web_api.h) without HTTP: modes, model moves step by
// step, hints, the line and going back along it, set-up positions, save and load, the
// chess clock (with a fake time source), the evaluation graph, the analysis job, and
// the 400 replies that name what is wrong. The uniform evaluator stands in for a network.
#include <chrono>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/notation.h"
#include "mcts/evaluator.h"
#include "play/chess_clock.h"
#include "play/web_api.h"

namespace othello::play {
namespace {

using nlohmann::json;

class WebApiTest : public ::testing::Test {
 protected:
  WebApiTest() : api_(evaluator_, core::Rules{}, /*level=*/3, /*seed=*/1, core::Rules{}, [this] { return now_; }) {}

  json Ok(const std::string& method, const std::string& path, const json& body = json::object()) {
    const HttpReply reply = api_.Handle(method, path, method == "GET" ? "" : body.dump());
    EXPECT_EQ(reply.status, 200) << method << " " << path << " " << body.dump() << ": " << reply.body;
    return json::parse(reply.body);
  }
  json Post(const std::string& path, const json& body = json::object()) { return Ok("POST", path, body); }
  json State() { return Ok("GET", "/api/state"); }
  // The error of a request that must be refused with 400.
  std::string Refused(const std::string& path, const std::string& body) {
    const HttpReply reply = api_.Handle("POST", path, body);
    EXPECT_EQ(reply.status, 400) << path << " " << body << ": " << reply.body;
    return json::parse(reply.body).value("error", "");
  }
  json WaitForAnalysis() {
    for (int i = 0; i < 6000; ++i) {
      json a = Ok("GET", "/api/analysis");
      if (a["state"] != "running") return a;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ADD_FAILURE() << "the analysis did not end";
    return {};
  }

  mcts::UniformEvaluator evaluator_;
  double now_ = 1000;  // the clocks' time, seconds
  WebApi api_;
};

TEST_F(WebApiTest, APersonAgainstTheModelWithTheModelMovingStepByStep) {
  json s = Post("/api/new", {{"mode", "human-ai"}, {"color", "white"}, {"wait", true}});
  EXPECT_EQ(s["players"]["black"], "ai");
  EXPECT_EQ(s["players"]["white"], "human");
  EXPECT_TRUE(s["ai_to_move"]);
  EXPECT_TRUE(s["legal"].empty());
  EXPECT_NE(Refused("/api/move", R"({"move": "f5"})").find("not your turn"), std::string::npos);
  s = Post("/api/step");
  EXPECT_EQ(s["moves"].size(), 1u);
  EXPECT_FALSE(s["ai_to_move"]);
  EXPECT_EQ(s["legal"].size(), 3u);  // white's replies to any opening move
  EXPECT_NE(Refused("/api/step", "{}").find("not the AI's turn"), std::string::npos);
  // The person's move without the reply, then with it (the default).
  s = Post("/api/move", {{"move", s["legal"][0]}, {"reply", false}});
  EXPECT_EQ(s["moves"].size(), 2u);
  EXPECT_TRUE(s["ai_to_move"]);
  s = Post("/api/step");
  s = Post("/api/move", {{"move", s["legal"][0]}});
  EXPECT_EQ(s["moves"].size(), 5u);
  EXPECT_EQ(s["graph"].size(), 5u);  // one evaluation per ply
  EXPECT_EQ(s["graph"][4]["ply"], 5);
}

TEST_F(WebApiTest, ModelAgainstModelPlaysToTheEndOneMoveAtATime) {
  json s = Post("/api/new", {{"mode", "ai-ai"}, {"size", 8}, {"level", 1}});
  EXPECT_TRUE(s["ai_to_move"]);  // nothing played before the page asks
  EXPECT_TRUE(s["moves"].empty());
  int steps = 0;
  while (!s["over"] && steps < 80) {
    s = Post("/api/step");
    ++steps;
  }
  EXPECT_TRUE(s["over"]);
  EXPECT_GE(steps, 30);
  EXPECT_NE(s["result"].get<std::string>().find("wins"), std::string::npos) << s["result"];
  EXPECT_EQ(s["graph"].size(), s["line"].size());
  EXPECT_TRUE(s["graph"].back()["exact"]);  // the end is known exactly
  // Pausing stops the model; undo while watching pauses too.
  s = Post("/api/new", {{"mode", "ai-ai"}});
  s = Post("/api/pause", {{"paused", true}});
  EXPECT_FALSE(s["ai_to_move"]);
  EXPECT_TRUE(s["paused"]);
  s = Post("/api/pause", {{"paused", false}});
  EXPECT_TRUE(s["ai_to_move"]);
  EXPECT_NE(Refused("/api/pause", "{}").find("'paused'"), std::string::npos);
}

TEST_F(WebApiTest, TwoPeopleWithHintsForEitherSide) {
  json s = Post("/api/new", {{"mode", "human-human"}});
  EXPECT_EQ(s["legal"].size(), 4u);
  s = Post("/api/move", {{"move", "f5"}});
  EXPECT_EQ(s["moves"].size(), 1u);  // nobody answers
  EXPECT_EQ(s["to_move"], "white");
  const json hints = Post("/api/hints", {{"visits", 64}});
  EXPECT_EQ(hints["hints"].size(), 3u);
  EXPECT_EQ(hints["to_move"], "white");
  EXPECT_GE(hints["playouts"].get<int>(), 64);
  EXPECT_FALSE(hints["pv"].empty());
  EXPECT_EQ(hints["pv"][0], hints["best"]);
  for (const json& h : hints["hints"]) {
    EXPECT_TRUE(h.contains("discs") && h.contains("win") && h.contains("visits")) << h;
  }
  EXPECT_NE(Refused("/api/hints", R"({"visits": 1000001})").find("'visits' must be from 1 to 1000000"),
            std::string::npos);
  // Undo takes one ply back, as either person may have moved.
  s = Post("/api/undo");
  EXPECT_TRUE(s["moves"].empty());
  EXPECT_EQ(s["line"].size(), 1u);
  EXPECT_EQ(s["result"], nullptr);
}

TEST_F(WebApiTest, GoingAlongTheLineAndContinuingFromAnEarlierPosition) {
  Post("/api/new", {{"mode", "human-human"}});
  for (const char* move : {"f5", "d6", "c3", "d3", "c4"}) Post("/api/move", {{"move", move}});
  json s = Post("/api/goto", {{"ply", 2}});
  EXPECT_EQ(s["moves"], json::array({"f5", "d6"}));
  EXPECT_EQ(s["line"].size(), 5u);
  EXPECT_EQ(s["ply"], 2);
  EXPECT_TRUE(s["can_redo"]);
  s = Post("/api/goto", {{"ply", 5}});
  EXPECT_EQ(s["moves"].size(), 5u);
  EXPECT_NE(Refused("/api/goto", R"({"ply": 6})").find("'ply' must be from 0 to 5"), std::string::npos);
  EXPECT_NE(Refused("/api/goto", "{}").find("'ply' is missing"), std::string::npos);
  // A different move at ply 2 replaces the rest of the line.
  Post("/api/goto", {{"ply", 2}});
  s = Post("/api/move", {{"move", "c5"}});
  EXPECT_EQ(s["line"], json::array({"f5", "d6", "c5"}));
  EXPECT_FALSE(s["can_redo"]);
}

TEST_F(WebApiTest, ForcedPassesArePlayedAlsoAfterGoingBack) {
  // Black has no move; white's b1 (flanking c1-g1 against h1) ends the game.
  const std::string board = "O-XXXXXO" + std::string(56, 'X');
  json s = Post("/api/new", {{"mode", "human-human"}, {"board", board}, {"to_move", "black"}});
  EXPECT_EQ(s["moves"], json::array({"pass"}));
  EXPECT_EQ(s["pass"], "black has no move and passes");
  EXPECT_EQ(s["legal"], json::array({"b1"}));
  s = Post("/api/move", {{"move", "b1"}});
  EXPECT_TRUE(s["over"]);
  for (const char* route : {"/api/undo", "/api/goto"}) {
    s = Post(route, {{"ply", 0}});
    EXPECT_EQ(s["moves"], json::array({"pass"})) << route;  // never stuck where one must pass
    EXPECT_EQ(s["legal"], json::array({"b1"})) << route;
    EXPECT_EQ(s["line"], json::array({"pass", "b1"})) << route;
  }
  s = Post("/api/redo");
  EXPECT_TRUE(s["over"]);
}

TEST_F(WebApiTest, ASetUpPositionIsPlayedFromAndSavedAsGgf) {
  // The standard centre and a corner chance for black at h8, set up by hand. (While a
  // centre square is empty the position is in the reversi placement phase.)
  std::string board(64, '-');
  for (const char* sq : {"d4", "e5", "h7"}) board[*core::ParseSquare(sq, 8)] = 'O';
  for (const char* sq : {"e4", "d5", "h6"}) board[*core::ParseSquare(sq, 8)] = 'X';
  json s = Post("/api/new", {{"mode", "human-human"}, {"board", board}, {"to_move", "black"}});
  EXPECT_EQ(s["board"], board);
  EXPECT_EQ(s["start_board"], board);
  EXPECT_EQ(s["legal"], json::array({"d3", "c4", "f5", "e6", "h8"}));
  s = Post("/api/move", {{"move", "h8"}});
  const json game = Ok("GET", "/api/game");
  EXPECT_FALSE(game["transcript_complete"]);  // a transcript cannot hold the start
  EXPECT_NE(game["ggf"].get<std::string>().find("BO[8 "), std::string::npos);
  // Load it back: the same start and moves.
  Post("/api/new", {{"mode", "human-human"}});
  s = Post("/api/load", {{"game", game["ggf"]}});
  EXPECT_EQ(s["start_board"], board);
  EXPECT_EQ(s["moves"], json::array({"h8"}));
  EXPECT_TRUE(s["paused"]);
  // Bad set-ups are named.
  EXPECT_NE(Refused("/api/new", R"({"board": "XO"})").find("board:"), std::string::npos);
  EXPECT_NE(Refused("/api/new", "{\"board\": \"" + std::string(36, '-') + "\"}").find("a 6x6 board for a 8x8 game"),
            std::string::npos);
  EXPECT_NE(Refused("/api/new", "{\"board\": \"" + std::string(64, 'X') + "\"}").find("is over"),
            std::string::npos);
  EXPECT_NE(Refused("/api/new", R"({"board": "x", "to_move": "red"})").find("to_move must be black or white"),
            std::string::npos);
}

TEST_F(WebApiTest, SaveAndLoadTranscriptsAndGgfRoundTrip) {
  Post("/api/new", {{"mode", "human-human"}});
  for (const char* move : {"f5", "f6", "e6", "f4"}) Post("/api/move", {{"move", move}});
  const json saved = Ok("GET", "/api/game");
  EXPECT_EQ(saved["transcript"], "f5f6e6f4");
  EXPECT_TRUE(saved["transcript_complete"]);
  Post("/api/new", {{"mode", "human-human"}});
  json s = Post("/api/load", {{"game", saved["transcript"]}});
  EXPECT_EQ(s["moves"], json::array({"f5", "f6", "e6", "f4"}));
  Post("/api/new", {{"mode", "human-human"}});
  s = Post("/api/load", {{"game", saved["ggf"]}});
  EXPECT_EQ(s["moves"], json::array({"f5", "f6", "e6", "f4"}));
  EXPECT_EQ(Ok("GET", "/api/game")["ggf"], saved["ggf"]);
  // Bad records are named, and the game is kept.
  EXPECT_NE(Refused("/api/load", R"({"game": "f5f6a1"})").find("transcript:"), std::string::npos);
  EXPECT_NE(Refused("/api/load", R"x({"game": "(;GM[Othello]BO[8 junk];)"})x").find("GGF:"), std::string::npos);
  EXPECT_NE(Refused("/api/load", R"({"game": "  "})").find("empty"), std::string::npos);
  EXPECT_NE(Refused("/api/load", "{}").find("'game' is missing"), std::string::npos);
  EXPECT_EQ(State()["moves"].size(), 4u);
}

TEST_F(WebApiTest, ThePersonsClockRunsAndTheSideOutOfTimeLoses) {
  json s = Post("/api/new", {{"mode", "human-human"}, {"time", 10}, {"increment", 2}});
  EXPECT_EQ(s["clock"]["running"], "black");
  EXPECT_DOUBLE_EQ(s["clock"]["black"].get<double>(), 10);
  now_ += 3;
  s = Post("/api/move", {{"move", "f5"}});
  EXPECT_DOUBLE_EQ(s["clock"]["black"].get<double>(), 9);  // 10 - 3 + 2
  EXPECT_EQ(s["clock"]["running"], "white");
  EXPECT_NE(Refused("/api/undo", "{}").find("undo is off during a timed game"), std::string::npos);
  EXPECT_NE(Refused("/api/goto", R"({"ply": 0})").find("off during a timed game"), std::string::npos);
  now_ += 10.5;  // white's bank runs out while it thinks
  s = State();
  EXPECT_TRUE(s["over"]);
  EXPECT_EQ(s["clock"]["flagged"], "white");
  EXPECT_EQ(s["result"], "White ran out of time: black wins");
  EXPECT_NE(Refused("/api/move", R"({"move": "d6"})").find("white ran out of time"), std::string::npos);
  EXPECT_TRUE(Post("/api/undo")["can_redo"]);  // after the game, review is allowed again
}

TEST_F(WebApiTest, TheModelIsChargedItsSearchTimeAndLosesOnTimeAgainstAPerson) {
  json s = Post("/api/new", {{"mode", "human-ai"}, {"color", "black"}, {"time", 5}});
  now_ += 100;  // the person's clock ran out
  s = State();
  EXPECT_EQ(s["result"], "You ran out of time: the AI wins");
  EXPECT_FALSE(s["ai_to_move"]);
  s = Post("/api/new", {{"mode", "human-ai"}, {"color", "black"}, {"time", 5}});
  now_ += 1;
  s = Post("/api/move", {{"move", "f5"}, {"reply", false}});
  now_ += 60;  // the page waited before asking for the model's move: not the model's time
  s = Post("/api/step");
  EXPECT_EQ(s["moves"].size(), 2u);
  EXPECT_GT(s["clock"]["white"].get<double>(), 4.0);
  EXPECT_EQ(s["clock"]["running"], "black");
  EXPECT_NE(Refused("/api/new", R"({"time": -1})").find("'time' must be from 0"), std::string::npos);
  EXPECT_NE(Refused("/api/new", R"({"increment": 2})").find("needs a time"), std::string::npos);
}

TEST(WebApi, TenByTenGamesWithoutAModelOfOneSize) {
  mcts::UniformEvaluator evaluator;
  core::Rules rules;
  rules.size = 10;
  WebApi api(evaluator, rules, /*level=*/2, /*seed=*/1);
  json s = json::parse(api.Handle("POST", "/api/new", R"({"mode": "human-human", "size": 10})").body);
  EXPECT_EQ(s["sizes"], json::array({6, 8, 10}));
  EXPECT_EQ(s["board"].get<std::string>().size(), 100u);
  EXPECT_EQ(s["legal"], json::array({"e4", "d5", "g6", "f7"}));
  s = json::parse(api.Handle("POST", "/api/move", R"({"move": "g6"})").body);
  EXPECT_EQ(s["moves"], json::array({"g6"}));
  EXPECT_EQ(s["graph"].size(), 1u);
  const json hints = json::parse(api.Handle("POST", "/api/hints", R"({"visits": 20})").body);
  EXPECT_EQ(hints["hints"].size(), 3u);
  s = json::parse(api.Handle("POST", "/api/new", R"({"mode": "human-human", "size": 6})").body);
  EXPECT_EQ(s["size"], 6);
}

// A network's cost without a network: the uniform evaluator, 2 ms a batch.
class SlowEvaluator : public mcts::UniformEvaluator {
 public:
  void Submit(mcts::EvalBatch& batch) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    UniformEvaluator::Submit(batch);
  }
};

// With a bank far smaller than its level's playouts need (1,024 playouts a move, at 2 ms
// for 8 leaves: about 0.25 s), the model spends a share of its bank a move and finishes
// the game on the clock, with a real time source.
TEST(WebApi, TheModelSpendsItsBankSoThatItLasts) {
  SlowEvaluator evaluator;
  core::Rules rules;
  rules.size = 6;
  WebApi api(evaluator, rules, /*level=*/10, /*seed=*/1);
  json s = json::parse(api.Handle("POST", "/api/new", R"({"mode": "ai-ai", "time": 1.5, "increment": 0})").body);
  double least_left = 1.5;
  while (!s["over"]) {
    const HttpReply reply = api.Handle("POST", "/api/step", "");
    ASSERT_EQ(reply.status, 200) << reply.body;
    s = json::parse(reply.body);
    for (const char* side : {"black", "white"}) least_left = std::min(least_left, s["clock"][side].get<double>());
  }
  EXPECT_EQ(s["clock"]["flagged"], nullptr) << s.dump();
  EXPECT_EQ(s["result"].get<std::string>().find("time"), std::string::npos) << s["result"];
  EXPECT_GT(least_left, 0.0);
  EXPECT_LT(least_left, 1.2);  // and it used its time
}

TEST(ChessClock, BanksIncrementsAndTheFlag) {
  double now = 0;
  ChessClock clock(TimeControl{60, 1}, [&] { return now; });
  clock.Start(core::Color::kBlack);
  now = 10;
  EXPECT_DOUBLE_EQ(clock.Remaining(core::Color::kBlack), 50);
  EXPECT_TRUE(clock.Charge(core::Color::kBlack));
  EXPECT_DOUBLE_EQ(clock.Remaining(core::Color::kBlack), 51);
  EXPECT_TRUE(clock.Charge(core::Color::kWhite, 2.5));  // the AI's search time
  EXPECT_DOUBLE_EQ(clock.Remaining(core::Color::kWhite), 58.5);
  EXPECT_FALSE(clock.running());
  EXPECT_FALSE(clock.Flagged());
  clock.Start(core::Color::kWhite);
  now = 100;
  EXPECT_EQ(clock.Flagged(), core::Color::kWhite);
  EXPECT_DOUBLE_EQ(clock.Remaining(core::Color::kWhite), 0);
  EXPECT_FALSE(clock.Charge(core::Color::kWhite, 0));
  // The model's budget is a share of its bank that keeps a reserve.
  const MoveClock move = ChessClock(TimeControl{300, 3}).ForMove(core::Color::kBlack);
  const double budget = move.Budget(core::Position::Standard(8));
  EXPECT_GT(budget, 3);
  EXPECT_LT(budget, 20);
}

TEST_F(WebApiTest, AnalysisRunsInTheBackgroundAndFindsTheLossesTheSolverProves) {
  Post("/api/new", {{"mode", "ai-ai"}, {"level", 1}});
  json s;
  do {
    s = Post("/api/step");
  } while (!s["over"]);
  const std::size_t plies = s["line"].size();
  const json started = Post("/api/analysis", {{"visits", 16}, {"exact_empties", 10}});
  EXPECT_EQ(started["total"], static_cast<int>(plies) + 1);
  // The game routes answer while it runs.
  EXPECT_EQ(State()["line"].size(), plies);
  const json a = WaitForAnalysis();
  ASSERT_EQ(a["state"], "done") << a.dump();
  ASSERT_EQ(a["plies"].size(), plies);
  EXPECT_EQ(a["moves"], s["line"]);
  int exact = 0;
  for (const json& p : a["plies"]) {
    EXPECT_GE(p["loss"].get<double>(), 0);
    if (p["exact"]) ++exact;
  }
  EXPECT_GE(exact, 8);  // the last plies, from 10 empties on
  EXPECT_TRUE(a["totals"].contains("black") && a["totals"]["white"].contains("blunders"));
  // Bounds and bad values.
  EXPECT_NE(Refused("/api/analysis", R"({"visits": 1000001})").find("'visits' must be from 1 to 1000000"),
            std::string::npos);
  EXPECT_NE(Refused("/api/analysis", R"({"exact_empties": 30})").find("'exact_empties'"), std::string::npos);
  EXPECT_NE(Refused("/api/analysis", R"({"game": "f5zz"})").find("transcript:"), std::string::npos);
  Post("/api/new", {{"mode", "human-human"}});
  EXPECT_NE(Refused("/api/analysis", "{}").find("no move to analyse"), std::string::npos);
}

TEST_F(WebApiTest, APastedGameIsLoadedAndItsAnalysisCanBeCancelled) {
  const json started = Post("/api/analysis", {{"game", "f5d6c3d3c4f4f6f3e6e7d7"}, {"visits", 2000}});
  EXPECT_EQ(started["state"], "running");
  EXPECT_EQ(State()["moves"].size(), 11u);  // the pasted game is now the board's
  const json cancelled = Post("/api/analysis/cancel");
  EXPECT_EQ(cancelled["state"], "cancelled");
  EXPECT_LT(cancelled["done"].get<int>(), 12);
  EXPECT_EQ(Ok("GET", "/api/analysis")["state"], "cancelled");
  // A second analysis replaces a running one.
  Post("/api/analysis", {{"visits", 2000}});
  const json second = Post("/api/analysis", {{"visits", 8}});
  EXPECT_EQ(second["visits"], 8);
  EXPECT_EQ(WaitForAnalysis()["state"], "done");
}

TEST_F(WebApiTest, BadRequestsAreNamed) {
  EXPECT_NE(Refused("/api/new", R"({"mode": "robots"})").find("mode 'robots'"), std::string::npos);
  EXPECT_NE(Refused("/api/new", R"({"level": 11})").find("'level' must be from 1 to 10"), std::string::npos);
  EXPECT_NE(Refused("/api/new", R"({"level": 1.5})").find("'level' must be an integer"), std::string::npos);
  EXPECT_NE(Refused("/api/new", R"({"time": "5"})").find("'time' must be a number"), std::string::npos);
  EXPECT_NE(Refused("/api/move", R"({"move": "f5", "reply": 1})").find("'reply' must be true or false"),
            std::string::npos);
  EXPECT_NE(Refused("/api/move", R"({"move":)").find("malformed JSON"), std::string::npos);
  EXPECT_EQ(api_.Handle("GET", "/api/analysis/cancel", "").status, 405);
  EXPECT_EQ(api_.Handle("DELETE", "/api/analysis", "").status, 405);
  EXPECT_NE(api_.Handle("DELETE", "/api/analysis", "").body.find("POST or GET"), std::string::npos);
  EXPECT_EQ(api_.Handle("GET", "/api/nothing", "").status, 404);
}

}  // namespace
}  // namespace othello::play
