// Synthetic sparse tensors, seeded and reproducible (the same options give the same tensor on
// any machine and any thread count).
//
//   random-ktensor  Genten's performance-test tensor (perf_CpAlsRandomKtensor): coordinates drawn
//                   from the distribution of a random Ktensor whose factor entries are uniform and
//                   whose columns sum to 1 (pick a component by its weight, then an index per mode
//                   from that component's column); repeated coordinates are summed into counts.
//   skewed          the same with index frequencies following a power law (weight (k+1)^-skew of
//                   the k-th most popular index of each mode, in a random order): real tensors
//                   (FROSTT) are skewed, and skew is what makes MTTKRP atomics contend.
//   lowrank         an exactly rank-R tensor whose factor columns are sparse (`support` nonzero
//                   rows each), for correctness: CP-ALS at rank R should fit it exactly.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "grain/sparse/sparse_tensor.hpp"

namespace grain {

enum class GeneratorKind { RandomKtensor, Skewed, LowRank };

struct GenerateOptions {
  GeneratorKind kind = GeneratorKind::RandomKtensor;
  std::vector<index_type> dims;
  index_type samples = 0;   // random-ktensor, skewed: coordinates drawn before summing repeats
  int rank = 16;            // components of the generating Ktensor
  double skew = 1.0;        // skewed: power-law exponent
  index_type support = 4;   // lowrank: nonzero rows per factor column
  std::uint64_t seed = 1;
};

// The generating model of a lowrank tensor (host, double): lambda[r], factors[m][i * rank + r].
struct PlantedModel {
  std::vector<double> lambda;
  std::vector<std::vector<double>> factors;
};

template <class T>
SparseTensor<T, HostSpace> generate_sparse(const GenerateOptions& opts, PlantedModel* model = nullptr);

// The nonzeros of generate_sparse(opts) that belong to part `part` of `parts` (by a hash of their
// coordinates, so parts are balanced even for skewed tensors): every part draws all samples and
// keeps its own, so the union of the parts is generate_sparse(opts) exactly (same coordinates and
// values) whatever `parts` is. A sampled part's memory follows its own size. The part has the full
// dimensions (opts.dims), and no nonzero when none hashes to it; `model` is the whole model.
// parts == 1 is generate_sparse. Bad part/parts are errors.
template <class T>
SparseTensor<T, HostSpace> generate_sparse_part(const GenerateOptions& opts, int part, int parts,
                                                PlantedModel* model = nullptr);

GeneratorKind parse_generator_kind(const std::string& name);
const char* generator_kind_name(GeneratorKind k);

}  // namespace grain
