#pragma once
// The one checksum of every file the project writes: CRC-32 as zlib and PNG define it
// (reflected polynomial 0xEDB88320, initial and final XOR 0xFFFFFFFF; the check value
// of "123456789" is 0xCBF43926), so Python's zlib.crc32 reads the same value.
// Computed slicing-by-8 (Intel's method, Kounavis and Berry 2005): eight table lookups
// per 8 bytes, a few GB/s, so checksumming a checkpoint or a shard costs nothing.
// Fnv1a64 is kept only to read files written before format versions that use CRC-32.
// Thread safety: pure functions.
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace othello::core {

// CRC-32 of `bytes` bytes at `data`, continuing from `crc` (0 to start).
std::uint32_t Crc32(const void* data, std::size_t bytes, std::uint32_t crc = 0);
inline std::uint32_t Crc32(std::string_view bytes, std::uint32_t crc = 0) {
  return Crc32(bytes.data(), bytes.size(), crc);
}

// 64-bit FNV-1a, continuing from `hash` (checkpoints before version 3, version 1 replay
// shards and journals).
std::uint64_t Fnv1a64(const void* data, std::size_t bytes,
                      std::uint64_t hash = 0xcbf29ce484222325ULL);

}  // namespace othello::core
