// othello-zero serve: play against the AI in a web browser (play/web_server.h).
#include <csignal>
#include <iostream>

#include "cli/commands.h"
#include "cli/play_model.h"
#include "play/web_server.h"

namespace othello::cli {
namespace {

struct ServeOptions {
  std::string model;
  std::string host = "127.0.0.1";
  int port = 8080;
  int level = play::kServeLevel;
  std::uint64_t seed = 1;
  std::string device = "auto";
};

play::WebServer* g_server = nullptr;

extern "C" void StopServer(int) {
  if (g_server) g_server->Stop();
}

void RunServe(const ServeOptions& opt) {
  const nn::LoadedModel model = LoadPlayModel(opt.model, opt.device);
  play::WebApi api(*model.evaluator, model.rules, opt.level, opt.seed, model.rules);
  play::WebServer server(api);
  g_server = &server;
  std::signal(SIGINT, StopServer);
  std::signal(SIGTERM, StopServer);
  std::cout << "serving http://" << opt.host << ":" << opt.port << "/ (Ctrl-C stops)" << std::endl;
  server.Run(opt.host, opt.port);
  g_server = nullptr;
}

}  // namespace

void RegisterServe(CLI::App& app) {
  auto opt = std::make_shared<ServeOptions>();
  CLI::App* cmd = app.add_subcommand("serve", "Play against the AI in a web browser");
  cmd->add_option("--model", opt->model, kModelHelp);
  cmd->add_option("--port", opt->port, "Port")->capture_default_str()->check(CLI::Range(1, 65535));
  cmd->add_option("--host", opt->host, "Address to listen on (127.0.0.1: this machine only)")
      ->capture_default_str();
  cmd->add_option(play::kLevel.flag, opt->level,
                  "The page's first strength level, 1 (weakest) to 10 (the page can change it)")
      ->capture_default_str()
      ->check(CLI::Range(play::kLevel.low, play::kLevel.high));
  cmd->add_option("--seed", opt->seed, "Random seed")->capture_default_str();
  AddDeviceOption(*cmd, opt->device);
  cmd->callback([opt] { RunServe(*opt); });
}

}  // namespace othello::cli
