// The GTP engine (play/gtp_engine.h): every line of the input is a command to one
// engine over a uniform evaluator. Every reply is "=..." or "?..." ending in an empty
// line (or nothing for blank and comment lines), and the engine keeps running.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "tests/fuzz/fuzz_lines.h"
#include "play/gtp_engine.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace othello;
  fuzz::ForEachReply<play::GtpEngine>(
      data, size, [](play::GtpEngine& engine, play::GameSession&, const std::string& reply) {
        if (!reply.empty() && ((reply[0] != '=' && reply[0] != '?') || reply.size() < 3 ||
                               reply.compare(reply.size() - 2, 2, "\n\n") != 0)) {
          std::abort();
        }
        return !engine.quit();
      });
  return 0;
}
