// othello-zero: the one executable; the subcommands are registered here (cli/commands.h).
#include <exception>
#include <iostream>

#include "cli/commands.h"

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
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
