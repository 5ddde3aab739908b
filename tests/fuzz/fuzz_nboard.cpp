// The NBoard engine (play/nboard_engine.h): every line of the input is a command to one
// engine over a uniform evaluator; bad lines get "status error: ..." and the engine
// keeps running. Searches are capped (set depth would ask for thousands of playouts).
#include <cstdint>
#include <cstdlib>
#include <string>

#include "mcts/evaluator.h"
#include "play/game_session.h"
#include "play/nboard_engine.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace othello;
  mcts::UniformEvaluator evaluator;
  play::Strength strength;
  strength.visits = 8;
  play::GameSession session(evaluator, core::Rules{}, strength);
  play::NBoardEngine engine(session);
  const std::string input(reinterpret_cast<const char*>(data), size);
  std::size_t begin = 0;
  while (begin < input.size()) {
    std::size_t end = input.find('\n', begin);
    if (end == std::string::npos) end = input.size();
    const std::string reply = engine.Handle(input.substr(begin, end - begin));
    if (!reply.empty() && reply.back() != '\n') std::abort();
    if (session.strength().visits > 64) {  // keep each input fast
      play::Strength capped = session.strength();
      capped.visits = 64;
      session.set_strength(capped);
    }
    begin = end + 1;
  }
  return 0;
}
