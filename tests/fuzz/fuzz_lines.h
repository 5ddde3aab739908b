#pragma once
// Shared by the protocol fuzz targets: the input as lines, each handed to an engine
// (or to `handle`) until it returns false.
#include <cstddef>
#include <cstdint>
#include <string>

#include "mcts/evaluator.h"
#include "play/game_session.h"

namespace othello::fuzz {

template <typename Handle>
void ForEachLine(const std::uint8_t* data, std::size_t size, Handle&& handle) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  for (std::size_t begin = 0; begin < input.size();) {
    std::size_t end = input.find('\n', begin);
    if (end == std::string::npos) end = input.size();
    if (!handle(input.substr(begin, end - begin))) return;
    begin = end + 1;
  }
}

// One protocol engine over a fresh 8x8 game session (uniform evaluator, 8 playouts a
// move); `on_reply(engine, session, reply)` sees the reply to each line and returns
// whether to go on.
template <typename Engine, typename OnReply>
void ForEachReply(const std::uint8_t* data, std::size_t size, OnReply&& on_reply) {
  mcts::UniformEvaluator evaluator;
  play::Strength strength;
  strength.visits = 8;
  play::GameSession session(evaluator, core::Rules{}, strength);
  Engine engine(session);
  ForEachLine(data, size, [&](const std::string& line) {
    return on_reply(engine, session, engine.Handle(line));
  });
}

}  // namespace othello::fuzz
