// WebApi: routing, reading requests and the state reply (play/web_api.h).
#include "play/web_api.h"

#include <limits>
#include <string_view>

#include "core/notation.h"
#include "core/rules.h"
#include "play/web_files.h"
#include "play/web_json.h"

namespace othello::play {

// ------------------------------------------------------------- requests and replies

namespace web {

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

int IntField(const json& j, const char* key, int fallback, int min, int max) {
  if (!j.contains(key)) return fallback;
  const json& v = j.at(key);
  if (!v.is_number_integer()) throw BadRequest{std::string("field '") + key + "' must be an integer"};
  const bool too_big = v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(max);
  if (too_big || v.get<std::int64_t>() < min || v.get<std::int64_t>() > max) {
    throw BadRequest{std::string("field '") + key + "' must be from " + std::to_string(min) +
                     " to " + std::to_string(max)};
  }
  return static_cast<int>(v.get<std::int64_t>());
}

int SettingField(const json& j, const Setting<int>& setting, int fallback) {
  return IntField(j, setting.key, fallback, setting.low, setting.high);
}

std::uint64_t SettingField(const json& j, const Setting<std::uint64_t>& setting,
                           std::uint64_t fallback) {
  static_assert(kMaxVisits <= static_cast<std::uint64_t>(std::numeric_limits<int>::max()));
  return static_cast<std::uint64_t>(IntField(j, setting.key, static_cast<int>(fallback),
                                             static_cast<int>(setting.low),
                                             static_cast<int>(setting.high)));
}

double NumberField(const json& j, const char* key, double fallback, double min, double max) {
  if (!j.contains(key)) return fallback;
  const json& v = j.at(key);
  if (!v.is_number()) throw BadRequest{std::string("field '") + key + "' must be a number"};
  const double d = v.get<double>();
  if (!(d >= min && d <= max)) {
    char range[96];
    std::snprintf(range, sizeof range, "' must be from %g to %g", min, max);
    throw BadRequest{std::string("field '") + key + range};
  }
  return d;
}

std::string StringField(const json& j, const char* key, const std::string& fallback) {
  if (!j.contains(key)) return fallback;
  if (!j.at(key).is_string()) throw BadRequest{std::string("field '") + key + "' must be a string"};
  return j.at(key).get<std::string>();
}

bool BoolField(const json& j, const char* key, bool fallback) {
  if (!j.contains(key)) return fallback;
  if (!j.at(key).is_boolean()) throw BadRequest{std::string("field '") + key + "' must be true or false"};
  return j.at(key).get<bool>();
}

std::string BoardText(const core::Position& pos) {
  std::string board;
  for (int sq = 0; sq < pos.squares(); ++sq) {
    const core::Bitboard bit = core::Bit(sq);
    board += pos.discs(core::Color::kBlack) & bit ? 'X' : pos.discs(core::Color::kWhite) & bit ? 'O' : '-';
  }
  return board;
}

std::string Dump(const json& reply) { return reply.dump(-1, ' ', false, json::error_handler_t::replace); }

HttpReply Error(int status, const std::string& message) {
  return {status, "application/json", Dump(json{{"error", message}})};
}

HttpReply JsonReply(const json& reply) { return {200, "application/json", Dump(reply)}; }

}  // namespace web

using web::json;

namespace {

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

const char* ModeName(WebApi::Mode mode) {
  return mode == WebApi::Mode::kAiAi ? "ai-ai" : mode == WebApi::Mode::kHumanHuman ? "human-human" : "human-ai";
}

}  // namespace

struct WebApi::Route {
  const char* path;
  const char* method;
  HttpReply (WebApi::*handler)(const Request&);
  bool game_lock;  // under mutex_ (the analysis's own routes take analysis_mutex_)
};

WebApi::WebApi(mcts::Evaluator& evaluator, const core::Rules& rules, int level, std::uint64_t seed,
               std::optional<core::Rules> trained, ChessClock::Now now)
    : evaluator_(evaluator),
      now_(std::move(now)),
      session_(evaluator, rules, StrengthForLevel(level), seed, std::move(trained)),
      level_(level) {}

WebApi::~WebApi() { StopAnalysis(); }

const WebApi::Route* WebApi::FindRoute(const std::string& path, const std::string& method,
                                       std::string* allowed) {
  static const Route kRoutes[] = {
      {"/api/state", "GET", &WebApi::GetState, true},
      {"/api/new", "POST", &WebApi::NewGame, true},
      {"/api/move", "POST", &WebApi::Move, true},
      {"/api/step", "POST", &WebApi::Step, true},
      {"/api/hints", "POST", &WebApi::Hints, true},
      {"/api/undo", "POST", &WebApi::Undo, true},
      {"/api/redo", "POST", &WebApi::Redo, true},
      {"/api/goto", "POST", &WebApi::GoTo, true},
      {"/api/pause", "POST", &WebApi::Pause, true},
      {"/api/load", "POST", &WebApi::Load, true},
      {"/api/game", "GET", &WebApi::GetGame, true},
      {"/api/analysis", "POST", &WebApi::StartAnalysis, true},
      {"/api/analysis", "GET", &WebApi::GetAnalysis, false},
      {"/api/analysis/cancel", "POST", &WebApi::CancelAnalysis, false}};
  for (const Route& route : kRoutes) {
    if (path != route.path) continue;
    if (method == route.method) return &route;
    *allowed += (allowed->empty() ? "" : " or ") + std::string(route.method);
  }
  return nullptr;
}

HttpReply WebApi::Handle(const std::string& method, const std::string& path, const std::string& body) {
  if (const WebFile* file = FindWebFile(path)) {
    if (method != "GET") return web::Error(405, "use GET for " + path);
    return {200, ContentType(file->path), std::string(file->body)};
  }
  std::string allowed;
  const Route* route = FindRoute(path, method, &allowed);
  if (!route && allowed.empty()) return web::Error(404, "no such page: " + path);
  if (!route) return web::Error(405, "use " + allowed + " for " + path);
  try {
    const Request request{web::ParseBody(body)};
    if (!route->game_lock) return (this->*route->handler)(request);
    core::MutexLock lock(mutex_);
    return (this->*route->handler)(request);
  } catch (const web::BadRequest& e) {
    return web::Error(400, e.message);
  }
}

// ------------------------------------------------------------- the state reply

HttpReply WebApi::StateReply() {
  const bool over = Over();
  const core::Game& game = session_.game();
  const core::Position& pos = game.position();
  const int size = pos.size();
  json legal = json::array();
  if (!over && session_.IsHumanTurn()) {
    core::ForEachSquare(pos.LegalMoves(), [&](core::Square sq) { legal.push_back(core::SquareName(sq, size)); });
  }
  const auto player = [&](core::Color c) REQUIRES(mutex_) {
    return session_.IsAi(c) ? "ai" : "human";
  };
  json clock = nullptr;
  if (clock_) {
    const auto running = clock_->running();
    const auto flagged = clock_->Flagged();
    clock = {{"black", clock_->Remaining(core::Color::kBlack)},
             {"white", clock_->Remaining(core::Color::kWhite)},
             {"running", running ? json(core::ColorName(*running)) : json(nullptr)},
             {"flagged", flagged ? json(core::ColorName(*flagged)) : json(nullptr)},
             {"control", clock_->control().ToString()}};
  }
  json state = {{"size", size},
                {"board", web::BoardText(pos)},
                {"to_move", over ? json(nullptr) : json(core::ColorName(pos.side_to_move()))},
                {"human", core::ColorName(session_.human())},
                {"mode", ModeName(mode_)},
                {"players", {{"black", player(core::Color::kBlack)}, {"white", player(core::Color::kWhite)}}},
                {"legal", legal},
                {"moves", SquareNames(game.moves(), size)},
                {"line", SquareNames(session_.Line(), size)},
                {"ply", game.moves().size()},
                {"last_move", LastMove(game)},
                {"black", pos.DiscCount(core::Color::kBlack)},
                {"white", pos.DiscCount(core::Color::kWhite)},
                {"over", over},
                {"transcript", core::FormatTranscript(game.moves(), size)},
                {"can_undo", !game.moves().empty() && !(clock_ && !over)},
                {"can_redo", session_.can_redo() && !(clock_ && !over)},
                {"level", level_},
                {"sizes", session_.trained() ? json::array({session_.trained()->size})
                                             : json::array({6, 8, 10})},
                {"start", core::StartName(session_.rules().start)},
                {"start_board", web::BoardText(game.start())},
                {"start_to_move", core::ColorName(game.start().side_to_move())},
                {"ai_to_move", AiToMove()},
                {"paused", paused_},
                {"clock", clock},
                {"graph", json::parse(GraphJson())},
                {"ai", ai_note_},
                {"pass", pass_note_}};
  if (auto result = Result()) state["result"] = *result;
  return web::JsonReply(state);
}

}  // namespace othello::play
