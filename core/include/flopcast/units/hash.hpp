#pragma once
/// Hash mixing for the per-thread memos (GEMM times, collective costs).
#include <cstdint>

namespace flopcast::units {

/// MurmurHash3's 64-bit finalizer (fmix64; Austin Appleby, MurmurHash3, public domain): every
/// input bit reaches every output bit. The memos index their slots with the low bits, and keys
/// that differ only in high bits (byte sizes a power of two apart differ only in a double's
/// exponent) must still land in different slots.
constexpr std::uint64_t mix64(std::uint64_t h) {
  h ^= h >> 33;
  h *= 0xFF51AFD7ED558CCDull;
  h ^= h >> 33;
  h *= 0xC4CEB9FE1A85EC53ull;
  h ^= h >> 33;
  return h;
}

}  // namespace flopcast::units
