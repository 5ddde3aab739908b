// The NBoard engine (play/nboard_engine.h): every line of the input is a command to one
// engine over a uniform evaluator; bad lines get "status error: ..." and the engine
// keeps running. Searches are capped (set depth would ask for thousands of playouts).
#include <cstdint>
#include <cstdlib>
#include <string>

#include "tests/fuzz/fuzz_lines.h"
#include "play/nboard_engine.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace othello;
  fuzz::ForEachReply<play::NBoardEngine>(
      data, size, [](play::NBoardEngine&, play::GameSession& session, const std::string& reply) {
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
