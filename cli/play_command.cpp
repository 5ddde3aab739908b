// othello-zero play: a person against the AI in the terminal (play/game_session.h).
#include <iostream>
#include <sstream>

#include "cli/commands.h"
#include "cli/play_model.h"
#include "core/notation.h"
#include "core/rules.h"

namespace othello::cli {
namespace {

struct PlayOptions {
  std::string model;
  std::string color = "black";
  int size = 0;
  std::string start = "standard";
  int random_moves = 8;
  StrengthOptions strength;
  std::uint64_t seed = 1;
};

const char* const kHelp =
    "commands: a move (e.g. f5), hint (evaluations of every legal move), undo (your last "
    "move and the AI's reply), board, help, quit\n";

std::string Percent(double p) {
  std::ostringstream out;
  out.precision(0);
  out << std::fixed << 100 * p << "%";
  return out.str();
}

void ShowAnalysis(const play::Analysis& analysis, int size, std::ostream& out) {
  for (const play::MoveEvaluation& m : analysis.moves) {
    out << "  " << core::SquareName(m.move, size) << "  win " << Percent(m.win_probability)
        << "  discs " << play::FormatDiscs(m.discs) << (m.exact ? " (exact)" : "") << "  visits "
        << m.visits << "\n";
  }
}

void ShowAutoPly(const play::AutoPly& ply, int size, std::ostream& out) {
  if (ply.pass) {
    out << ply.PassNote() << "\n";
    return;
  }
  const play::MoveEvaluation& best = ply.analysis.best;
  out << "AI plays " << core::SquareName(best.move, size) << "  (its win "
      << Percent(best.win_probability) << ", discs " << play::FormatDiscs(best.discs)
      << (best.exact ? " exact" : "") << ")\n";
}

// One command of the person's (not quit); true when the board is to be shown again.
bool RunCommand(play::GameSession& session, const std::string& word, std::ostream& out) {
  const int size = session.rules().size;
  if (word == "help") {
    out << kHelp;
    return false;
  }
  if (word == "board") return true;
  if (word == "hint") {
    ShowAnalysis(session.Hints(), size, out);
    return false;
  }
  if (word == "undo") {  // back to the position before your last move
    const bool undone = session.UndoToHumanTurn();
    out << (undone ? "undone\n" : "nothing to undo\n");
    return undone;
  }
  auto move = core::ParseSquare(word, size);
  if (!move) {
    out << "error: " << move.error() << " (type help)\n";
    return false;
  }
  if (auto error = session.PlayHuman(*move)) {
    out << "error: " << error->message << "\n";
    return false;
  }
  return true;
}

// The person's commands and the AI's replies until the end, quit or the end of input.
void RunGame(play::GameSession& session, std::istream& in, std::ostream& out) {
  const auto show_ply = [&](const play::AutoPly& ply) { ShowAutoPly(ply, session.rules().size, out); };
  session.PlayAiTurns(show_ply);
  bool show = true;
  while (!session.game().IsOver()) {
    if (show) out << "\n" << core::RenderBoard(session.game().position());
    out << "your move> " << std::flush;
    std::string line, word;
    if (!std::getline(in, line)) break;
    if (!(std::istringstream(line) >> word)) {
      show = false;
      continue;
    }
    if (word == "quit" || word == "exit") break;
    show = RunCommand(session, word, out);
    if (show) session.PlayAiTurns(show_ply);
  }
}

void ShowEnd(const play::GameSession& session, std::ostream& out) {
  const int size = session.rules().size;
  out << "\n" << core::RenderBoard(session.game().position(), /*mark_legal=*/false);
  if (auto result = session.HumanResult()) out << *result << "\n";
  out << "transcript: " << core::FormatTranscript(session.game().moves(), size) << "\n";
}

// The rules of the game: the model's board and scoring, the start asked for.
core::Rules GameRules(const PlayOptions& opt, const PlayModel& model) {
  core::Rules rules = model.rules;
  if (opt.size && opt.size != model.rules.size) {
    throw CliError("--size " + std::to_string(opt.size) + ": " + opt.model + " plays " +
                   core::DescribeRules(model.rules) + " only (the size it was trained for)");
  }
  auto start = core::ParseStartKind(opt.start);
  if (!start) throw CliError("--start: " + start.error());
  rules.start = *start;
  rules.random_moves = opt.random_moves;
  if (auto error = core::ValidateRules(rules)) throw CliError(error->message);
  return rules;
}

void RunPlay(const PlayOptions& opt, std::istream& in, std::ostream& out) {
  const PlayModel model = LoadPlayModel(opt.model);
  const core::Rules rules = GameRules(opt, model);
  if (opt.color != "black" && opt.color != "white") throw CliError("--color must be black or white");
  play::GameSession session(*model.evaluator, rules, opt.strength.Resolve(), opt.seed, model.rules);
  session.set_human(opt.color == "black" ? core::Color::kBlack : core::Color::kWhite);
  out << "You play " << opt.color << " (X is black, O is white) against "
      << session.strength().Describe() << ". " << kHelp;
  RunGame(session, in, out);
  ShowEnd(session, out);
}

}  // namespace

void RegisterPlay(CLI::App& app) {
  auto opt = std::make_shared<PlayOptions>();
  CLI::App* cmd = app.add_subcommand("play", "Play against the AI in the terminal");
  cmd->add_option("--model", opt->model, "Exported model file (or a checkpoint with LibTorch)")
      ->required();
  cmd->add_option("--color", opt->color, "Your colour: black (moves first) or white");
  cmd->add_option("--size", opt->size, "Board size (the model's: a different one is an error)");
  cmd->add_option("--start", opt->start, "Start: standard, reversi, random or handicap");
  cmd->add_option("--random-moves", opt->random_moves, "Plies of a random start");
  AddStrengthOptions(*cmd, opt->strength);
  cmd->add_option("--seed", opt->seed, "Random seed");
  cmd->callback([opt] { RunPlay(*opt, std::cin, std::cout); });
}

}  // namespace othello::cli
