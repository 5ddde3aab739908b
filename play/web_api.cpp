#include "play/web_api.h"

#include <cstdio>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/notation.h"
#include "core/rules.h"
#include "play/web_files.h"

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

HttpReply JsonReply(const json& reply) { return {200, "application/json", Dump(reply)}; }

// The page's file served at `path` ("/" is /index.html), or nullptr.
const WebFile* FindWebFile(const std::string& path) {
  const std::string_view name = path == "/" ? std::string_view("/index.html") : path;
  for (std::size_t i = 0; i < kWebFileCount; ++i) {
    if (kWebFiles[i].path == name) return &kWebFiles[i];
  }
  return nullptr;
}

std::string ContentType(std::string_view path) {
  const std::string_view extension = path.substr(path.rfind('.') + 1);
  const char* type = extension == "html" ? "text/html"
                     : extension == "js" ? "text/javascript"
                     : extension == "css" ? "text/css" : "text/plain";
  return std::string(type) + "; charset=utf-8";
}

// Hints search at least this many playouts, also at the weakest levels.
constexpr std::uint64_t kHintPlayouts = 200;

// The rules of a new game asked for in `request`, from the current game's `rules`.
core::Rules NewGameRules(const json& request, core::Rules rules) {
  rules.size = IntField(request, "size", rules.size);
  auto start = core::ParseStartKind(StringField(request, "start", "standard"));
  if (!start) throw BadRequest{"start: " + start.error()};
  rules.start = *start;
  rules.random_moves = 8;
  rules.handicap = rules.start == core::StartKind::kHandicap ? 1 : 0;
  return rules;
}

core::Color ColorField(const json& request) {
  const std::string color = StringField(request, "color", "black");
  if (color != "black" && color != "white") throw BadRequest{"color must be black or white"};
  return color == "black" ? core::Color::kBlack : core::Color::kWhite;
}

std::string AiNote(const MoveEvaluation& best, int size) {
  char note[160];
  std::snprintf(note, sizeof note, "AI played %s: win %.0f%%, discs %s%s",
                core::SquareName(best.move, size).c_str(), 100 * best.win_probability,
                FormatDiscs(best.discs).c_str(), best.exact ? " (exact)" : "");
  return note;
}

// "X", "O" and "-" for the squares, a1 first.
std::string BoardText(const core::Position& pos) {
  std::string board;
  for (int sq = 0; sq < pos.squares(); ++sq) {
    const core::Bitboard bit = core::Bit(sq);
    board += pos.discs(core::Color::kBlack) & bit ? 'X' : pos.discs(core::Color::kWhite) & bit ? 'O' : '-';
  }
  return board;
}

json SquareNames(const std::vector<core::Square>& moves, int size) {
  json names = json::array();
  for (core::Square m : moves) names.push_back(core::SquareName(m, size));
  return names;
}

json LastMove(const core::Game& game) {
  for (auto it = game.moves().rbegin(); it != game.moves().rend(); ++it) {
    if (*it != core::kPass) return core::SquareName(*it, game.rules().size);
  }
  return nullptr;
}

}  // namespace

struct WebApi::Request {
  json body;
};

struct WebApi::Route {
  const char* path;
  const char* method;
  HttpReply (WebApi::*handler)(const Request&);
};

WebApi::WebApi(mcts::Evaluator& evaluator, const core::Rules& rules, int level, std::uint64_t seed,
               std::optional<core::Rules> trained)
    : session_(evaluator, rules, StrengthForLevel(level), seed, std::move(trained)), level_(level) {}

const WebApi::Route* WebApi::FindRoute(const std::string& path) {
  static const Route kRoutes[] = {
      {"/api/state", "GET", &WebApi::GetState}, {"/api/new", "POST", &WebApi::NewGame},
      {"/api/move", "POST", &WebApi::Move},     {"/api/hints", "POST", &WebApi::Hints},
      {"/api/undo", "POST", &WebApi::Undo},     {"/api/redo", "POST", &WebApi::Redo}};
  for (const Route& route : kRoutes) {
    if (path == route.path) return &route;
  }
  return nullptr;
}

HttpReply WebApi::Handle(const std::string& method, const std::string& path, const std::string& body) {
  if (const WebFile* file = FindWebFile(path)) {
    if (method != "GET") return Error(405, "use GET for " + path);
    return {200, ContentType(file->path), std::string(file->body)};
  }
  const Route* route = FindRoute(path);
  if (!route) return Error(404, "no such page: " + path);
  if (method != route->method) return Error(405, std::string("use ") + route->method + " for " + path);
  std::lock_guard<std::mutex> lock(mutex_);
  try {
    return (this->*route->handler)(Request{ParseBody(body)});
  } catch (const BadRequest& e) {
    return Error(400, e.message);
  }
}

HttpReply WebApi::GetState(const Request&) { return StateReply(); }

HttpReply WebApi::NewGame(const Request& request) {
  const core::Rules rules = NewGameRules(request.body, session_.rules());
  const core::Color human = ColorField(request.body);
  const int level = IntField(request.body, "level", level_);
  if (level < 1 || level > 10) throw BadRequest{"level must be 1 to 10"};
  if (auto error = session_.NewGame(rules)) throw BadRequest{error->message};
  session_.set_human(human);
  level_ = level;
  session_.set_strength(StrengthForLevel(level));
  ai_note_.clear();
  pass_note_.clear();
  PlayAiTurns();
  return StateReply();
}

HttpReply WebApi::Move(const Request& request) {
  if (!request.body.contains("move")) throw BadRequest{"field 'move' is missing"};
  const std::string text = StringField(request.body, "move", "");
  if (auto refused = session_.HumanCannotMove()) throw BadRequest{refused->message};
  auto move = core::ParseSquare(text, session_.rules().size);
  if (!move) throw BadRequest{move.error()};
  if (auto error = session_.PlayHuman(*move)) throw BadRequest{error->message};
  pass_note_.clear();
  PlayAiTurns();
  return StateReply();
}

HttpReply WebApi::Hints(const Request&) {
  if (!session_.IsHumanTurn()) throw BadRequest{"it is not your turn"};
  const Analysis analysis = session_.Hints(kHintPlayouts);
  json hints = json::array();
  for (const MoveEvaluation& m : analysis.moves) {
    hints.push_back({{"move", core::SquareName(m.move, session_.rules().size)},
                     {"win", m.win_probability}, {"discs", m.discs}, {"exact", m.exact},
                     {"visits", m.visits}});
  }
  return JsonReply(json{{"hints", hints}});
}

HttpReply WebApi::Undo(const Request&) {
  if (!session_.UndoToHumanTurn()) throw BadRequest{"nothing to undo"};
  ai_note_.clear();
  pass_note_.clear();
  PlayAiTurns();  // when the person's earlier turn is not reachable (the AI opened)
  return StateReply();
}

HttpReply WebApi::Redo(const Request&) {
  if (!session_.RedoToHumanTurn()) throw BadRequest{"nothing to redo"};
  return StateReply();
}

void WebApi::PlayAiTurns() {
  session_.PlayAiTurns([this](const AutoPly& ply) {
    if (ply.pass) {
      pass_note_ = ply.PassNote();
    } else {
      ai_note_ = AiNote(ply.analysis.best, session_.rules().size);
    }
  });
}

HttpReply WebApi::StateReply() const {
  const core::Game& game = session_.game();
  const core::Position& pos = game.position();
  const int size = pos.size();
  json legal = json::array();
  if (session_.IsHumanTurn()) {
    core::ForEachSquare(pos.LegalMoves(), [&](core::Square sq) { legal.push_back(core::SquareName(sq, size)); });
  }
  json state = {{"size", size},
                {"board", BoardText(pos)},
                {"to_move", pos.IsGameOver() ? json(nullptr) : json(core::ColorName(pos.side_to_move()))},
                {"human", core::ColorName(session_.human())},
                {"legal", legal},
                {"moves", SquareNames(game.moves(), size)},
                {"last_move", LastMove(game)},
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
  if (auto result = session_.HumanResult()) state["result"] = *result;
  return JsonReply(state);
}

}  // namespace othello::play
