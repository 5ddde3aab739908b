#pragma once
// The web page's API (`othello-zero serve`), separate from HTTP so it can be tested:
//   GET  /               the page (play/web_page.cpp)
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
// Replies are JSON; bad requests (malformed JSON, wrong types, unknown values, illegal
// moves) get status 400 with {"error": "..."} naming the problem, unknown paths 404,
// wrong methods 405. The game is shared by every client.
// Thread safety: Handle() may be called from many threads (one mutex).
#include <mutex>
#include <string>

#include "mcts/evaluator.h"
#include "play/game_session.h"

namespace othello::play {

// The page (HTML with its script and style), from web_page.cpp.
const char* WebPageHtml();

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
  std::string State() const;
  void AiTurns();  // forced passes and AI moves until the person is to move or the end

  mutable std::mutex mutex_;  // guards everything below
  GameSession session_;
  core::Color human_ = core::Color::kBlack;
  int level_;
  std::string ai_note_;       // the AI's last move and evaluation, for the page
  std::string pass_note_;     // who passed last
};

}  // namespace othello::play
