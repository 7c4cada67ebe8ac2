// What the CP suites share: test tensors.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
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

// An exactly rank-R sparse N-way tensor with block-like supports: component r is nonzero on rows
// [r * run, (r + 1) * run) of every mode (disjoint blocks), its entries in [0.5, 1.5), its weight
// between 1 and 3. ALS from random starts often stalls on it (one component spread over two
// blocks). The planted model goes to *model (factors R * run x R, row-major).
inline grain::SparseTensor<double> block_tensor(int N, int R, grain::index_type run, std::uint64_t seed,
                                                grain::PlantedModel* model = nullptr) {
  const grain::index_type I = R * run;
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(0.5, 1.5);
  grain::PlantedModel pm;
  pm.factors.assign(N, std::vector<double>(static_cast<std::size_t>(I) * R, 0.0));
  for (int r = 0; r < R; ++r) {
    pm.lambda.push_back(1.0 + 2.0 * r / std::max(1, R - 1));
    for (int m = 0; m < N; ++m)
      for (grain::index_type i = r * run; i < (r + 1) * run; ++i) pm.factors[m][i * R + r] = u(g);
  }
  grain::index_type block = 1;
  for (int m = 0; m < N; ++m) block *= run;
  grain::SparseTensor<double> X(std::vector<grain::index_type>(N, I), R * block);
  for (int r = 0; r < R; ++r)
    for (grain::index_type t = 0; t < block; ++t) {
      const grain::index_type j = r * block + t;
      grain::index_type q = t;
      double v = pm.lambda[r];
      for (int m = 0; m < N; ++m) {
        const grain::index_type i = r * run + q % run;
        q /= run;
        X.subscripts()(j, m) = static_cast<grain::subscript_type>(i);
        v *= pm.factors[m][i * R + r];
      }
      X.values()(j) = v;
    }
  if (model) *model = std::move(pm);
  return X;
}

}  // namespace grain::test
