// CP-ALS checkpoints: the state of a run after iteration k (lambda, the un-arranged factors, the
// fit after every iteration, the options that shape the iterations, and what identifies the
// tensor), written atomically so that a run killed at any moment leaves either the previous
// checkpoint or the new one, never a mixture. Resuming from one (CpAlsOptions::iterations_done and
// fit_done) continues exactly where the run stopped.
//
// File layout (native byte order, little-endian on every supported machine):
//   "GRAINCKP" magic (8 bytes), version (u32), modes N (u32), rank R (u32), value bytes (u32: the
//   run's element type), maxiters (i32), iterations done k (i32), tol (f64), seed (u64), nnz (u64),
//   tensor fingerprint (u64), MTTKRP algorithm name (16 bytes, NUL-padded), dims (N x u64),
//   fits (k x f64), lambda (R x f64), factors (dims[m] x R x f64, row-major, mode by mode),
//   checksum (u64) of every byte before it.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "grain/core.hpp"
#include "grain/cp/ktensor.hpp"
#include "grain/sparse/sparse_tensor.hpp"

namespace grain::cp {

inline constexpr std::uint32_t kCheckpointVersion = 1;

struct CpAlsCheckpoint {
  std::uint32_t version = kCheckpointVersion;  // as read; write_checkpoint writes kCheckpointVersion
  // The tensor: a resumed run on another tensor is an error (check_checkpoint_tensor).
  std::vector<index_type> dims;
  std::int64_t nnz = 0;
  std::uint64_t fingerprint = 0;  // tensor_fingerprint
  // The run's settings.
  int rank = 0;
  int value_bytes = 8;  // sizeof the element type: 4 (float) or 8 (double)
  int maxiters = 0;
  double tol = 0;
  std::uint64_t seed = 0;
  std::string mttkrp = "auto";
  // Where it stands: iterations done, the fit after each (fits.size() == iteration), and the
  // model after the last one, un-arranged, in double.
  int iteration = 0;
  std::vector<double> fits;
  std::vector<double> lambda;                // rank
  std::vector<std::vector<double>> factors;  // dims[m] x rank, row-major
};

// Writes c to `path` atomically: a temporary file in the same folder, flushed and fsync'ed, then
// renamed over `path` (and the folder synced). On failure the temporary is removed, `path` is
// untouched and a grain::Error names it. Non-finite values in the model are refused: a checkpoint
// holds good factors or none.
void write_checkpoint(const std::string& path, const CpAlsCheckpoint& c);

// Reads and checks a checkpoint: a missing, truncated, corrupted (checksum), foreign (magic) or
// newer-version file is a grain::Error naming it. `header_only` stops after the settings and the
// fit history (the size is still checked against the header, the checksum is not).
CpAlsCheckpoint read_checkpoint(const std::string& path, bool header_only = false);

// A cheap identity of a tensor: its dims, nnz and up to 4096 evenly spaced nonzeros (indices and
// values as double) hashed. Equal tensors read from the same file give equal fingerprints.
template <class T>
std::uint64_t tensor_fingerprint(const SparseTensor<T, HostSpace>& X);

// Throws a grain::Error naming `path` when the checkpoint was written for another tensor (dims,
// nnz or fingerprint differ) or another rank or element type.
void check_checkpoint_tensor(const CpAlsCheckpoint& c, const std::string& path, const std::vector<index_type>& dims,
                             std::int64_t nnz, std::uint64_t fingerprint, int rank, int value_bytes);

// The model part of a checkpoint: M's lambda and factors (in any space) copied out in double...
template <class T, class Space>
void checkpoint_set_model(CpAlsCheckpoint& c, const Ktensor<T, Space>& M) {
  const int R = M.rank();
  auto lh = create_mirror(M.lambda);
  deep_copy(lh, M.lambda);
  c.lambda.assign(lh.data(), lh.data() + R);
  c.factors.resize(M.ndims());
  for (int m = 0; m < M.ndims(); ++m) {
    auto h = create_mirror(M.factors[m]);
    deep_copy(h, M.factors[m]);
    c.factors[m].assign(h.data(), h.data() + h.size());
  }
}

// ... and back, as a Ktensor in Space (a float run's values convert back exactly).
template <class T, class Space>
Ktensor<T, Space> checkpoint_model(const CpAlsCheckpoint& c) {
  Ktensor<T, HostSpace> K(c.dims, c.rank);
  if (c.lambda.size() != static_cast<std::size_t>(c.rank) || c.factors.size() != c.dims.size())
    grain::impl::throw_error("grain::cp::checkpoint_model: the checkpoint holds no model (read header-only?)");
  for (int r = 0; r < c.rank; ++r) K.lambda(r) = static_cast<T>(c.lambda[r]);
  for (std::size_t m = 0; m < c.dims.size(); ++m) {
    if (c.factors[m].size() != K.factors[m].size())
      grain::impl::throw_error("grain::cp::checkpoint_model: mode ", m + 1, "'s factor has ", c.factors[m].size(),
                               " values, expected ", K.factors[m].size());
    for (std::size_t e = 0; e < c.factors[m].size(); ++e) K.factors[m].data()[e] = static_cast<T>(c.factors[m][e]);
  }
  if constexpr (std::is_same_v<Space, HostSpace>)
    return K;
  else
    return K.template to_space<Space>();
}

}  // namespace grain::cp
