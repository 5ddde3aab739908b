#pragma once
// A deliberately simple, square-by-square implementation of the rules, kept only to
// check the fast bitboard core against. No bit tricks: a board is a vector of cells
// and every rule is a loop over squares and directions.
#include <cstdint>
#include <vector>

namespace othello::reference {

enum Cell : int { kEmpty = 0, kBlack = 1, kWhite = 2 };

struct Board {
  int size = 8;
  std::vector<int> cells;  // cells[row * size + col]
  int to_move = kBlack;
};

Board StandardStart(int size);
bool CenterEmpty(const Board& b);  // reversi placement phase
std::vector<int> Flips(const Board& b, int sq);  // squares flipped by `to_move` at sq
bool IsLegal(const Board& b, int sq);
std::vector<int> LegalMoves(const Board& b);  // ascending
Board Play(const Board& b, int sq);  // sq == -1 passes
bool GameOver(const Board& b);
int Count(const Board& b, int color);
// Black's margin after scoring (anti flips the goal; empties to the winner).
int BlackMargin(const Board& b, bool anti, bool empties_to_winner);
std::uint64_t Perft(const Board& b, int depth);

}  // namespace othello::reference
