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
  if (data[0] & 1) grain::impl::set_binary_checksum(file.data(), file.size());
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
