#pragma once
// The weights of the training loss's terms (nn/loss.h; config train.loss_*), apart from
// the loss so that the config needs no LibTorch.

namespace othello::nn {

struct LossWeights {
  float policy = 1.0f;
  float value = 1.0f;
  float ownership = 0.15f;
  float disc_difference = 0.5f;
  // The auxiliary heads (nn/aux_heads.h), trained only where a weight is above 0:
  float soft_policy = 0.0f;       // the policy target flattened (KataGo's soft policy)
  float reply_policy = 0.0f;      // the opponent's reply
  float short_term_value = 0.0f;  // the short-term values

  bool aux_heads() const { return soft_policy > 0 || reply_policy > 0 || short_term_value > 0; }
};

}  // namespace othello::nn
