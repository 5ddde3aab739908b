#pragma once
// The project's deterministic random numbers.
//
// Mix64 is the SplitMix64 finalizer (Steele, Lea and Flood, "Fast splittable
// pseudorandom number generators", OOPSLA 2014): a few multiplies, every input bit
// affects every output bit; it seeds generators and hashes positions (core/hash.h).
// Rng is xoshiro256** (Blackman and Vigna, 2018) seeded through SplitMix64; unlike
// std:: distributions its sequence is the same on every platform and library.
// Thread safety: Mix64 is pure; an Rng belongs to one thread.
#include <cstdint>

namespace othello::core {

inline std::uint64_t Mix64(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

class Rng {
 public:
  explicit Rng(std::uint64_t seed = 0) {
    for (auto& s : state_) {
      seed += 0x9e3779b97f4a7c15ULL;
      s = Mix64(seed);
    }
  }

  std::uint64_t Next() {
    const std::uint64_t result = Rotl(state_[1] * 5, 7) * 9;
    const std::uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = Rotl(state_[3], 45);
    return result;
  }

  // Uniform integer in [0, n) (Lemire's multiply-shift; n > 0).
  std::uint32_t Below(std::uint32_t n) {
    return static_cast<std::uint32_t>(((Next() >> 32) * n) >> 32);
  }

  // Uniform double in [0, 1).
  double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

  // The full state, to save and restore a generator exactly.
  const std::uint64_t* state() const { return state_; }
  void set_state(const std::uint64_t state[4]) {
    for (int i = 0; i < 4; ++i) state_[i] = state[i];
  }

 private:
  static std::uint64_t Rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t state_[4];
};

}  // namespace othello::core
