// What the CP suites share: test tensors.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "grain_test.hpp"

namespace grain::test {

// A random-Ktensor tensor (Genten's kind) of the given sizes, samples, generating rank and seed.
inline grain::SparseTensor<double> random_ktensor_tensor(std::vector<grain::index_type> dims,
                                                         grain::index_type samples, int rank, std::uint64_t seed) {
  grain::GenerateOptions g;
  g.dims = std::move(dims);
  g.samples = samples;
  g.rank = rank;
  g.seed = seed;
  return grain::generate_sparse<double>(g);
}

}  // namespace grain::test
