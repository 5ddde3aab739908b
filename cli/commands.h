#pragma once
// Subcommands of the othello-zero executable, each in a file named after it
// (NAME_command.cpp), except `config` (in train_command.cpp) and the engines gtp and
// nboard (engine_commands.cpp). Each Register function adds its subcommand (with
// --help) to the app; the callback runs it and throws CliError, or another
// std::exception, on failure.
#include <stdexcept>
#include <string>

#include <CLI/CLI.hpp>

namespace othello::cli {

class CliError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

void RegisterPerft(CLI::App& app);
void RegisterSolve(CLI::App& app);
void RegisterBench(CLI::App& app);
// `bench nn`, a subcommand of `bench`, and `train` (builds with LibTorch only).
void RegisterBenchNn(CLI::App& bench);
// `bench selfplay`, a subcommand of `bench` (LibTorch builds: it runs training's workers).
void RegisterBenchSelfPlay(CLI::App& bench);
// `bench train`, a subcommand of `bench` (LibTorch builds: it runs training's Trainer).
void RegisterBenchTrain(CLI::App& bench);
// `bench model` (every build).
void RegisterBenchModel(CLI::App& bench);
void RegisterTrain(CLI::App& app);
// `config`, the configuration reference (LibTorch builds; in train_command.cpp).
void RegisterConfig(CLI::App& app);
// `selfplay`, an actor on a shared run directory (LibTorch builds).
void RegisterSelfPlay(CLI::App& app);
// `gtp`, `nboard` (every build: exported models run without LibTorch).
void RegisterEngines(CLI::App& app);
void RegisterPlay(CLI::App& app);
// `analyse`, the per-move analysis of a game (every build).
void RegisterAnalyse(CLI::App& app);
void RegisterServe(CLI::App& app);
// `arena` and `elo` (every build: model players read exported models without LibTorch).
void RegisterArena(CLI::App& app);
void RegisterElo(CLI::App& app);
// `verify`, the perfect-play check (every build).
void RegisterVerify(CLI::App& app);
void RegisterExport(CLI::App& app);
// `check` (with LibTorch: it loads checkpoints).
void RegisterCheck(CLI::App& app);

}  // namespace othello::cli
