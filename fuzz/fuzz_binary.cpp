// grain's binary sparse tensor form (grain::read_sparse, which recognizes it by its magic, and
// grain::read_binary) through a file. The first byte picks the input's use:
//   even: the rest is the file as it is (the header checks, truncation, the checksum);
//   odd:  the rest with its checksum field recomputed as the writer would, so that the fuzzer
//         reaches what lies behind the checksum (indices beyond the dimensions, the value
//         conversion).
// A read either gives a tensor or raises grain::Error; a tensor read must hold only indices
// within its dimensions.
#include <cstdint>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "fuzz_util.hpp"
#include "grain/core/error.hpp"
#include "grain/sparse/io.hpp"

namespace {

// The checksum of src/sparse/io.cpp: 1 MiB blocks hashed, then the block hashes combined in
// order; the header with its checksum field (bytes 96..103) zero, then the subscripts and values.
std::uint64_t hash_block(const unsigned char* p, std::size_t n, std::uint64_t h) {
  const std::uint64_t k = 0x9E3779B97F4A7C15ull;
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, p + i, 8);
    h = (h ^ w) * k;
    h ^= h >> 31;
  }
  for (; i < n; ++i) h = (h ^ p[i]) * k;
  return h ^ (h >> 29);
}

std::uint64_t checksum(const unsigned char* p, std::size_t n, std::uint64_t h) {
  const std::size_t block = std::size_t(1) << 20;
  for (std::size_t b = 0; b * block < n; ++b) {
    const std::uint64_t part = hash_block(p + b * block, std::min(block, n - b * block), 0x243F6A8885A308D3ull + b);
    h = hash_block(reinterpret_cast<const unsigned char*>(&part), 8, h);
  }
  return h;
}

constexpr std::size_t kHeader = 128, kChecksumAt = 96;

void fix_checksum(std::vector<unsigned char>& f) {
  if (f.size() < kHeader) return;
  std::uint32_t nmodes, value_bytes;
  std::uint64_t nnz;
  std::memcpy(&nmodes, f.data() + 12, 4);
  std::memcpy(&value_bytes, f.data() + 16, 4);
  std::memcpy(&nnz, f.data() + 24, 8);
  if (nmodes > 64 || value_bytes > 64 || nnz > f.size()) return;  // the reader rejects the header anyway
  const std::size_t sbytes = nnz * nmodes * 4, vbytes = nnz * value_bytes;
  if (kHeader + sbytes + vbytes > f.size()) return;
  std::memset(f.data() + kChecksumAt, 0, 8);
  std::uint64_t h = hash_block(f.data(), kHeader, 1);
  h = checksum(f.data() + kHeader, sbytes, h);
  h = checksum(f.data() + kHeader + sbytes, vbytes, h);
  std::memcpy(f.data() + kChecksumAt, &h, 8);
}

template <class T>
void check(const grain::SparseTensor<T, grain::HostSpace>& X) {
  for (grain::index_type j = 0; j < X.nnz(); ++j)
    for (int m = 0; m < X.ndims(); ++m)
      if (X.subscripts()(j, m) >= X.dim(m)) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  std::vector<unsigned char> file(data + 1, data + size);
  if (data[0] & 1) fix_checksum(file);
  const std::string path = grain_fuzz::scratch_dir() + "/input.gst";
  grain_fuzz::write_file(path, file.data(), file.size());
  try {
    check(grain::read_sparse<double>(path));
  } catch (const std::exception&) {
    // grain::Error: the expected outcome of a damaged file (or text that is not a .tns)
  }
  try {
    check(grain::read_binary<float>(path));
  } catch (const std::exception&) {
  }
  return 0;
}
