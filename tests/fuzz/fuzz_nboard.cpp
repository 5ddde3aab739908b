// The NBoard engine (play/nboard_engine.h): every line of the input is a command to one
// engine over a uniform evaluator; bad lines get "status error: ..." and the engine
// keeps running. Searches are capped (set depth would ask for thousands of playouts).
#include <cstdint>
#include <cstdlib>
#include <string>

#include "mcts/evaluator.h"
#include "tests/fuzz/fuzz_lines.h"
#include "play/game_session.h"
#include "play/nboard_engine.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace othello;
  mcts::UniformEvaluator evaluator;
  play::Strength strength;
  strength.visits = 8;
  play::GameSession session(evaluator, core::Rules{}, strength);
  play::NBoardEngine engine(session);
  fuzz::ForEachLine(data, size, [&](const std::string& line) {
    const std::string reply = engine.Handle(line);
    if (!reply.empty() && reply.back() != '\n') std::abort();
    if (session.strength().visits > 64) {  // keep each input fast
      play::Strength capped = session.strength();
      capped.visits = 64;
      session.set_strength(capped);
    }
    return true;
  });
  return 0;
}
