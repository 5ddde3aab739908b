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

void RunPlay(const PlayOptions& opt, std::istream& in, std::ostream& out) {
  const PlayModel model = LoadPlayModel(opt.model);
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
  if (opt.color != "black" && opt.color != "white") throw CliError("--color must be black or white");
  const core::Color human = opt.color == "black" ? core::Color::kBlack : core::Color::kWhite;
  play::GameSession session(*model.evaluator, rules, opt.strength.Resolve(), opt.seed, model.rules);
  out << "You play " << opt.color << " (X is black, O is white) against "
      << session.strength().Describe() << ". " << kHelp;
  bool show = true;
  while (!session.game().IsOver()) {
    const core::Position& pos = session.game().position();
    if (pos.MustPass()) {
      out << core::ColorName(pos.side_to_move()) << " has no move and passes\n";
      session.PlayForcedPasses();
      continue;
    }
    if (pos.side_to_move() != human) {
      const play::Analysis a = session.PlayAi();
      out << "AI plays " << core::SquareName(a.best.move, rules.size) << "  (its win "
          << Percent(a.best.win_probability) << ", discs " << play::FormatDiscs(a.best.discs)
          << (a.best.exact ? " exact" : "") << ")\n";
      show = true;
      continue;
    }
    if (show) out << "\n" << core::RenderBoard(pos);
    show = false;
    out << "your move> " << std::flush;
    std::string line;
    if (!std::getline(in, line)) break;
    std::istringstream words(line);
    std::string word;
    if (!(words >> word)) continue;
    if (word == "quit" || word == "exit") break;
    if (word == "help") {
      out << kHelp;
    } else if (word == "board") {
      show = true;
    } else if (word == "hint") {
      ShowAnalysis(session.Analyze(), rules.size, out);
    } else if (word == "undo") {
      // Back to the position before your last move.
      bool undone = false;
      while (session.Undo()) {
        undone = true;
        if (session.game().position().side_to_move() == human) break;
      }
      out << (undone ? "undone\n" : "nothing to undo\n");
      show = undone;
    } else {
      auto move = core::ParseSquare(word, rules.size);
      if (!move) {
        out << "error: " << move.error() << " (type help)\n";
      } else if (auto error = session.Play(*move)) {
        out << "error: " << error->message << "\n";
      } else {
        show = true;
      }
    }
  }
  const core::Position& final_pos = session.game().position();
  out << "\n" << core::RenderBoard(final_pos, /*mark_legal=*/false);
  if (session.game().IsOver()) {
    const int margin = session.game().FinalOutcome().MarginFor(human);
    out << (margin > 0 ? "You win by " : margin < 0 ? "The AI wins by " : "Draw")
        << (margin ? std::to_string(std::abs(margin)) : "") << "\n";
  }
  out << "transcript: " << core::FormatTranscript(session.game().moves(), rules.size) << "\n";
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
