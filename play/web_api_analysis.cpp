// WebApi: the analysis job and the game graph (play/web_api.h).
#include <exception>

#include "core/notation.h"
#include "play/web_api.h"
#include "play/web_json.h"

namespace othello::play {

using web::BadRequest;
using web::json;

namespace {

// The graph's evaluations: a small search (exact near the end) per position.
constexpr AnalysisOptions kGraphOptions{/*visits=*/32, /*exact_empties=*/12};
constexpr std::size_t kGraphCacheLimit = 100000;

json Names(const std::vector<core::Square>& squares, int size) {
  json names = json::array();
  for (core::Square sq : squares) names.push_back(core::SquareName(sq, size));
  return names;
}

json PlyJson(const PlyAnalysis& p, int size) {
  return {{"ply", p.ply},
          {"color", core::ColorName(p.color)},
          {"move", core::SquareName(p.played, size)},
          {"pass", p.pass},
          {"best", core::SquareName(p.best, size)},
          {"pv", Names(p.pv, size)},
          {"best_discs", p.best_discs},
          {"played_discs", p.played_discs},
          {"loss", p.loss},
          {"exact", p.exact},
          {"mark", MoveMarkName(p.mark)},
          {"black_discs", p.black_discs},
          {"black_win", p.black_win}};
}

// Each side's total loss and counts of marks.
json Totals(const std::vector<PlyAnalysis>& plies) {
  json totals = json::object();
  for (core::Color c : {core::Color::kBlack, core::Color::kWhite}) {
    double loss = 0;
    int marks[4] = {0, 0, 0, 0};
    for (const PlyAnalysis& p : plies) {
      if (p.color != c) continue;
      loss += p.loss;
      ++marks[static_cast<int>(p.mark)];
    }
    totals[std::string(core::ColorName(c))] = {{"loss", loss},
                                               {"inaccuracies", marks[1]},
                                               {"mistakes", marks[2]},
                                               {"blunders", marks[3]}};
  }
  return totals;
}

}  // namespace

// ------------------------------------------------------------- the graph

std::string WebApi::GraphJson() {
  if (graph_.size() > kGraphCacheLimit) graph_.clear();
  const core::Rules& rules = session_.rules();
  const int size = rules.size;
  core::Position position = session_.game().start();
  json points = json::array();
  int ply = 0;
  for (core::Square move : session_.Line()) {
    position = position.Play(move);
    ++ply;
    auto it = graph_.find(position.Hash());
    if (it == graph_.end()) {
      it = graph_.emplace(position.Hash(), EvaluatePosition(evaluator_, position, rules, kGraphOptions, ply)).first;
    }
    const PositionValue& value = it->second;
    const bool black = position.side_to_move() == core::Color::kBlack;
    points.push_back({{"ply", ply},
                      {"move", core::SquareName(move, size)},
                      {"discs", black ? value.discs : -value.discs},
                      {"win", black ? value.win_probability : 1 - value.win_probability},
                      {"exact", value.exact}});
  }
  return web::Dump(points);
}

// ------------------------------------------------------------- the analysis job

HttpReply WebApi::StartAnalysis(const Request& request) {
  AnalysisOptions options;
  options.visits = web::SettingField(request.body, kAnalysisVisits, options.visits);
  options.exact_empties = web::SettingField(request.body, kExactEmpties, options.exact_empties);
  if (request.body.contains("game")) LoadGame(web::StringField(request.body, "game", ""));
  const core::Game game = session_.LineGame();
  if (game.moves().empty()) throw BadRequest{"there is no move to analyse"};

  core::MutexLock job_lock(job_mutex_);
  if (job_.joinable()) {
    job_stop_ = true;
    job_.join();
  }
  {
    core::MutexLock lock(analysis_mutex_);
    job_game_ = game;
    job_options_ = options;
    job_result_ = GameAnalysis{};
    job_result_.positions_total = static_cast<int>(game.moves().size()) + 1;
    job_state_ = "running";
    job_error_.clear();
  }
  job_stop_ = false;
  job_ = std::thread([this, game, options] {
    const auto progress = [this](const GameAnalysis& so_far) {
      core::MutexLock lock(analysis_mutex_);
      job_result_ = so_far;
    };
    try {
      GameAnalysis result = AnalyzeGame(evaluator_, game, options, progress, &job_stop_);
      core::MutexLock lock(analysis_mutex_);
      job_result_ = std::move(result);
      job_state_ = job_result_.complete ? "done" : "cancelled";
    } catch (const std::exception& e) {  // the evaluator failed, or memory ran out
      core::MutexLock lock(analysis_mutex_);
      job_state_ = "failed";
      job_error_ = e.what();
    }
  });
  return {200, "application/json", AnalysisJson()};
}

HttpReply WebApi::GetAnalysis(const Request&) { return {200, "application/json", AnalysisJson()}; }

HttpReply WebApi::CancelAnalysis(const Request&) {
  StopAnalysis();
  return {200, "application/json", AnalysisJson()};
}

void WebApi::StopAnalysis() {
  core::MutexLock job_lock(job_mutex_);
  if (!job_.joinable()) return;
  job_stop_ = true;
  job_.join();
}

std::string WebApi::AnalysisJson() {
  core::MutexLock lock(analysis_mutex_);
  const int size = job_game_.rules().size;
  json plies = json::array();
  for (const PlyAnalysis& p : job_result_.plies) plies.push_back(PlyJson(p, size));
  json reply = {{"state", job_state_},
                {"done", job_result_.positions_done},
                {"total", job_result_.positions_total},
                {"visits", job_options_.visits},
                {"exact_empties", job_options_.exact_empties},
                {"moves", Names(job_game_.moves(), size)},
                {"start_board", web::BoardText(job_game_.start())},
                {"plies", plies},
                {"totals", Totals(job_result_.plies)},
                {"seconds", job_result_.seconds}};
  if (!job_error_.empty()) reply["error"] = job_error_;
  return web::Dump(reply);
}

}  // namespace othello::play
