// Factor files given to `grain cp-als --init` (grain::cp::read_ktensor): PREFIX_lambda.txt and
// PREFIX_mode<n>.txt. The input's first three bytes give the shape (modes 2..4 from the first,
// dimensions 1..8 from the second's bit groups, rank 1..4 from the third); the rest is split at
// NUL bytes into the files: the first part is PREFIX_lambda.txt (left out when the part is
// empty, as the reader allows), the next ones PREFIX_mode1.txt, PREFIX_mode2.txt, ... (a mode
// without a part has no file). The files are read with that shape and with the shape taken from
// them (the `grain score` reader). A read either gives a Ktensor of finite values or raises
// grain::Error.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "fuzz_util.hpp"
#include "grain/core/error.hpp"
#include "grain/cp/ktensor.hpp"

namespace {

// dims empty: the shape from the files.
template <class T>
void read_and_check(const std::string& prefix, const std::vector<grain::index_type>& dims, int rank) {
  try {
    const auto K = dims.empty() ? grain::cp::read_ktensor<T>(prefix) : grain::cp::read_ktensor<T>(prefix, dims, rank);
    rank = K.rank();
    for (int r = 0; r < rank; ++r)
      if (!std::isfinite(K.lambda(r))) __builtin_trap();
    for (int m = 0; m < K.ndims(); ++m)
      for (grain::index_type i = 0; i < K.dim(m); ++i)
        for (int r = 0; r < rank; ++r)
          if (!std::isfinite(K.factors[m](i, r))) __builtin_trap();
  } catch (const std::exception&) {
    // grain::Error: the expected outcome of a malformed or missing file
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 3) return 0;
  const int nmodes = 2 + data[0] % 3;
  std::vector<grain::index_type> dims(nmodes);
  for (int m = 0; m < nmodes; ++m) dims[m] = 1 + ((data[1] >> (2 * m)) & 7);
  const int rank = 1 + data[2] % 4;
  std::vector<std::string> parts(1);
  for (std::size_t i = 3; i < size; ++i) {
    if (data[i] == 0)
      parts.emplace_back();
    else
      parts.back() += static_cast<char>(data[i]);
  }
  const std::string prefix = grain_fuzz::scratch_dir() + "/factors";
  const std::string lambda = prefix + "_lambda.txt";
  std::remove(lambda.c_str());
  if (!parts[0].empty()) grain_fuzz::write_file(lambda, parts[0].data(), parts[0].size());
  for (int m = 1; m <= 4; ++m) {
    const std::string mode = prefix + "_mode" + std::to_string(m) + ".txt";
    std::remove(mode.c_str());
    if (m < static_cast<int>(parts.size())) grain_fuzz::write_file(mode, parts[m].data(), parts[m].size());
  }
  read_and_check<double>(prefix, dims, rank);
  read_and_check<float>(prefix, dims, rank);
  read_and_check<double>(prefix, {}, 0);
  return 0;
}
