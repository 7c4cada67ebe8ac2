// What CP-ALS needs in memory, counted before it is allocated: the tensor's copy on the device,
// the factor matrices and MTTKRP outputs, each MTTKRP algorithm's permutations, sorted and tiled
// copies and private copies, and the sorts' scratch. A run that does not fit stops with a
// grain::Error naming its largest parts, the bytes needed and free, and what to change; Auto
// gives up the copy-hungry MTTKRP algorithms before it gives up the run.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "grain/core/error.hpp"
#include "grain/core/execution_space.hpp"
#include "grain/core/memory_info.hpp"
#include "grain/cp/mttkrp.hpp"
#include "grain/sparse/compact.hpp"
#include "grain/sparse/sparse_tensor.hpp"
#if GRAIN_CUDA_LAUNCH_AVAILABLE
#include <cuda_runtime_api.h>

#include "grain/core/backend/cuda_runtime.hpp"
#endif

namespace grain::cp {

// A run may take at most this fraction of the memory free when it starts: the rest is left to
// the allocator's rounding, the CUDA context, the OS and whatever else runs beside it.
inline constexpr double kMemoryUsableFraction = 0.9;
// Auto keeps an algorithm that copies the tensor or the output (perm, tiled, privatized) only while
// the whole run fits in this fraction of the free memory; past it, such modes fall back to `team`,
// which needs no copy, largest copies first.
inline constexpr double kAutoCopiesFraction = 0.75;

struct MemoryPart {
  std::string what;
  double bytes = 0;
};

// Bytes free for this process where Space's memory is: the host's available memory, or the GPU's.
template <class Space>
MemoryInfo memory_info() {
#if GRAIN_CUDA_LAUNCH_AVAILABLE
  if constexpr (std::is_same_v<Space, CudaSpace>) {
    std::size_t free_b = 0, total_b = 0;
    grain::impl::cuda_check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
    return {double(free_b), double(total_b), grain::impl::cuda_device().name};
  }
#endif
  return host_memory_info();
}

namespace impl {

inline std::string bytes_string(double b) {
  char buf[32];
  if (b >= 1073741824.0)
    std::snprintf(buf, sizeof buf, "%.2f GiB", b / 1073741824.0);
  else if (b >= 1048576.0)
    std::snprintf(buf, sizeof buf, "%.1f MiB", b / 1048576.0);
  else
    std::snprintf(buf, sizeof buf, "%.0f bytes", b);
  return buf;
}

// Private copies the privatized algorithm takes for a mode of I rows (as run_mttkrp sizes them);
// one copy means none: it accumulates straight into the output.
template <class Exec, class T>
double privatized_bytes(index_type nnz, index_type I, index_type R) {
  index_type copies = private_copies<Exec>();
  if (copies > nnz) copies = nnz > 0 ? nnz : 1;
  const double per_copy = double(I) * double(R) * sizeof(T);
  if (copies > 1 && copies * per_copy > double(kPrivatizedBudget))
    copies = std::max<index_type>(1, static_cast<index_type>(double(kPrivatizedBudget) / per_copy));
  return copies > 1 ? copies * per_copy : 0.0;
}

// The transient scratch of sorting the nonzeros by a mode of `dim` indices.
template <class Space>
double sort_scratch_bytes(index_type nnz, index_type dim) {
  if constexpr (std::is_same_v<Space, HostSpace>)
    return 8.0 * (double(dim) + 1);  // one count per index (more threads only when small)
  else
    return 40.0 * double(nnz);  // keys (2 x 4 B), ids (8 B) and the radix sort's double buffers
}

}  // namespace impl

// The memory CP-ALS on Exec at rank R takes in Exec's memory space beyond what is already there:
// with `tensor_and_factors`, the tensor's copy there (none on the host: it is the one read) and
// the factor matrices; always the MTTKRP outputs and each mode's algorithm's copies, plus the
// largest transient scratch. Parts of zero bytes are left out.
template <class Exec, class T, class Space>
std::vector<MemoryPart> cp_als_memory(const SparseTensor<T, Space>& X, index_type R,
                                      const std::vector<MttkrpAlgorithm>& algs, bool tensor_and_factors) {
  using ExecSpace = typename Exec::memory_space;
  constexpr bool host = std::is_same_v<ExecSpace, HostSpace>;
  const int N = X.ndims();
  const double nnz = double(X.nnz()), copy = double(X.bytes()), perm = nnz * sizeof(index_type);
  double rows = 0;
  for (int m = 0; m < N; ++m) rows += double(X.dim(m));
  std::vector<MemoryPart> parts;
  const std::string Rs = " x " + std::to_string(R) + " x " + std::to_string(sizeof(T)) + " B";
  if (tensor_and_factors) {
    if (!host) parts.push_back({"the tensor's copy (" + std::to_string(X.nnz()) + " nonzeros)", copy});
    parts.push_back({"the factor matrices (" + std::to_string(static_cast<long long>(rows)) + " rows" + Rs + ")",
                     rows * R * sizeof(T)});
  }
  parts.push_back({"the MTTKRP outputs (" + std::to_string(static_cast<long long>(rows)) + " rows" + Rs + ")",
                   rows * R * sizeof(T)});
  double sorted = 0, tiled = 0, priv = 0, scratch = 0;
  int n_sorted = 0, n_tiled = 0;
  for (int m = 0; m < N; ++m) {
    const MttkrpAlgorithm a = algs.at(m);
    if (a == MttkrpAlgorithm::Perm || a == MttkrpAlgorithm::Tiled) {
      sorted += perm + (a == MttkrpAlgorithm::Perm ? copy : 0.0);
      n_sorted += a == MttkrpAlgorithm::Perm;
      scratch = std::max(scratch, impl::sort_scratch_bytes<ExecSpace>(X.nnz(), X.dim(m)));
    }
    if (a == MttkrpAlgorithm::Tiled) {
      tiled += copy;
      ++n_tiled;
      // Building it gathers a mode-ordered copy and sorts a second permutation.
      scratch = std::max(scratch, copy + perm + impl::sort_scratch_bytes<ExecSpace>(X.nnz(), X.dim(m)));
    }
    if (a == MttkrpAlgorithm::Privatized)
      priv = std::max(priv, impl::privatized_bytes<Exec, T>(X.nnz(), X.dim(m), R));
  }
  if (sorted > 0)
    parts.push_back({"the permutations and sorted copies of the tensor (" + std::to_string(n_sorted + n_tiled) +
                         " modes)",
                     sorted});
  if (tiled > 0) parts.push_back({"the tiled copies of the tensor (" + std::to_string(n_tiled) + " modes)", tiled});
  if (priv > 0) parts.push_back({"the privatized MTTKRP's private copies of the output", priv});
  if (scratch > 0) parts.push_back({"the sort's scratch (transient)", scratch});
  return parts;
}

inline double total_bytes(const std::vector<MemoryPart>& parts) {
  double s = 0;
  for (const MemoryPart& p : parts) s += p.bytes;
  return s;
}

// The MTTKRP algorithm of every mode: `requested` for all of them, or with Auto, choose_mttkrp's
// pick per mode, then, while the run would not fit in kAutoCopiesFraction of `available` bytes,
// the mode whose copies are largest switched to `team`.
template <class Exec, class T, class Space>
std::vector<MttkrpAlgorithm> plan_mttkrp_algorithms(const SparseTensor<T, Space>& X, index_type R,
                                                    MttkrpAlgorithm requested, double available,
                                                    bool tensor_and_factors) {
  const int N = X.ndims();
  std::vector<MttkrpAlgorithm> algs(N, requested);
  if (requested != MttkrpAlgorithm::Auto) return algs;
  for (int m = 0; m < N; ++m) algs[m] = choose_mttkrp<Exec>(X, m, R);
  for (;;) {
    const double need = total_bytes(cp_als_memory<Exec>(X, R, algs, tensor_and_factors));
    if (need <= kAutoCopiesFraction * available) return algs;
    int worst = -1;
    double worst_bytes = 0;
    for (int m = 0; m < N; ++m) {
      if (algs[m] == MttkrpAlgorithm::Team || algs[m] == MttkrpAlgorithm::Atomic) continue;
      std::vector<MttkrpAlgorithm> alt = algs;
      alt[m] = MttkrpAlgorithm::Team;
      const double saved = need - total_bytes(cp_als_memory<Exec>(X, R, alt, tensor_and_factors));
      if (saved > worst_bytes) worst = m, worst_bytes = saved;
    }
    if (worst < 0) return algs;  // nothing left to give up: the check says what does not fit
    algs[worst] = MttkrpAlgorithm::Team;
  }
}

// Raises grain::Error when `parts` do not fit in kMemoryUsableFraction of `info.available`: the
// message names the three largest parts, the bytes needed and free, and `advice` (what to change).
inline void check_memory(const std::vector<MemoryPart>& parts, const MemoryInfo& info, const std::string& what,
                         const std::string& advice) {
  const double need = total_bytes(parts);
  if (info.total <= 0 || need <= kMemoryUsableFraction * info.available) return;
  std::vector<MemoryPart> sorted = parts;
  std::sort(sorted.begin(), sorted.end(), [](const MemoryPart& a, const MemoryPart& b) { return a.bytes > b.bytes; });
  std::ostringstream msg;
  msg << "not enough memory on the " << info.where << " for " << what << ": it needs " << impl::bytes_string(need)
      << " and " << impl::bytes_string(info.available) << " of " << impl::bytes_string(info.total)
      << " are free (a run takes at most " << int(kMemoryUsableFraction * 100 + 0.5)
      << "% of that); the largest parts: ";
  for (std::size_t i = 0; i < sorted.size() && i < 3; ++i)
    msg << (i ? "; " : "") << sorted[i].what << " " << impl::bytes_string(sorted[i].bytes);
  if (!advice.empty()) msg << ". To fit: " << advice;
  grain::impl::throw_error(msg.str());
}

// What to change when a CP-ALS run does not fit: a smaller rank, float, a copy-free MTTKRP and,
// when a mode uses less than half of its index range, compacting the ranges (`--compact`).
template <class T>
std::string cp_als_memory_advice(const SparseTensor<T, HostSpace>& X, bool copies) {
  std::string a = "a smaller rank";
  if (std::is_same_v<T, double>) a += ", float instead of double (--dtype float)";
  if (copies) a += ", an MTTKRP that copies nothing (--mttkrp team or atomic)";
  const std::vector<index_type> used = used_indices(X);
  std::string sparse_modes;
  for (int m = 0; m < X.ndims(); ++m)
    if (2 * used[m] < X.dim(m))
      sparse_modes += (sparse_modes.empty() ? "" : ", ") + std::string("mode ") + std::to_string(m + 1) + " uses " +
                      std::to_string(used[m]) + " of " + std::to_string(X.dim(m)) + " indices";
  if (!sparse_modes.empty()) a += ", --compact (" + sparse_modes + ")";
  return a + ", or a machine with more memory";
}

// Raises grain::Error, naming the sizes and what to change, when CP-ALS on Exec at rank R with
// the given MTTKRP algorithm (Auto: as plan_mttkrp_algorithms chooses) cannot fit: on the GPU,
// the tensor's copy, the factors and every MTTKRP copy; on the host (for either back end) the
// factor matrices and, for the host back ends, the rest. Call it after reading the tensor and
// before moving it or building the start.
template <class Exec, class T>
void check_cp_als_memory(const SparseTensor<T, HostSpace>& X, index_type R, MttkrpAlgorithm alg) {
  using Space = typename Exec::memory_space;
  const MemoryInfo info = memory_info<Space>();
  const std::vector<MttkrpAlgorithm> algs = plan_mttkrp_algorithms<Exec>(X, R, alg, info.available, true);
  std::vector<MemoryPart> parts = cp_als_memory<Exec>(X, R, algs, true);
  bool copies = false;
  for (MttkrpAlgorithm a : algs) copies |= a != MttkrpAlgorithm::Team && a != MttkrpAlgorithm::Atomic;
  const std::string what = "CP-ALS at rank " + std::to_string(R);
  if (total_bytes(parts) > kMemoryUsableFraction * info.available)
    check_memory(parts, info, what, cp_als_memory_advice(X, copies));
  if constexpr (!std::is_same_v<Space, HostSpace>) {
    // The GPU run keeps a host copy of the factors (the start, the result).
    double rows = 0;
    for (int m = 0; m < X.ndims(); ++m) rows += double(X.dim(m));
    const std::vector<MemoryPart> host_parts = {{"the factor matrices' host copy", rows * R * sizeof(T)}};
    const MemoryInfo hinfo = host_memory_info();
    if (total_bytes(host_parts) > kMemoryUsableFraction * hinfo.available)
      check_memory(host_parts, hinfo, what, cp_als_memory_advice(X, false));
  }
}

}  // namespace grain::cp
