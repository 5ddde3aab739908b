// WebApi: the game routes, each called under mutex_ (play/web_api.h).
#include <cstdio>

#include "core/ggf.h"
#include "core/notation.h"
#include "core/rules.h"
#include "play/web_api.h"
#include "play/web_json.h"

namespace othello::play {

using web::BadRequest;
using web::json;

namespace {

// The rules of a new game asked for in `request`, from the current game's `rules`.
core::Rules NewGameRules(const json& request, core::Rules rules) {
  rules.size = web::IntField(request, "size", rules.size, 0, 100);
  auto start = core::ParseStartKind(web::StringField(request, "start", "standard"));
  if (!start) throw BadRequest{"start: " + start.error()};
  rules.start = *start;
  rules.random_moves = 8;
  rules.handicap = rules.start == core::StartKind::kHandicap ? 1 : 0;
  return rules;
}

core::Color ColorField(const json& request, const char* key, const char* fallback) {
  const std::string color = web::StringField(request, key, fallback);
  if (color != "black" && color != "white") throw BadRequest{std::string(key) + " must be black or white"};
  return color == "black" ? core::Color::kBlack : core::Color::kWhite;
}

WebApi::Mode ModeField(const json& request) {
  const std::string mode = web::StringField(request, "mode", "human-ai");
  if (mode == "human-ai") return WebApi::Mode::kHumanAi;
  if (mode == "ai-ai") return WebApi::Mode::kAiAi;
  if (mode == "human-human") return WebApi::Mode::kHumanHuman;
  throw BadRequest{"mode '" + mode + "' is not human-ai, ai-ai or human-human"};
}

// The time control asked for: "time" seconds per side (0 or absent: untimed) and
// "increment" seconds per move.
std::optional<TimeControl> ClockField(const json& request) {
  TimeControl control;
  control.main_seconds = web::NumberField(request, "time", 0, 0, kMaxClockSeconds);
  control.increment_seconds = web::NumberField(request, "increment", 0, 0, 600);
  if (control.main_seconds == 0) {
    if (control.increment_seconds > 0) throw BadRequest{"an increment needs a time ('time' > 0)"};
    return std::nullopt;
  }
  return control;
}

// A set-up position: "board" (X, O and - for the squares, a1 first, row by row) and
// "to_move"; its size must be the game's.
core::Position SetUpPosition(const json& request, int size) {
  const std::string board = web::StringField(request, "board", "");
  const core::Color to_move = ColorField(request, "to_move", "black");
  auto position = core::ParseBoardString(board + (to_move == core::Color::kBlack ? " X" : " O"));
  if (!position) throw BadRequest{"board: " + position.error()};
  if (position->size() != size) {
    throw BadRequest{"board: a " + std::to_string(position->size()) + "x" +
                     std::to_string(position->size()) + " board for a " + std::to_string(size) +
                     "x" + std::to_string(size) + " game"};
  }
  if (position->IsGameOver()) throw BadRequest{"board: the position is over (neither side has a move)"};
  return *position;
}

std::string AiNote(const MoveEvaluation& best, int size) {
  char note[160];
  std::snprintf(note, sizeof note, "AI played %s: win %.0f%%, discs %s%s",
                core::SquareName(best.move, size).c_str(), 100 * best.win_probability,
                FormatDiscs(best.discs).c_str(), best.exact ? " (exact)" : "");
  return note;
}

json MoveJson(const MoveEvaluation& m, int size) {
  return {{"move", core::SquareName(m.move, size)}, {"win", m.win_probability},
          {"discs", m.discs}, {"exact", m.exact}, {"visits", m.visits}};
}

}  // namespace

// ------------------------------------------------------------- the clock and the turn

std::optional<core::Color> WebApi::OutOfTime() {
  if (!clock_ || session_.game().IsOver()) return std::nullopt;
  return clock_->Flagged();
}

bool WebApi::Over() { return session_.game().IsOver() || OutOfTime().has_value(); }

bool WebApi::AiToMove() { return session_.IsAiTurn() && !paused_ && !OutOfTime(); }

void WebApi::RefuseWhileTimed(const char* what) {
  if (clock_ && !Over()) throw BadRequest{std::string(what) + " is off during a timed game"};
}

std::optional<std::string> WebApi::Result() {
  if (auto loser = OutOfTime()) {
    const bool against_ai = mode_ == Mode::kHumanAi;
    if (against_ai) {
      return session_.IsAi(*loser) ? "The AI ran out of time: you win" : "You ran out of time: the AI wins";
    }
    const std::string name = *loser == core::Color::kBlack ? "Black" : "White";
    return name + " ran out of time: " + (*loser == core::Color::kBlack ? "white" : "black") + " wins";
  }
  return session_.HumanResult();
}

void WebApi::AfterPly() {
  session_.PlayForcedPasses(
      [this](const AutoPly& ply) REQUIRES(mutex_) { pass_note_ = ply.PassNote(); });
  if (!clock_) return;
  if (session_.game().IsOver()) {
    clock_->Pause();
  } else if (session_.IsHumanTurn()) {
    clock_->Start(session_.game().position().side_to_move());
  } else {
    clock_->Pause();  // the AI is charged its search time only
  }
}

void WebApi::AfterNavigation() {
  ai_note_.clear();
  pass_note_.clear();
  const core::Color mover = session_.game().position().side_to_move();
  if (session_.SkipForcedPass()) pass_note_ = AutoPly{mover, /*pass=*/true, {}}.PassNote();
}

void WebApi::PlayAiPly() {
  const core::Color side = session_.game().position().side_to_move();
  const double budget = clock_ ? std::max(0.001, clock_->ForMove(side).Budget(session_.game().position())) : 0;
  const Analysis analysis = session_.Analyze(budget);
  if (clock_ && !clock_->Charge(side, analysis.seconds)) return;  // lost on time
  session_.Play(analysis.best.move);
  ai_note_ = AiNote(analysis.best, session_.rules().size);
  AfterPly();
}

// ------------------------------------------------------------- the routes

HttpReply WebApi::GetState(const Request&) { return StateReply(); }

HttpReply WebApi::NewGame(const Request& request) {
  const json& body = request.body;
  const core::Rules rules = NewGameRules(body, session_.rules());
  const Mode mode = ModeField(body);
  const core::Color human = ColorField(body, "color", "black");
  const int level = web::SettingField(body, kLevel, level_);
  const std::optional<TimeControl> control = ClockField(body);
  const bool wait = web::BoolField(body, "wait", false);
  std::optional<core::Error> error;
  if (body.contains("board")) {
    core::GgfRecord record;
    record.rules = rules;
    record.rules.start = core::StartKind::kStandard;
    record.start = SetUpPosition(body, rules.size);
    error = session_.SetGame(record);
  } else {
    error = session_.NewGame(rules);
  }
  if (error) throw BadRequest{error->message};
  mode_ = mode;
  session_.set_players(mode == Mode::kAiAi || (mode == Mode::kHumanAi && human == core::Color::kWhite),
                       mode == Mode::kAiAi || (mode == Mode::kHumanAi && human == core::Color::kBlack));
  level_ = level;
  session_.set_strength(StrengthForLevel(level));
  ai_note_.clear();
  pass_note_.clear();
  paused_ = false;
  clock_.reset();
  if (control) clock_.emplace(*control, now_);
  AfterPly();
  // Against a person the AI answers at once (the page may also let it move by /api/step).
  if (mode == Mode::kHumanAi && !wait) {
    while (AiToMove()) PlayAiPly();
  }
  return StateReply();
}

HttpReply WebApi::Move(const Request& request) {
  if (!request.body.contains("move")) throw BadRequest{"field 'move' is missing"};
  const std::string text = web::StringField(request.body, "move", "");
  const bool reply = web::BoolField(request.body, "reply", true);
  if (auto loser = OutOfTime()) throw BadRequest{std::string(core::ColorName(*loser)) + " ran out of time"};
  if (auto refused = session_.HumanCannotMove()) throw BadRequest{refused->message};
  auto move = core::ParseSquare(text, session_.rules().size);
  if (!move) throw BadRequest{move.error()};
  const core::Color side = session_.game().position().side_to_move();
  core::Game trial = session_.game();  // an illegal move costs no time
  if (auto error = trial.Play(*move)) throw BadRequest{error->message};
  if (clock_ && !clock_->Charge(side)) throw BadRequest{std::string(core::ColorName(side)) + " ran out of time"};
  if (auto error = session_.PlayHuman(*move)) throw BadRequest{error->message};
  pass_note_.clear();
  paused_ = false;
  AfterPly();
  if (reply) {
    while (AiToMove()) PlayAiPly();
  }
  return StateReply();
}

HttpReply WebApi::Step(const Request&) {
  if (Over()) throw BadRequest{"the game is over"};
  if (!session_.IsAiTurn()) throw BadRequest{"it is not the AI's turn"};
  paused_ = false;
  PlayAiPly();
  return StateReply();
}

HttpReply WebApi::Hints(const Request& request) {
  const std::uint64_t visits = web::SettingField(request.body, kHintVisits, kHintVisits.value);
  if (Over()) throw BadRequest{"the game is over"};
  if (!session_.game().position().HasLegalMove()) throw BadRequest{"the side to move has no move"};
  const Analysis analysis = session_.Hints(visits);
  const int size = session_.rules().size;
  json hints = json::array();
  for (const MoveEvaluation& m : analysis.moves) hints.push_back(MoveJson(m, size));
  json pv = json::array();
  for (core::Square sq : analysis.pv) pv.push_back(core::SquareName(sq, size));
  return web::JsonReply(json{{"hints", hints},
                             {"best", core::SquareName(analysis.best.move, size)},
                             {"pv", pv},
                             {"to_move", core::ColorName(session_.game().position().side_to_move())},
                             {"playouts", analysis.playouts}});
}

HttpReply WebApi::Undo(const Request&) {
  RefuseWhileTimed("undo");
  if (!session_.UndoToHumanTurn()) throw BadRequest{"nothing to undo"};
  AfterNavigation();
  paused_ = mode_ == Mode::kAiAi;  // watching: stop there
  if (mode_ == Mode::kHumanAi) {
    while (AiToMove()) PlayAiPly();  // when the person's earlier turn is not reachable
  }
  return StateReply();
}

HttpReply WebApi::Redo(const Request&) {
  RefuseWhileTimed("redo");
  if (!session_.RedoToHumanTurn()) throw BadRequest{"nothing to redo"};
  AfterNavigation();
  paused_ = session_.can_redo() || mode_ == Mode::kAiAi;
  return StateReply();
}

HttpReply WebApi::GoTo(const Request& request) {
  RefuseWhileTimed("going back");
  if (!request.body.contains("ply")) throw BadRequest{"field 'ply' is missing"};
  const int line = static_cast<int>(session_.Line().size());
  const int ply = web::IntField(request.body, "ply", 0, 0, line);
  session_.GoTo(static_cast<std::size_t>(ply));
  AfterNavigation();
  // Back along the line the model waits; at its end play goes on (the model still
  // waits where it was already stopped and is to move, as in a loaded game).
  paused_ = session_.can_redo() || (paused_ && session_.IsAiTurn());
  return StateReply();
}

HttpReply WebApi::Pause(const Request& request) {
  if (!request.body.contains("paused")) throw BadRequest{"field 'paused' is missing"};
  paused_ = web::BoolField(request.body, "paused", true);
  return StateReply();
}

void WebApi::LoadGame(const std::string& text) {
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) throw BadRequest{"game: the text is empty (paste a transcript or a GGF record)"};
  core::GgfRecord record;
  if (text.compare(first, 2, "(;") == 0) {
    auto parsed = core::ParseGgf(text);
    if (!parsed) throw BadRequest{"GGF: " + parsed.error()};
    record = *parsed;
  } else {
    record.rules = session_.rules();
    record.rules.start = core::StartKind::kStandard;
    record.start = core::Position::Standard(record.rules.size);
    auto moves = core::ParseTranscript(text, record.start);
    if (!moves) throw BadRequest{"transcript: " + moves.error()};
    for (core::Square sq : *moves) record.moves.push_back({sq, std::nullopt, std::nullopt});
  }
  if (auto error = session_.SetGame(record)) throw BadRequest{error->message};
  clock_.reset();
  AfterNavigation();
  paused_ = true;  // a loaded game is for review: the AI moves only when asked
}

HttpReply WebApi::Load(const Request& request) {
  if (!request.body.contains("game")) throw BadRequest{"field 'game' is missing"};
  LoadGame(web::StringField(request.body, "game", ""));
  return StateReply();
}

HttpReply WebApi::GetGame(const Request&) {
  const core::Game game = session_.LineGame();
  core::GgfRecord record = core::GgfRecord::FromGame(game);
  const auto name = [&](core::Color c) REQUIRES(mutex_) {
    return session_.IsAi(c) ? "othello-zero level " + std::to_string(level_) : std::string("human");
  };
  record.black_name = name(core::Color::kBlack);
  record.white_name = name(core::Color::kWhite);
  if (clock_) record.time_control = clock_->control().ToString();
  const int size = session_.rules().size;
  const bool standard = game.start() == core::Position::Standard(size);
  return web::JsonReply(json{{"transcript", core::FormatTranscript(game.moves(), size)},
                             {"transcript_complete", standard},
                             {"ggf", core::WriteGgf(record)}});
}

}  // namespace othello::play
