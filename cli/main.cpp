// othello-zero: the one executable; the subcommands are registered here (cli/commands.h).
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.h"

namespace {

// A board string whose a1 is empty starts with '-' ("-X----...OX... X"), and CLI11 takes a
// token that starts with "-X" or "--X" for an option. No option holds a space, so a token
// whose first word is all discs and empties is a board string (well formed or not, for its
// command to judge): its leading empties become '.', which the board's parser reads as
// empty too (docs/formats.md).
bool LooksLikeBoardString(const std::string& arg) {
  const std::size_t space = arg.find_first_of(" \t");
  if (space == std::string::npos || space < 4) return false;
  return arg.find_first_not_of("XxOo-._*", 0) >= space;
}

std::vector<std::string> WithBoardStringsUnmistakable(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  for (std::size_t i = 1; i < args.size(); ++i) {
    std::string& arg = args[i];
    if (arg.empty() || arg[0] != '-' || !LooksLikeBoardString(arg)) continue;
    for (std::size_t c = 0; c < arg.size() && arg[c] == '-'; ++c) arg[c] = '.';
  }
  return args;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"othello-zero: self-play training and play for Othello (Reversi)"};
  app.set_version_flag("--version", "othello-zero 0.1.0");
  app.require_subcommand(1);
  othello::cli::RegisterPerft(app);
  othello::cli::RegisterSolve(app);
  othello::cli::RegisterBench(app);
  othello::cli::RegisterEngines(app);
  othello::cli::RegisterPlay(app);
  othello::cli::RegisterAnalyse(app);
  othello::cli::RegisterServe(app);
  othello::cli::RegisterArena(app);
  othello::cli::RegisterElo(app);
  othello::cli::RegisterVerify(app);
#if OZ_HAVE_TORCH
  othello::cli::RegisterTrain(app);
  othello::cli::RegisterConfig(app);
  othello::cli::RegisterSelfPlay(app);
  othello::cli::RegisterExport(app);
  othello::cli::RegisterCheck(app);
#endif
  std::vector<std::string> args = WithBoardStringsUnmistakable(argc, argv);
  std::vector<char*> pointers;
  for (std::string& arg : args) pointers.push_back(arg.data());
  try {
    app.parse(static_cast<int>(pointers.size()), pointers.data());
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
