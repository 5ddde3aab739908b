#pragma once
// The web page's API (`othello-zero serve`), separate from HTTP so it can be tested:
//   GET  /, /index.html  the page (play/web/index.html)
//   GET  /app.js         its script (play/web/app.js)
//   GET  /style.css      its style sheet (play/web/style.css)
//   GET  /api/state      the game: board, side to move, legal moves, move list, counts,
//                        last move, result, transcript, the AI's last evaluation, and
//                        the board sizes a new game may have (the model's)
//   POST /api/new        {"size": 8, "start": "standard", "color": "black", "level": 6}
//                        (a size the model was not trained for is refused)
//   POST /api/move       {"move": "f5"}: the person's move; forced passes are played and
//                        the AI answers until it is the person's turn or the game ends
//   POST /api/hints      evaluations of every legal move (win probability, discs, visits)
//   POST /api/undo       back to the person's previous turn
//   POST /api/redo       forward again to the person's next turn
// The page's files are embedded at build time (play/web_files.h). Replies are JSON, but
// for the page's files; bad requests (malformed JSON, wrong types, unknown values,
// illegal moves) get status 400 with {"error": "..."} naming the problem, unknown paths
// 404, wrong methods 405. The game is shared by every client: the game loop is
// GameSession's, this class only translates requests and replies.
// Thread safety: Handle() may be called from any number of threads at once; the API
// calls of the game are serialised by one mutex (the page's files need none).
// Lifetime: the evaluator must outlive the WebApi.
#include <mutex>
#include <string>

#include "mcts/evaluator.h"
#include "play/game_session.h"

namespace othello::play {

struct HttpReply {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
};

class WebApi {
 public:
  // `rules`: the default game; `level`: the default strength; `trained`: the model's
  // rules, when the evaluator has a model (games of other sizes are refused).
  WebApi(mcts::Evaluator& evaluator, const core::Rules& rules, int level, std::uint64_t seed,
         std::optional<core::Rules> trained = std::nullopt);
  HttpReply Handle(const std::string& method, const std::string& path, const std::string& body);

 private:
  struct Request;  // a request's JSON body (web_api.cpp)
  struct Route;    // a path, its method and its handler (web_api.cpp)
  static const Route* FindRoute(const std::string& path);

  // One method per route of the API, called under mutex_; bad requests throw
  // (answered with 400 by Handle()).
  HttpReply GetState(const Request& request);
  HttpReply NewGame(const Request& request);
  HttpReply Move(const Request& request);
  HttpReply Hints(const Request& request);
  HttpReply Undo(const Request& request);
  HttpReply Redo(const Request& request);

  HttpReply StateReply() const;  // the state of the game, for GET /api/state and replies
  void PlayAiTurns();            // the AI's turns (GameSession's), noted for the page

  std::mutex mutex_;        // guards everything below
  GameSession session_;
  int level_;
  std::string ai_note_;     // the AI's last move and evaluation, for the page
  std::string pass_note_;   // who passed last
};

}  // namespace othello::play
