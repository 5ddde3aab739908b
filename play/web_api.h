#pragma once
// The web page's API (`othello-zero serve`), separate from HTTP so it can be tested.
// docs/play.md, "The web page's JSON API", documents every route and field; in short:
//   GET  /, /index.html, /app.js, /style.css   the page (play/web/), embedded at build time
//   GET  /api/state        the game: board, side to move, legal moves, the line of moves
//                          (played and undone), the evaluation graph, clocks, result
//   POST /api/new          a new game: size, start, mode (human-ai, ai-ai, human-human),
//                          colour, level, clock (time + increment), or a set-up position
//   POST /api/move         a person's move (the AI answers unless "reply": false)
//   POST /api/step         one move of the AI (the page drives model-vs-model this way)
//   POST /api/hints        evaluations of every legal move, with the best move's line
//   POST /api/undo|redo    back / forward by turns; POST /api/goto: to any ply of the line
//   POST /api/pause        stop (or let) the AI move: reviewing a game, watching paused
//   POST /api/load         a transcript or GGF record; GET /api/game: both, for saving
//   POST /api/analysis     analyse the game (or a pasted one) in the background;
//   GET  /api/analysis     its progress and results; POST /api/analysis/cancel
// Replies are JSON but for the page's files; bad requests (malformed JSON, wrong types,
// unknown values, illegal moves, a move out of turn or out of time) get status 400 with
// {"error": "..."} naming the problem, unknown paths 404, wrong methods 405. Work per
// request is bounded by play's limits (play/play_settings.h, the same as the play
// commands'): a hint's playouts by kHintVisits, an analysis's by kAnalysisVisits and
// kExactEmpties; one analysis at a time (a new one cancels the last, and it can be
// cancelled).
// The game is shared by every client: its loop is GameSession's; this class translates
// requests and replies, keeps the clock, the graph's evaluations and the analysis job.
//
// Files: web_api.cpp (routing, requests, the state reply), web_api_game.cpp (the game
// routes), web_api_analysis.cpp (the analysis job and the graph).
// Threads: the analysis runs on a thread of its own (one at most), started by POST
// /api/analysis and joined when it is cancelled, replaced or the WebApi destroyed.
// Thread safety: Handle() may be called from any number of threads at once; the game
// routes are serialised by mutex_, the analysis's state by analysis_mutex_ (so its
// progress is answered while the AI thinks).
// Lifetime: the evaluator must outlive the WebApi.
#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "core/thread_annotations.h"
#include "mcts/evaluator.h"
#include "play/chess_clock.h"
#include "play/game_analysis.h"
#include "play/game_session.h"

namespace othello::play {

struct HttpReply {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
};

// The longest game clock a request may set.
inline constexpr double kMaxClockSeconds = 3 * 3600;

class WebApi {
 public:
  // `rules`: the default game; `level`: the default strength; `trained`: the model's
  // rules, when the evaluator has a model (games of other sizes are refused). `now`:
  // the clocks' time source (tests pass their own).
  WebApi(mcts::Evaluator& evaluator, const core::Rules& rules, int level, std::uint64_t seed,
         std::optional<core::Rules> trained = std::nullopt,
         ChessClock::Now now = ChessClock::SteadySeconds);
  ~WebApi();
  HttpReply Handle(const std::string& method, const std::string& path, const std::string& body);

  enum class Mode { kHumanAi, kAiAi, kHumanHuman };
  struct Request;  // a request's JSON body (web_api.cpp)

 private:
  struct Route;    // a path, its method, its handler and its lock (web_api.cpp)
  // The route of `path` and `method`; nullptr with the methods `path` takes in `allowed`.
  static const Route* FindRoute(const std::string& path, const std::string& method,
                                std::string* allowed);

  // ---- web_api_game.cpp: the game routes, called under mutex_; bad requests throw
  // (answered with 400 by Handle()).
  HttpReply GetState(const Request& request) REQUIRES(mutex_);
  HttpReply NewGame(const Request& request) REQUIRES(mutex_);
  HttpReply Move(const Request& request) REQUIRES(mutex_);
  HttpReply Step(const Request& request) REQUIRES(mutex_);
  HttpReply Hints(const Request& request) REQUIRES(mutex_);
  HttpReply Undo(const Request& request) REQUIRES(mutex_);
  HttpReply Redo(const Request& request) REQUIRES(mutex_);
  HttpReply GoTo(const Request& request) REQUIRES(mutex_);
  HttpReply Pause(const Request& request) REQUIRES(mutex_);
  HttpReply Load(const Request& request) REQUIRES(mutex_);
  HttpReply GetGame(const Request& request) REQUIRES(mutex_);

  // A transcript or GGF record as the game.
  void LoadGame(const std::string& text) REQUIRES(mutex_);
  // One move of the AI's (within its clock), then forced passes.
  void PlayAiPly() REQUIRES(mutex_);
  // Forced passes, the clock of the side to move, notes.
  void AfterPly() REQUIRES(mutex_);
  // After undo, redo, goto and load: notes, a forced pass.
  void AfterNavigation() REQUIRES(mutex_);
  // The AI is to move and may (not paused, not out of time).
  bool AiToMove() REQUIRES(mutex_);
  // The side whose clock ran out, if any.
  std::optional<core::Color> OutOfTime() REQUIRES(mutex_);
  // The game is over, on the board or on time.
  bool Over() REQUIRES(mutex_);
  // Undo and review are off during a timed game.
  void RefuseWhileTimed(const char* what) REQUIRES(mutex_);
  std::optional<std::string> Result() REQUIRES(mutex_);
  // The state of the game, for GET /api/state and replies.
  HttpReply StateReply() REQUIRES(mutex_);

  // ---- web_api_analysis.cpp: the analysis job (its routes take analysis_mutex_ only)
  // and the game graph (under mutex_). StartAnalysis is under mutex_ (it may load a game).
  HttpReply StartAnalysis(const Request& request) REQUIRES(mutex_) EXCLUDES(job_mutex_);
  HttpReply GetAnalysis(const Request& request) EXCLUDES(analysis_mutex_);
  HttpReply CancelAnalysis(const Request& request) EXCLUDES(job_mutex_);
  void StopAnalysis() EXCLUDES(job_mutex_);  // stops and joins the job, if one runs
  // The job's progress and results (JSON text).
  std::string AnalysisJson() EXCLUDES(analysis_mutex_);
  std::string GraphJson() REQUIRES(mutex_);  // evaluations after every ply of the line

  mcts::Evaluator& evaluator_;
  ChessClock::Now now_;

  // Taken in this order: mutex_, job_mutex_, analysis_mutex_.
  core::Mutex mutex_;       // the game routes'
  GameSession session_ GUARDED_BY(mutex_);
  int level_ GUARDED_BY(mutex_);
  Mode mode_ GUARDED_BY(mutex_) = Mode::kHumanAi;
  // The AI does not move (reviewing, or watching paused).
  bool paused_ GUARDED_BY(mutex_) = false;
  std::optional<ChessClock> clock_ GUARDED_BY(mutex_);  // a timed game's
  std::string ai_note_ GUARDED_BY(mutex_);  // the AI's last move and evaluation, for the page
  std::string pass_note_ GUARDED_BY(mutex_);  // who passed last
  std::map<std::uint64_t, PositionValue> graph_ GUARDED_BY(mutex_);  // by position hash

  core::Mutex job_mutex_;   // serialises starting and stopping the job
  std::thread job_ GUARDED_BY(job_mutex_);
  std::atomic<bool> job_stop_{false};
  core::Mutex analysis_mutex_;  // the job's results below
  core::Game job_game_ GUARDED_BY(analysis_mutex_);  // the game analysed
  AnalysisOptions job_options_ GUARDED_BY(analysis_mutex_);
  GameAnalysis job_result_ GUARDED_BY(analysis_mutex_);
  // none, running, done, cancelled, failed
  std::string job_state_ GUARDED_BY(analysis_mutex_) = "none";
  std::string job_error_ GUARDED_BY(analysis_mutex_);
};

}  // namespace othello::play
