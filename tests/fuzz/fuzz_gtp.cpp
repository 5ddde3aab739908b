// The GTP engine (play/gtp_engine.h): every line of the input is a command to one
// engine over a uniform evaluator. Every reply is "=..." or "?..." ending in an empty
// line (or nothing for blank and comment lines), and the engine keeps running.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "mcts/evaluator.h"
#include "tests/fuzz/fuzz_lines.h"
#include "play/game_session.h"
#include "play/gtp_engine.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace othello;
  mcts::UniformEvaluator evaluator;
  play::Strength strength;
  strength.visits = 8;
  play::GameSession session(evaluator, core::Rules{}, strength);
  play::GtpEngine engine(session);
  fuzz::ForEachLine(data, size, [&](const std::string& line) {
    const std::string reply = engine.Handle(line);
    if (!reply.empty() && ((reply[0] != '=' && reply[0] != '?') || reply.size() < 3 ||
                           reply.compare(reply.size() - 2, 2, "\n\n") != 0)) {
      std::abort();
    }
    return !engine.quit();
  });
  return 0;
}
