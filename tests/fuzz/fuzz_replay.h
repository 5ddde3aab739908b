#pragma once
// Shared by the replay fuzz targets: every accepted record is used as the trainer
// would use it (a position, its legal moves, its eight symmetric forms).
#include <cstdlib>

#include "training/sample.h"

namespace othello::fuzz {

inline void UseSample(const training::Sample& sample) {
  if (training::CheckSample(sample, 0)) std::abort();  // the reader let a bad record in
  for (int symmetry = 0; symmetry < 8; ++symmetry) {
    training::Sample copy = sample;
    training::TransformSample(copy, symmetry);
    static_cast<void>(copy.ToPosition().LegalMoves());
  }
}

}  // namespace othello::fuzz
