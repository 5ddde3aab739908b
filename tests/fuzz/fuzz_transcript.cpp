// Transcripts and squares (core/notation.h): the first byte picks the board size; the
// rest is a transcript from the standard start. Every parsed ply is legal, and the
// transcript written back parses to the same plies.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/game.h"
#include "core/notation.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace othello::core;
  if (size == 0) return 0;
  const int board = 4 + 2 * (data[0] % 4);
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  static_cast<void>(ParseSquare(text, board));
  const Position start = Position::Standard(board);
  auto plies = ParseTranscript(text, start);
  if (!plies) return 0;
  Game game(Rules{board}, start);
  for (Square sq : *plies) {
    if (game.Play(sq)) std::abort();  // the parser let an illegal ply through
  }
  auto again = ParseTranscript(FormatTranscript(*plies, board), start);
  if (!again || *again != *plies) {
    // Only trailing passes are dropped by FormatTranscript (a pass at the very end).
    if (!again) std::abort();
    for (std::size_t i = 0; i < again->size(); ++i) {
      if ((*again)[i] != (*plies)[i]) std::abort();
    }
    for (std::size_t i = again->size(); i < plies->size(); ++i) {
      if ((*plies)[i] != kPass) std::abort();
    }
  }
  return 0;
}
