// GGF game records (core/ggf.h): any bytes give records or an error naming the game; a
// record replays to a game, writes back, and reads again with the same moves.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/ggf.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace othello::core;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto records = ParseGgfFile(text);
  if (!records) return 0;
  for (const GgfRecord& record : *records) {
    const Game game = record.ToGame();
    if (game.moves().size() != record.moves.size()) std::abort();
    auto again = ParseGgf(WriteGgf(record));
    if (!again || again->moves.size() != record.moves.size()) std::abort();
    for (std::size_t i = 0; i < record.moves.size(); ++i) {
      if (again->moves[i].square != record.moves[i].square) std::abort();
    }
    static_cast<void>(GgfRecord::FromGame(game));
  }
  return 0;
}
