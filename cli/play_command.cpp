// othello-zero play: a person against the AI in the terminal (play/game_session.h).
#include <iostream>
#include <sstream>

#include "cli/commands.h"
#include "cli/play_model.h"
#include "core/notation.h"
#include "core/rules.h"
#include "play/game_analysis.h"

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
  std::uint64_t hint_visits = play::kHintVisits.value;
  std::uint64_t analyse_visits = play::kAnalysisVisits.value;  // of the `analyse` command
  std::string device = "auto";
};

// What the commands of a game need besides the session.
struct Terminal {
  play::GameSession& session;
  mcts::Evaluator& evaluator;
  const PlayOptions& opt;
  std::ostream& out;
};

const char* const kHelp =
    "commands: a move (e.g. f5), hint (evaluations of every legal move), undo (your last "
    "move and the AI's reply), analyse (the game so far, move by move), board, help, quit\n";
const char* const kAfterGameHelp =
    "the game is over: analyse (a per-move analysis), board, quit\n";

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

bool IsAnalyse(const std::string& word) { return word == "analyse" || word == "analyze"; }

// The per-move analysis of the game so far, as a table.
void ShowGameAnalysis(const Terminal& t) {
  const core::Game& game = t.session.game();
  if (game.moves().empty()) {
    t.out << "no moves to analyse yet\n";
    return;
  }
  play::AnalysisOptions options;
  options.visits = t.opt.analyse_visits;
  t.out << "analysing " << game.moves().size() + 1 << " positions (" << options.visits
        << " playouts each, exact from " << options.exact_empties << " empties)...\n"
        << std::flush;
  t.out << play::FormatAnalysisTable(game, play::AnalyzeGame(t.evaluator, game, options));
}

// One command of the person's (not quit); true when the board is to be shown again.
bool RunCommand(const Terminal& t, const std::string& word) {
  play::GameSession& session = t.session;
  std::ostream& out = t.out;
  const int size = session.rules().size;
  if (word == "help") {
    out << kHelp;
    return false;
  }
  if (word == "board") return true;
  if (word == "hint") {
    ShowAnalysis(session.Hints(t.opt.hint_visits), size, out);
    return false;
  }
  if (IsAnalyse(word)) {
    ShowGameAnalysis(t);
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

// The first word of the next line ("" for a blank line); false at the end of input.
bool ReadWord(std::istream& in, std::string& word) {
  std::string line;
  if (!std::getline(in, line)) return false;
  word.clear();
  std::istringstream(line) >> word;
  return true;
}

// The person's commands and the AI's replies until the end, quit or the end of input.
void RunGame(const Terminal& t, std::istream& in) {
  play::GameSession& session = t.session;
  std::ostream& out = t.out;
  const auto show_ply = [&](const play::AutoPly& ply) { ShowAutoPly(ply, session.rules().size, out); };
  session.PlayAiTurns(show_ply);
  bool show = true;
  while (!session.game().IsOver()) {
    if (show) out << "\n" << core::RenderBoard(session.game().position());
    out << "your move> " << std::flush;
    std::string word;
    if (!ReadWord(in, word)) break;
    if (word.empty()) {
      show = false;
      continue;
    }
    if (word == "quit" || word == "exit") break;
    show = RunCommand(t, word);
    if (show) session.PlayAiTurns(show_ply);
  }
}

void ShowEnd(const play::GameSession& session, std::ostream& out) {
  const int size = session.rules().size;
  out << "\n" << core::RenderBoard(session.game().position(), /*mark_legal=*/false);
  if (auto result = session.HumanResult()) out << *result << "\n";
  out << "transcript: " << core::FormatTranscript(session.game().moves(), size) << "\n";
}

// After the game: its analysis and the board on request, until quit or the end of input.
void RunAfterGame(const Terminal& t, std::istream& in) {
  t.out << "type analyse for a per-move analysis, or quit\n";
  for (;;) {
    t.out << "> " << std::flush;
    std::string word;
    if (!ReadWord(in, word) || word == "quit" || word == "exit") return;
    if (IsAnalyse(word)) {
      ShowGameAnalysis(t);
    } else if (word == "board") {
      t.out << core::RenderBoard(t.session.game().position(), /*mark_legal=*/false);
    } else if (!word.empty()) {
      t.out << (word == "help" ? "" : "error: ") << kAfterGameHelp;
    }
  }
}

// The rules of the game: the model's board and scoring, the start asked for.
core::Rules GameRules(const PlayOptions& opt, const nn::LoadedModel& model) {
  core::Rules rules = model.rules;
  if (opt.size && opt.size != model.rules.size) {
    throw CliError("--size " + std::to_string(opt.size) + ": " + PlayModelName(opt.model) + " plays " +
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
  const play::Strength strength = opt.strength.Resolve();  // refused before the model loads
  const nn::LoadedModel model = LoadPlayModel(opt.model, opt.device);
  const core::Rules rules = GameRules(opt, model);
  if (opt.color != "black" && opt.color != "white") throw CliError("--color must be black or white");
  play::GameSession session(*model.evaluator, rules, strength, opt.seed, model.rules);
  session.set_human(opt.color == "black" ? core::Color::kBlack : core::Color::kWhite);
  out << "You play " << opt.color << " (X is black, O is white) against "
      << session.strength().Describe() << ". " << kHelp;
  const Terminal terminal{session, *model.evaluator, opt, out};
  RunGame(terminal, in);
  ShowEnd(session, out);
  if (session.game().IsOver()) RunAfterGame(terminal, in);
}

}  // namespace

void RegisterPlay(CLI::App& app) {
  auto opt = std::make_shared<PlayOptions>();
  CLI::App* cmd = app.add_subcommand("play", "Play against the AI in the terminal");
  cmd->add_option("--model", opt->model, kModelHelp);
  cmd->add_option("--color", opt->color, "Your colour: black (moves first) or white")
      ->capture_default_str();
  cmd->add_option("--size", opt->size,
                  "Board size (default: the model's; a different one is an error)");
  cmd->add_option("--start", opt->start, "Start: standard, reversi, random or handicap")
      ->capture_default_str();
  cmd->add_option("--random-moves", opt->random_moves, "Plies of a random start")
      ->capture_default_str();
  AddStrengthOptions(*cmd, opt->strength);
  cmd->add_option("--seed", opt->seed, "Random seed")->capture_default_str();
  AddSetting(*cmd, play::kHintVisits, opt->hint_visits);
  AddSetting(*cmd, play::kAnalysisVisits, opt->analyse_visits, "--analyse-visits")
      ->description("Playouts per searched position of the analyse command");
  AddDeviceOption(*cmd, opt->device);
  cmd->callback([opt] { RunPlay(*opt, std::cin, std::cout); });
}

}  // namespace othello::cli
