#include "arena/player_spec.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>

#include "play/basic_players.h"
#include "play/engine_players.h"
#include "play/search_player.h"

namespace othello::arena {

namespace {

[[noreturn]] void Fail(const std::string& spec, const std::string& why) {
  throw core::InputError("player '" + spec + "': " + why);
}

double Number(const std::string& spec, const std::string& key, const std::string& value,
              double low, double high) {
  char* end = nullptr;
  const double v = std::strtod(value.c_str(), &end);
  if (value.empty() || *end || !std::isfinite(v) || v < low || v > high) {
    Fail(spec, key + "=" + value + " is not a number in [" + std::to_string(low) + ", " +
                   std::to_string(high) + "]");
  }
  return v;
}

// "a=1,b=2" into a map; every key must be known.
std::map<std::string, std::string> Options(const std::string& spec, const std::string& text,
                                           const std::vector<std::string>& known) {
  std::map<std::string, std::string> options;
  std::size_t begin = 0;
  while (begin < text.size()) {
    std::size_t end = text.find(',', begin);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(begin, end - begin);
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos) Fail(spec, "option '" + item + "' is not key=value");
    const std::string key = item.substr(0, eq);
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      std::string list;
      for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
      Fail(spec, "unknown option '" + key + "' (known: " + list + ")");
    }
    options[key] = item.substr(eq + 1);
    begin = end + 1;
  }
  return options;
}

std::string EngineName(const std::string& command) {
  const std::size_t space = command.find(' ');
  const std::string program = command.substr(0, space);
  return std::filesystem::path(program).filename().string() +
         (space == std::string::npos ? "" : command.substr(space));
}

ArenaPlayer ModelPlayer(const std::string& spec, const std::string& path,
                        const std::string& option_text, const PlayerDefaults& defaults) {
  const auto options = Options(spec, option_text,
                               {"visits", "time", "threads", "solver", "cpuct", "device"});
  play::SearchPlayerOptions search;
  search.visits = defaults.visits;
  search.params.leaves_per_batch = 8;
  search.params.solver_empties = 12;
  std::string device = defaults.device;
  for (const auto& [key, value] : options) {
    if (key == "visits") search.visits = static_cast<std::uint64_t>(Number(spec, key, value, 0, 1e9));
    if (key == "time") search.seconds_per_move = Number(spec, key, value, 0, 1e6);
    if (key == "threads") search.params.threads = static_cast<int>(Number(spec, key, value, 1, 256));
    if (key == "solver") search.params.solver_empties = static_cast<int>(Number(spec, key, value, 0, 30));
    if (key == "cpuct") search.params.c_puct = static_cast<float>(Number(spec, key, value, 0.01, 100));
    if (key == "device") device = value;
  }
  if (search.visits == 0 && search.seconds_per_move == 0) {
    Fail(spec, "give visits=N or time=SECONDS (a search needs a limit)");
  }
  if (search.visits == 1) search.params.solver_empties = 0;  // the raw policy
  if (!defaults.load_model) Fail(spec, "this program cannot load models");
  nn::ModelOptions model_options;
  model_options.device = device;
  nn::LoadedModel model;
  try {
    model = defaults.load_model(path, model_options);
  } catch (const core::InputError& e) {
    Fail(spec, e.what());
  }
  const std::string name = std::filesystem::path(path).stem().string() +
                           (search.visits ? "/v" + std::to_string(search.visits) : "") +
                           (search.seconds_per_move > 0 ? "/" + options.at("time") + "s" : "");
  ArenaPlayer player = SearchArenaPlayer(name, model.evaluator, search);
  player.trained = model.rules;
  return player;
}

}  // namespace

ArenaPlayer SearchArenaPlayer(const std::string& name, std::shared_ptr<mcts::Evaluator> evaluator,
                              const play::SearchPlayerOptions& options) {
  ArenaPlayer player;
  player.name = name;
  player.make = [name, evaluator, options](std::uint64_t seed) {
    play::SearchPlayerOptions o = options;
    o.name = name;
    o.seed = seed;
    return std::make_unique<play::SearchPlayer>(*evaluator, o);
  };
  return player;
}

ArenaPlayer MakeArenaPlayer(const std::string& spec, const PlayerDefaults& defaults) {
  std::string rest = spec, name;
  const std::size_t at = spec.find('@'), colon = spec.find(':');
  if (at != std::string::npos && (colon == std::string::npos || at < colon)) {
    name = spec.substr(0, at);
    rest = spec.substr(at + 1);
    if (name.empty()) Fail(spec, "the name before '@' is empty");
  }
  const std::size_t kind_end = rest.find_first_of(":,");
  const std::string kind = rest.substr(0, kind_end);
  const std::string tail = kind_end == std::string::npos ? "" : rest.substr(kind_end + 1);
  const bool has_arg = kind_end != std::string::npos && rest[kind_end] == ':';
  const std::size_t comma = tail.find(',');
  const std::string arg = has_arg ? tail.substr(0, comma) : "";
  const std::string option_text =
      has_arg ? (comma == std::string::npos ? "" : tail.substr(comma + 1)) : tail;

  ArenaPlayer player;
  if (kind == "random" || kind == "greedy") {
    if (has_arg || !option_text.empty()) Fail(spec, kind + " takes no argument or options");
    player.name = kind;
    player.make = [kind](std::uint64_t seed) -> std::unique_ptr<play::Player> {
      if (kind == "random") return std::make_unique<play::RandomPlayer>(seed);
      return std::make_unique<play::GreedyPlayer>(seed);
    };
  } else if (kind == "alphabeta" || kind == "ab") {
    if (!option_text.empty()) Fail(spec, "alphabeta takes no options");
    const int depth = static_cast<int>(Number(spec, "depth", arg, 1, 12));
    if (depth != Number(spec, "depth", arg, 1, 12)) Fail(spec, "the depth must be a whole number");
    player.name = "alphabeta" + std::to_string(depth);
    player.make = [depth](std::uint64_t seed) {
      return std::make_unique<play::AlphaBetaPlayer>(depth, seed);
    };
  } else if (kind == "model") {
    if (arg.empty()) Fail(spec, "model needs a model file or checkpoint: model:PATH[,visits=N]");
    player = ModelPlayer(spec, arg, option_text, defaults);
  } else if (kind == "gtp" || kind == "nboard") {
    const std::string command = has_arg ? tail : "";
    if (command.find_first_not_of(' ') == std::string::npos) {
      Fail(spec, kind + " needs the engine's command line: " + kind + ":COMMAND");
    }
    play::EngineOptions engine;
    engine.name = EngineName(command);
    engine.move_timeout_seconds = defaults.engine_timeout_seconds;
    engine.nboard_depth = defaults.nboard_depth;
    player.name = engine.name;
    const bool gtp = kind == "gtp";
    player.make = [gtp, command, engine](std::uint64_t) -> std::unique_ptr<play::Player> {
      if (gtp) return std::make_unique<play::GtpPlayer>(command, engine);
      return std::make_unique<play::NBoardPlayer>(command, engine);
    };
  } else {
    Fail(spec, "unknown player kind '" + kind +
                   "' (use random, greedy, alphabeta:D, model:PATH, gtp:COMMAND or nboard:COMMAND)");
  }
  if (!name.empty()) {
    player.name = name;
    auto make = player.make;
    // Engines and searches record the name they are given.
    player.make = [make, name](std::uint64_t seed) {
      auto p = make(seed);
      return std::unique_ptr<play::Player>(new play::NamedPlayer(std::move(p), name));
    };
  }
  return player;
}

}  // namespace othello::arena
