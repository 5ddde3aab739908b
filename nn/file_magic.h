#pragma once
// The first bytes of othello-zero's two model files, spelled once: the exported model
// (nn/model_file.h, read without LibTorch) and the checkpoint (nn/checkpoint.h).
// Thread safety: constants.
namespace othello::nn {

inline constexpr char kModelFileMagic[8] = {'O', 'Z', 'M', 'O', 'D', 'E', 'L', '\0'};
// The checkpoint's last two bytes are its magic's version ("01"); readers compare the
// first six.
inline constexpr char kCheckpointMagic[8] = {'O', 'Z', 'C', 'K', 'P', 'T', '0', '1'};
inline constexpr int kCheckpointMagicCompared = 6;

}  // namespace othello::nn
