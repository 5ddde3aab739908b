#include "play/web_api.h"

#include <algorithm>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "core/notation.h"
#include "core/rules.h"

namespace othello::play {

namespace {

using nlohmann::json;

struct BadRequest {
  std::string message;
};

json ParseBody(const std::string& body) {
  if (body.find_first_not_of(" \t\r\n") == std::string::npos) return json::object();
  try {
    json j = json::parse(body);
    if (!j.is_object()) throw BadRequest{"the request body must be a JSON object"};
    return j;
  } catch (const json::exception& e) {  // a parse error, or a number out of range
    throw BadRequest{std::string("malformed JSON: ") + e.what()};
  }
}

// Typed fields of a request: a value of another type (1.5 or 1e300 for an integer) is a
// bad request, never converted.
int IntField(const json& j, const char* key, int fallback) {
  if (!j.contains(key)) return fallback;
  const json& v = j.at(key);
  if (!v.is_number_integer() || v.get<std::int64_t>() < -1000000 || v.get<std::int64_t>() > 1000000) {
    throw BadRequest{std::string("field '") + key + "' must be an integer"};
  }
  return v.get<int>();
}

std::string StringField(const json& j, const char* key, const std::string& fallback) {
  if (!j.contains(key)) return fallback;
  if (!j.at(key).is_string()) throw BadRequest{std::string("field '") + key + "' must be a string"};
  return j.at(key).get<std::string>();
}

// JSON text of a reply; bytes that are not UTF-8 (an error message quoting the request)
// become U+FFFD instead of an exception.
std::string Dump(const json& reply) { return reply.dump(-1, ' ', false, json::error_handler_t::replace); }

HttpReply Error(int status, const std::string& message) {
  return {status, "application/json", Dump(json{{"error", message}})};
}

}  // namespace

WebApi::WebApi(mcts::Evaluator& evaluator, const core::Rules& rules, int level, std::uint64_t seed,
               std::optional<core::Rules> trained)
    : session_(evaluator, rules, StrengthForLevel(level), seed, std::move(trained)), level_(level) {}

void WebApi::AiTurns() {
  for (;;) {
    // A copy: playing a move may move the game's positions (a reference would dangle).
    const core::Position pos = session_.game().position();
    if (pos.IsGameOver()) return;
    if (pos.MustPass()) {
      pass_note_ = std::string(core::ColorName(pos.side_to_move())) + " has no move and passes";
      session_.Play(core::kPass);
      continue;
    }
    if (pos.side_to_move() == human_) return;
    const Analysis a = session_.PlayAi();
    char note[160];
    std::snprintf(note, sizeof note, "AI played %s: win %.0f%%, discs %s%s",
                  core::SquareName(a.best.move, pos.size()).c_str(), 100 * a.best.win_probability,
                  FormatDiscs(a.best.discs).c_str(), a.best.exact ? " (exact)" : "");
    ai_note_ = note;
  }
}

std::string WebApi::State() const {
  const core::Game& game = session_.game();
  const core::Position& pos = game.position();
  const int size = pos.size();
  std::string board;
  for (int sq = 0; sq < pos.squares(); ++sq) {
    const core::Bitboard bit = core::Bit(sq);
    board += pos.discs(core::Color::kBlack) & bit ? 'X' : pos.discs(core::Color::kWhite) & bit ? 'O' : '-';
  }
  json legal = json::array();
  if (!pos.IsGameOver() && pos.side_to_move() == human_) {
    core::ForEachSquare(pos.LegalMoves(), [&](core::Square sq) { legal.push_back(core::SquareName(sq, size)); });
  }
  json moves = json::array();
  for (core::Square m : game.moves()) moves.push_back(core::SquareName(m, size));
  json last = nullptr;
  for (auto it = game.moves().rbegin(); it != game.moves().rend(); ++it) {
    if (*it != core::kPass) {
      last = core::SquareName(*it, size);
      break;
    }
  }
  json state = {{"size", size},
                {"board", board},
                {"to_move", pos.IsGameOver() ? json(nullptr) : json(core::ColorName(pos.side_to_move()))},
                {"human", core::ColorName(human_)},
                {"legal", legal},
                {"moves", moves},
                {"last_move", last},
                {"black", pos.DiscCount(core::Color::kBlack)},
                {"white", pos.DiscCount(core::Color::kWhite)},
                {"over", pos.IsGameOver()},
                {"transcript", core::FormatTranscript(game.moves(), size)},
                {"can_undo", !game.moves().empty()},
                {"can_redo", session_.can_redo()},
                {"level", level_},
                {"sizes", session_.trained() ? json::array({session_.trained()->size})
                                             : json::array({6, 8, 10})},
                {"start", core::StartName(session_.rules().start)},
                {"ai", ai_note_},
                {"pass", pass_note_}};
  if (pos.IsGameOver()) {
    const int margin = game.FinalOutcome().MarginFor(human_);
    state["result"] = margin > 0 ? "You win by " + std::to_string(margin)
                      : margin < 0 ? "The AI wins by " + std::to_string(-margin) : std::string("Draw");
  }
  return Dump(state);
}

HttpReply WebApi::Handle(const std::string& method, const std::string& path, const std::string& body) {
  if (path == "/" || path == "/index.html") {
    if (method != "GET") return Error(405, "use GET for " + path);
    return {200, "text/html; charset=utf-8", WebPageHtml()};
  }
  static const char* const kPost[] = {"/api/new", "/api/move", "/api/hints", "/api/undo", "/api/redo"};
  const bool is_post = std::find(std::begin(kPost), std::end(kPost), path) != std::end(kPost);
  if (path != "/api/state" && !is_post) return Error(404, "no such page: " + path);
  if (method != (is_post ? "POST" : "GET")) {
    return Error(405, std::string("use ") + (is_post ? "POST" : "GET") + " for " + path);
  }
  std::lock_guard<std::mutex> lock(mutex_);
  try {
    const json request = ParseBody(body);
    if (path == "/api/new") {
      core::Rules rules = session_.rules();
      rules.size = IntField(request, "size", rules.size);
      auto start = core::ParseStartKind(StringField(request, "start", "standard"));
      if (!start) throw BadRequest{"start: " + start.error()};
      rules.start = *start;
      rules.random_moves = 8;
      rules.handicap = rules.start == core::StartKind::kHandicap ? 1 : 0;
      const std::string color = StringField(request, "color", "black");
      if (color != "black" && color != "white") throw BadRequest{"color must be black or white"};
      const int level = IntField(request, "level", level_);
      if (level < 1 || level > 10) throw BadRequest{"level must be 1 to 10"};
      if (auto error = session_.NewGame(rules)) throw BadRequest{error->message};
      human_ = color == "black" ? core::Color::kBlack : core::Color::kWhite;
      level_ = level;
      session_.set_strength(StrengthForLevel(level));
      ai_note_.clear();
      pass_note_.clear();
      AiTurns();
    } else if (path == "/api/move") {
      if (!request.contains("move")) throw BadRequest{"field 'move' is missing"};
      const std::string text = StringField(request, "move", "");
      const core::Position& pos = session_.game().position();
      if (pos.IsGameOver()) throw BadRequest{"the game is over"};
      if (pos.side_to_move() != human_) throw BadRequest{"it is not your turn"};
      auto move = core::ParseSquare(text, pos.size());
      if (!move) throw BadRequest{move.error()};
      if (auto error = session_.Play(*move)) throw BadRequest{error->message};
      pass_note_.clear();
      AiTurns();
    } else if (path == "/api/hints") {
      const core::Position& pos = session_.game().position();
      if (pos.IsGameOver() || pos.side_to_move() != human_) throw BadRequest{"it is not your turn"};
      const Strength saved = session_.strength();
      Strength hint = saved;
      hint.visits = std::max<std::uint64_t>(hint.visits, 200);
      hint.temperature = 0;
      session_.set_strength(hint);
      const Analysis a = session_.Analyze();
      session_.set_strength(saved);
      json hints = json::array();
      for (const MoveEvaluation& m : a.moves) {
        hints.push_back({{"move", core::SquareName(m.move, pos.size())}, {"win", m.win_probability},
                         {"discs", m.discs}, {"exact", m.exact}, {"visits", m.visits}});
      }
      return {200, "application/json", Dump(json{{"hints", hints}})};
    } else if (path == "/api/undo") {
      if (!session_.Undo()) throw BadRequest{"nothing to undo"};
      while (session_.game().position().side_to_move() != human_ && session_.Undo()) {
      }
      ai_note_.clear();
      pass_note_.clear();
      AiTurns();  // when the person's earlier turn is not reachable (the AI opened)
    } else if (path == "/api/redo") {
      if (!session_.Redo()) throw BadRequest{"nothing to redo"};
      while (session_.game().position().side_to_move() != human_ && !session_.game().IsOver() &&
             session_.Redo()) {
      }
    }
    return {200, "application/json", State()};
  } catch (const BadRequest& e) {
    return Error(400, e.message);
  }
}

}  // namespace othello::play
