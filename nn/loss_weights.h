#pragma once
// The weights of the training loss's terms (nn/loss.h; config train.loss_*), apart from
// the loss so that the config needs no LibTorch.

namespace othello::nn {

struct LossWeights {
  float policy = 1.0f;
  float value = 1.0f;
  float ownership = 0.15f;
  float disc_difference = 0.5f;
};

}  // namespace othello::nn
