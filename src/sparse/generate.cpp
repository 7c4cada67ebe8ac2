// Synthetic tensors: see include/grain/sparse/generate.hpp.
#include "grain/sparse/generate.hpp"

#include "grain/core/progress.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#if defined(GRAIN_ENABLE_OPENMP)
#include <omp.h>
#include <parallel/algorithm>
#endif

namespace grain {
namespace {

// SplitMix64: independent, reproducible streams per block of samples.
std::uint64_t splitmix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// The part a packed coordinate belongs to: a hash, so parts are balanced however skewed the
// coordinates are, and repeats of one coordinate (summed into one nonzero) share a part.
int part_of(std::uint64_t key, int parts) {
  return static_cast<int>(splitmix(key ^ 0x5851F42D4C957F2Dull) % static_cast<std::uint64_t>(parts));
}

double uniform01(std::mt19937_64& g) { return (g() >> 11) * (1.0 / 9007199254740992.0); }

void sort_keys(std::vector<std::uint64_t>& k) {
#if defined(GRAIN_ENABLE_OPENMP)
  __gnu_parallel::sort(k.begin(), k.end());
#else
  std::sort(k.begin(), k.end());
#endif
}

struct Packing {
  int bits[kMaxSparseModes];
  int shift[kMaxSparseModes];
  explicit Packing(const std::vector<index_type>& dims) {
    int total = 0;
    for (int m = static_cast<int>(dims.size()) - 1; m >= 0; --m) {
      int b = 0;
      while ((index_type(1) << b) < dims[m]) ++b;
      bits[m] = b;
      shift[m] = total;
      total += b;
    }
    if (total > 64)
      impl::throw_error("grain generate: dimensions ", dims_string(dims), " need ", total,
                        " bits per coordinate; the generator packs coordinates into 64");
  }
  std::uint64_t pack(const std::uint64_t* c, int n) const {
    std::uint64_t k = 0;
    for (int m = 0; m < n; ++m) k |= c[m] << shift[m];
    return k;
  }
  std::uint64_t unpack(std::uint64_t k, int m) const {
    return bits[m] == 0 ? 0 : (k >> shift[m]) & ((bits[m] == 64 ? ~0ull : (1ull << bits[m]) - 1));
  }
};

void check_options(const GenerateOptions& o) {
  SparseTensor<double>::check_dims(o.dims);
  if (o.rank < 1) impl::throw_error("grain generate: rank ", o.rank, " must be at least 1");
  if (o.kind != GeneratorKind::LowRank && o.samples < 1)
    impl::throw_error("grain generate: the number of samples (nonzeros to draw) must be at least 1");
  if (o.kind == GeneratorKind::Skewed && !(o.skew >= 0.0 && o.skew <= 10.0))
    impl::throw_error("grain generate: skew ", o.skew, " must be in [0, 10]");
  if (o.kind == GeneratorKind::LowRank) {
    if (o.support < 1) impl::throw_error("grain generate: support ", o.support, " must be at least 1");
    double n = o.rank;
    for (index_type d : o.dims) {
      if (o.support > d)
        impl::throw_error("grain generate: support ", o.support, " exceeds dimension ", d);
      n *= static_cast<double>(o.support);
    }
    if (n > 2e8)
      impl::throw_error("grain generate: lowrank with rank ", o.rank, " and support ", o.support,
                        " would have up to ", n, " nonzeros; choose a smaller support");
  }
}

template <class T>
SparseTensor<T, HostSpace> from_keys(const std::vector<index_type>& dims, const Packing& pk,
                                     const std::vector<std::uint64_t>& keys,
                                     const std::vector<double>& vals) {
  const int N = static_cast<int>(dims.size());
  SparseTensor<T, HostSpace> X(dims, static_cast<index_type>(keys.size()));
  subscript_type* s = X.subscripts().data();
  T* v = X.values().data();
  const std::int64_t n = static_cast<std::int64_t>(keys.size());
#if defined(GRAIN_ENABLE_OPENMP)
#pragma omp parallel for schedule(static)
#endif
  for (std::int64_t j = 0; j < n; ++j) {
    for (int m = 0; m < N; ++m) s[j * N + m] = static_cast<subscript_type>(pk.unpack(keys[j], m));
    v[j] = static_cast<T>(vals[j]);
  }
  return X;
}

// Part `part` of `parts` keeps only its coordinates' samples: every part draws all of them.
template <class T>
SparseTensor<T, HostSpace> sampled(const GenerateOptions& o, int part, int parts) {
  const int N = static_cast<int>(o.dims.size());
  const int R = o.rank;
  const Packing pk(o.dims);
  std::mt19937_64 g(splitmix(o.seed));
  // Factor columns as cumulative distributions, column-major: cdf[m][r * dim + i].
  std::vector<std::vector<double>> cdf(N);
  for (int m = 0; m < N; ++m) {
    const index_type I = o.dims[m];
    std::vector<double> weight(I, 1.0);
    if (o.kind == GeneratorKind::Skewed) {
      std::vector<index_type> order(I);
      std::iota(order.begin(), order.end(), 0);
      std::shuffle(order.begin(), order.end(), g);  // which index is the k-th most popular
      for (index_type k = 0; k < I; ++k) weight[order[k]] = std::pow(double(k + 1), -o.skew);
    }
    cdf[m].resize(static_cast<std::size_t>(I) * R);
    for (int r = 0; r < R; ++r) {
      double* c = cdf[m].data() + static_cast<std::size_t>(r) * I;
      double run = 0;
      for (index_type i = 0; i < I; ++i) {
        run += uniform01(g) * weight[i];
        c[i] = run;
      }
      for (index_type i = 0; i < I; ++i) c[i] /= run;  // columns sum to 1
      c[I - 1] = 1.0;
    }
  }
  std::vector<double> lcdf(R);
  double run = 0;
  for (int r = 0; r < R; ++r) lcdf[r] = run += uniform01(g);
  for (int r = 0; r < R; ++r) lcdf[r] /= run;
  lcdf[R - 1] = 1.0;

  const index_type block = 1 << 16;
  const index_type nblocks = (o.samples + block - 1) / block;
  // The coordinate of one sample, drawn from the block's stream.
  auto draw = [&](std::mt19937_64& gb) {
    std::uint64_t c[kMaxSparseModes];
    const int r = static_cast<int>(std::lower_bound(lcdf.begin(), lcdf.end(), uniform01(gb)) - lcdf.begin());
    for (int m = 0; m < N; ++m) {
      const double* col = cdf[m].data() + static_cast<std::size_t>(std::min(r, R - 1)) * o.dims[m];
      const double u = uniform01(gb);
      index_type i = std::upper_bound(col, col + o.dims[m], u) - col;
      c[m] = static_cast<std::uint64_t>(std::min(i, o.dims[m] - 1));
    }
    return pk.pack(c, N);
  };
  auto block_stream = [&](index_type b) {
    return std::mt19937_64(splitmix(o.seed ^ splitmix(static_cast<std::uint64_t>(b) + 12345)));
  };
  std::vector<std::uint64_t> keys;
  Progress progress("generating", static_cast<double>(o.samples), "samples");
  // body(stream, lo, hi) draws samples [lo, hi) of each block, the blocks in parallel.
  auto for_each_block = [&](auto&& body) {
#if defined(GRAIN_ENABLE_OPENMP)
#pragma omp parallel for schedule(dynamic, 4)
#endif
    for (index_type b = 0; b < nblocks; ++b) {
      std::mt19937_64 gb = block_stream(b);
      const index_type lo = b * block, hi = std::min(o.samples, lo + block);
      body(gb, lo, hi);
      progress.add(static_cast<std::uint64_t>(hi - lo));
    }
  };
  if (parts == 1) {
    keys.resize(static_cast<std::size_t>(o.samples));
    for_each_block([&](std::mt19937_64& gb, index_type lo, index_type hi) {
      for (index_type s = lo; s < hi; ++s) keys[s] = draw(gb);
    });
  } else {
    // Each block keeps its part's keys in its own vector, so memory follows the part's size.
    std::vector<std::vector<std::uint64_t>> kept(static_cast<std::size_t>(nblocks));
    for_each_block([&](std::mt19937_64& gb, index_type lo, index_type hi) {
      std::vector<std::uint64_t>& k = kept[static_cast<std::size_t>(lo / block)];
      k.reserve(static_cast<std::size_t>((hi - lo) / parts + 64));
      for (index_type s = lo; s < hi; ++s) {
        const std::uint64_t key = draw(gb);
        if (part_of(key, parts) == part) k.push_back(key);
      }
    });
    std::size_t total = 0;
    for (const auto& k : kept) total += k.size();
    keys.reserve(total);
    for (auto& k : kept) {
      keys.insert(keys.end(), k.begin(), k.end());
      std::vector<std::uint64_t>().swap(k);
    }
  }
  sort_keys(keys);
  // Repeated coordinates become one nonzero whose value is the count.
  std::vector<std::uint64_t> uk;
  std::vector<double> counts;
  uk.reserve(keys.size());
  counts.reserve(keys.size());
  for (std::size_t j = 0; j < keys.size();) {
    std::size_t e = j + 1;
    while (e < keys.size() && keys[e] == keys[j]) ++e;
    uk.push_back(keys[j]);
    counts.push_back(static_cast<double>(e - j));
    j = e;
  }
  return from_keys<T>(o.dims, pk, uk, counts);
}

template <class T>
SparseTensor<T, HostSpace> low_rank(const GenerateOptions& o, PlantedModel* model, int part, int parts) {
  const int N = static_cast<int>(o.dims.size());
  const int R = o.rank;
  const index_type S = o.support;
  const Packing pk(o.dims);
  std::mt19937_64 g(splitmix(o.seed));
  PlantedModel pm;
  pm.lambda.resize(R);
  for (int r = 0; r < R; ++r) pm.lambda[r] = 1.0 + uniform01(g);
  // rows[m][r * S + s]: the s-th nonzero row of column r of factor m.
  std::vector<std::vector<index_type>> rows(N);
  pm.factors.resize(N);
  for (int m = 0; m < N; ++m) {
    const index_type I = o.dims[m];
    pm.factors[m].assign(static_cast<std::size_t>(I) * R, 0.0);
    rows[m].resize(static_cast<std::size_t>(R) * S);
    std::vector<index_type> all(I);
    for (int r = 0; r < R; ++r) {
      std::iota(all.begin(), all.end(), 0);
      for (index_type s = 0; s < S; ++s) {  // partial Fisher-Yates: S distinct rows
        const index_type k = s + static_cast<index_type>(g() % static_cast<std::uint64_t>(I - s));
        std::swap(all[s], all[k]);
        rows[m][r * S + s] = all[s];
        pm.factors[m][all[s] * R + r] = 0.5 + uniform01(g);
      }
    }
  }
  std::vector<std::uint64_t> keys;
  std::vector<double> vals;
  index_type combos = 1;
  for (int m = 0; m < N; ++m) combos *= S;
  std::uint64_t c[kMaxSparseModes];
  for (int r = 0; r < R; ++r) {
    for (index_type t = 0; t < combos; ++t) {
      index_type q = t;
      double v = pm.lambda[r];
      for (int m = 0; m < N; ++m) {
        const index_type i = rows[m][r * S + q % S];
        q /= S;
        c[m] = static_cast<std::uint64_t>(i);
        v *= pm.factors[m][i * R + r];
      }
      keys.push_back(pk.pack(c, N));
      vals.push_back(v);
    }
  }
  // Sum the components' contributions at shared coordinates.
  std::vector<std::size_t> order(keys.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return keys[a] < keys[b]; });
  std::vector<std::uint64_t> uk;
  std::vector<double> uv;
  for (std::size_t j = 0; j < order.size();) {
    std::size_t e = j;
    double sum = 0;
    while (e < order.size() && keys[order[e]] == keys[order[j]]) sum += vals[order[e++]];
    uk.push_back(keys[order[j]]);
    uv.push_back(sum);
    j = e;
  }
  if (model) *model = std::move(pm);
  if (parts > 1) {
    // Filtered after the sums, so a part's values are bit-identical to the whole tensor's.
    std::size_t n = 0;
    for (std::size_t j = 0; j < uk.size(); ++j)
      if (part_of(uk[j], parts) == part) {
        uk[n] = uk[j];
        uv[n++] = uv[j];
      }
    uk.resize(n);
    uv.resize(n);
  }
  return from_keys<T>(o.dims, pk, uk, uv);
}

}  // namespace

template <class T>
SparseTensor<T, HostSpace> generate_sparse(const GenerateOptions& opts, PlantedModel* model) {
  check_options(opts);
  if (opts.kind == GeneratorKind::LowRank) return low_rank<T>(opts, model, 0, 1);
  return sampled<T>(opts, 0, 1);
}

template <class T>
SparseTensor<T, HostSpace> generate_sparse_part(const GenerateOptions& opts, int part, int parts,
                                                PlantedModel* model) {
  if (parts < 1 || part < 0 || part >= parts)
    impl::throw_error("grain generate: part ", part, " of ", parts,
                      " parts: parts must be at least 1 and part in [0, parts)");
  check_options(opts);
  if (opts.kind == GeneratorKind::LowRank) return low_rank<T>(opts, model, part, parts);
  return sampled<T>(opts, part, parts);
}

GeneratorKind parse_generator_kind(const std::string& name) {
  if (name == "random-ktensor" || name == "ktensor") return GeneratorKind::RandomKtensor;
  if (name == "skewed") return GeneratorKind::Skewed;
  if (name == "lowrank" || name == "low-rank") return GeneratorKind::LowRank;
  impl::throw_error("unknown tensor kind '", name, "' (random-ktensor, skewed, lowrank)");
}

const char* generator_kind_name(GeneratorKind k) {
  switch (k) {
    case GeneratorKind::RandomKtensor: return "random-ktensor";
    case GeneratorKind::Skewed: return "skewed";
    case GeneratorKind::LowRank: return "lowrank";
  }
  return "?";
}

template SparseTensor<float, HostSpace> generate_sparse<float>(const GenerateOptions&, PlantedModel*);
template SparseTensor<double, HostSpace> generate_sparse<double>(const GenerateOptions&, PlantedModel*);
template SparseTensor<float, HostSpace> generate_sparse_part<float>(const GenerateOptions&, int, int,
                                                                   PlantedModel*);
template SparseTensor<double, HostSpace> generate_sparse_part<double>(const GenerateOptions&, int, int,
                                                                     PlantedModel*);

}  // namespace grain
