// othello-zero analyse GAME: the per-move analysis of a recorded game
// (play/game_analysis.h) as a table, or as JSON. GAME is a file holding a GGF record
// (its first game) or a transcript from the standard start of the model's board, or the
// transcript itself.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/play_model.h"
#include "core/file_io.h"
#include "core/ggf.h"
#include "core/notation.h"
#include "play/game_analysis.h"

namespace othello::cli {
namespace {

struct AnalyseOptions {
  std::string model;
  std::string game;
  std::uint64_t visits = play::kAnalysisVisits.value;
  int exact_empties = play::kExactEmpties.value;
  bool json = false;
  std::string device = "auto";
};

core::Game GameFromGgf(const std::string& path, std::string_view text, const nn::LoadedModel& model,
                       const std::string& model_path) {
  auto records = core::ParseGgfFile(text);
  if (!records) throw CliError(path + ": " + records.error());
  if (records->empty()) throw CliError(path + ": no game in the file");
  const core::GgfRecord& record = records->front();
  if (auto mismatch = core::RulesMismatch(model.rules, record.rules)) {
    throw CliError(path + ": a " + core::DescribeRules(record.rules) + " game, but " +
                   model_path + " plays " + core::DescribeRules(model.rules) + " only");
  }
  return record.ToGame();
}

core::Game GameFromTranscript(const std::string& path, std::string_view text,
                              core::Rules rules) {
  rules.start = core::StartKind::kStandard;
  core::Game game(rules, core::Position::Standard(rules.size));
  auto moves = core::ParseTranscript(text, game.start());
  if (!moves) {
    throw CliError(path + ": bad transcript (" + core::DescribeRules(rules) +
                   " from the standard start; a GGF record starts with '('): " + moves.error());
  }
  for (core::Square move : *moves) game.Play(move);
  return game;
}

// Whether `arg` reads as moves rather than a file name, e.g. f5d6c3: a square name first,
// then letters, digits, spaces and dashes only.
bool LooksLikeTranscript(const std::string& arg) {
  const auto byte = [&arg](std::size_t i) { return static_cast<unsigned char>(arg[i]); };
  return arg.size() >= 2 && std::isalpha(byte(0)) && std::isdigit(byte(1)) &&
         std::all_of(arg.begin(), arg.end(), [](char c) {
           return std::isalnum(static_cast<unsigned char>(c)) || c == ' ' || c == '-';
         });
}

// The game in `path`: a GGF record when the text starts with '(', else a transcript; a
// `path` that is no file and reads as moves is the transcript itself.
core::Game ReadGame(const std::string& path, const nn::LoadedModel& model,
                    const std::string& model_path) {
  std::error_code error;
  if (!std::filesystem::exists(path, error) && LooksLikeTranscript(path)) {
    return GameFromTranscript("transcript '" + path + "'", path, model.rules);
  }
  const std::string text = core::ReadFile(path, "game file");
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) {
    throw CliError(path + ": the file is empty (expected a GGF record or a transcript)");
  }
  if (text[first] == '(') return GameFromGgf(path, text, model, model_path);
  return GameFromTranscript(path, text, model.rules);
}

nlohmann::json SideTotals(const play::GameAnalysis& analysis, core::Color color) {
  double loss = 0;
  int counts[4] = {0, 0, 0, 0};
  for (const play::PlyAnalysis& ply : analysis.plies) {
    if (ply.color != color) continue;
    loss += ply.loss;
    ++counts[static_cast<int>(ply.mark)];
  }
  return {{"loss", loss},
          {"inaccuracies", counts[1]},
          {"mistakes", counts[2]},
          {"blunders", counts[3]}};
}

nlohmann::json PlyJson(const play::PlyAnalysis& ply, int size) {
  nlohmann::json pv = nlohmann::json::array();
  for (core::Square move : ply.pv) pv.push_back(core::SquareName(move, size));
  return {{"ply", ply.ply},
          {"color", std::string(core::ColorName(ply.color))},
          {"played", core::SquareName(ply.played, size)},
          {"pass", ply.pass},
          {"best", core::SquareName(ply.best, size)},
          {"pv", pv},
          {"best_discs", ply.best_discs},
          {"played_discs", ply.played_discs},
          {"loss", ply.loss},
          {"exact", ply.exact},
          {"mark", play::MoveMarkName(ply.mark)},
          {"black_discs", ply.black_discs},
          {"black_win", ply.black_win},
          {"black_exact", ply.black_exact}};
}

std::string AnalysisJson(const core::Game& game, const play::GameAnalysis& analysis,
                         const AnalyseOptions& opt) {
  const int size = game.start().size();
  nlohmann::json plies = nlohmann::json::array();
  for (const play::PlyAnalysis& ply : analysis.plies) plies.push_back(PlyJson(ply, size));
  nlohmann::ordered_json j;
  j["rules"] = core::DescribeRules(game.rules());
  j["size"] = size;
  j["start"] = core::FormatBoardString(game.start());
  j["transcript"] = core::FormatTranscript(game.moves(), size);
  j["visits"] = opt.visits;
  j["exact_empties"] = opt.exact_empties;
  j["complete"] = analysis.complete;
  j["positions"] = analysis.positions_total;
  j["seconds"] = analysis.seconds;
  j["totals"] = {{"black", SideTotals(analysis, core::Color::kBlack)},
                 {"white", SideTotals(analysis, core::Color::kWhite)}};
  j["plies"] = plies;
  return j.dump(2) + "\n";
}

// "analysed 12/61 positions" on stderr: updated in place on a terminal, else only at
// the end.
play::AnalysisProgress ProgressLine() {
  if (!::isatty(STDERR_FILENO)) return {};
  return [](const play::GameAnalysis& so_far) {
    std::fprintf(stderr, "\ranalysed %d/%d positions", so_far.positions_done,
                 so_far.positions_total);
    std::fflush(stderr);
  };
}

void RunAnalyse(const AnalyseOptions& opt) {
  const nn::LoadedModel model = LoadPlayModel(opt.model, opt.device);
  const core::Game game = ReadGame(opt.game, model, PlayModelName(opt.model));
  play::AnalysisOptions options;
  options.visits = opt.visits;
  options.exact_empties = opt.exact_empties;
  const play::GameAnalysis analysis = AnalyzeGame(*model.evaluator, game, options, ProgressLine());
  std::fprintf(stderr, "\ranalysed %d/%d positions in %.1f s\n", analysis.positions_done,
               analysis.positions_total, analysis.seconds);
  std::cout << (opt.json ? AnalysisJson(game, analysis, opt)
                         : play::FormatAnalysisTable(game, analysis));
}

}  // namespace

void RegisterAnalyse(CLI::App& app) {
  auto opt = std::make_shared<AnalyseOptions>();
  CLI::App* cmd = app.add_subcommand(
      "analyse", "Per-move analysis of a game: each move's loss in discs and the best move");
  cmd->add_option("GAME", opt->game,
                  "File with a GGF record (its first game) or a transcript from the standard "
                  "start, or the transcript itself (e.g. f5d6c3...)")
      ->required();
  cmd->add_option("--model", opt->model, kModelHelp);
  AddSetting(*cmd, play::kAnalysisVisits, opt->visits);
  AddSetting(*cmd, play::kExactEmpties, opt->exact_empties);
  cmd->add_flag("--json", opt->json, "Machine-readable output (one JSON object)");
  AddDeviceOption(*cmd, opt->device);
  cmd->callback([opt] { RunAnalyse(*opt); });
}

}  // namespace othello::cli
