// The R x R solves of CP-ALS through LAPACK: Cholesky inverse, eigendecomposition pseudo-inverse.
// V is symmetric, so its row-major storage is also its column-major storage.
#include "grain/cp/dense_solve.hpp"

#include <lapack.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "grain/core/error.hpp"

#if defined(GRAIN_LAPACK_OPENBLAS)
extern "C" {
int openblas_get_parallel(void);
int openblas_get_num_threads(void);
void openblas_set_num_threads(int);
}
#endif

namespace grain::cp {
namespace {

// OpenBLAS's pthread build spreads even an R x R factorization over its own threads, which then
// spin beside grain's OpenMP threads and slow the solve and the MTTKRP after it. The solves run on
// one OpenBLAS thread; the caller's setting is restored.
class OneBlasThread {
 public:
  OneBlasThread() {
#if defined(GRAIN_LAPACK_OPENBLAS)
    if (openblas_get_parallel() == 1) {
      saved_ = openblas_get_num_threads();
      if (saved_ > 1) openblas_set_num_threads(1);
    }
#endif
  }
  ~OneBlasThread() {
#if defined(GRAIN_LAPACK_OPENBLAS)
    if (saved_ > 1) openblas_set_num_threads(saved_);
#endif
  }
  OneBlasThread(const OneBlasThread&) = delete;
  OneBlasThread& operator=(const OneBlasThread&) = delete;

 private:
  int saved_ = 0;
};

void check_size(const std::vector<double>& V, int R, const char* fn) {
  if (R < 0 || V.size() != static_cast<std::size_t>(R) * static_cast<std::size_t>(R))
    grain::impl::throw_error(fn, ": V has ", V.size(), " entries, not R * R for R = ", R);
}

// The caller holds a OneBlasThread. On return column k of V (column-major) is the eigenvector of
// the k-th eigenvalue returned (ascending).
std::vector<double> eigen(std::vector<double>& V, int R, const char* fn) {
  const char jobz = 'V', uplo = 'L';
  const lapack_int n = R;
  lapack_int info = 0, lwork = -1, liwork = -1, iwork_query = 0;
  double work_query = 0;
  std::vector<double> w(R);
  LAPACK_dsyevd(&jobz, &uplo, &n, V.data(), &n, w.data(), &work_query, &lwork, &iwork_query, &liwork, &info);
  if (info != 0) grain::impl::throw_error(fn, ": LAPACK dsyevd workspace query failed (info ", info, ")");
  lwork = static_cast<lapack_int>(work_query);
  liwork = iwork_query;
  std::vector<double> work(std::max<lapack_int>(1, lwork));
  std::vector<lapack_int> iwork(std::max<lapack_int>(1, liwork));
  LAPACK_dsyevd(&jobz, &uplo, &n, V.data(), &n, w.data(), work.data(), &lwork, iwork.data(), &liwork, &info);
  if (info != 0)
    grain::impl::throw_error(fn, ": LAPACK dsyevd failed (info ", info,
                             info > 0 ? ": the eigenvalues did not converge" : ": an illegal argument", ")");
  return w;
}

// The caller holds a OneBlasThread.
void pseudo_inverse(std::vector<double>& V, int R) {
  const std::vector<double> w = eigen(V, R, "grain::cp::spd_inverse");
  double wmax = 0;
  for (double x : w) wmax = std::max(wmax, std::abs(x));
  const double cut = wmax * spd_relative_floor(R);
  // V+ = sum over kept k of q_k q_k^T / w_k, a rank-one update a row at a time (contiguous rows).
  std::vector<double> P(static_cast<std::size_t>(R) * R, 0.0);
  for (int k = 0; k < R; ++k) {
    if (!(std::abs(w[k]) > cut)) continue;
    const double inv = 1.0 / w[k];
    const double* q = V.data() + static_cast<std::size_t>(k) * R;
    for (int i = 0; i < R; ++i) {
      const double s = q[i] * inv;
      double* p = P.data() + static_cast<std::size_t>(i) * R;
      for (int j = 0; j < R; ++j) p[j] += s * q[j];
    }
  }
  V.swap(P);
}

}  // namespace

bool spd_inverse(std::vector<double>& V, int R) {
  check_size(V, R, "grain::cp::spd_inverse");
  if (R == 0) return false;
  OneBlasThread one;
  double maxdiag = 0;
  for (int i = 0; i < R; ++i) maxdiag = std::max(maxdiag, std::abs(V[static_cast<std::size_t>(i) * R + i]));
  const double floor = maxdiag * spd_relative_floor(R);
  std::vector<double> F = V;
  const char uplo = 'L';
  const lapack_int n = R;
  lapack_int info = 0;
  LAPACK_dpotrf(&uplo, &n, F.data(), &n, &info);
  if (info < 0) grain::impl::throw_error("grain::cp::spd_inverse: LAPACK dpotrf: illegal argument ", -info);
  // potrf fails only on a pivot <= 0; a pivot at rounding level means V is singular as far as
  // its entries can tell, and its inverse would be noise: such a V takes the pseudo-inverse too.
  bool definite = info == 0;
  for (int j = 0; definite && j < R; ++j) {
    const double d = F[static_cast<std::size_t>(j) * R + j];
    definite = d * d > floor;  // NaN fails here too
  }
  if (definite) {
    LAPACK_dpotri(&uplo, &n, F.data(), &n, &info);
    if (info < 0) grain::impl::throw_error("grain::cp::spd_inverse: LAPACK dpotri: illegal argument ", -info);
    if (info == 0) {
      // Column-major lower triangle = row-major upper triangle: mirror it into the lower one.
      for (int i = 0; i < R; ++i)
        for (int j = 0; j < i; ++j) F[static_cast<std::size_t>(i) * R + j] = F[static_cast<std::size_t>(j) * R + i];
      V.swap(F);
      return false;
    }
  }
  pseudo_inverse(V, R);
  return true;
}

void spd_pseudo_inverse(std::vector<double>& V, int R) {
  check_size(V, R, "grain::cp::spd_pseudo_inverse");
  if (R == 0) return;
  OneBlasThread one;
  pseudo_inverse(V, R);
}

std::vector<double> symmetric_eigen(std::vector<double>& V, int R) {
  check_size(V, R, "grain::cp::symmetric_eigen");
  if (R == 0) return {};
  OneBlasThread one;
  return eigen(V, R, "grain::cp::symmetric_eigen");
}

void orthonormalize_columns(std::vector<double>& A, std::int64_t rows, int cols) {
  if (cols < 0 || rows < cols || A.size() != static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols))
    grain::impl::throw_error("grain::cp::orthonormalize_columns: ", A.size(), " entries for ", rows, " x ", cols,
                             " (rows >= cols needed)");
  if (cols == 0) return;
  OneBlasThread one;
  const lapack_int m = static_cast<lapack_int>(rows), n = cols;
  lapack_int info = 0, lwork = -1;
  std::vector<double> tau(cols);
  double query = 0;
  LAPACK_dgeqrf(&m, &n, A.data(), &m, tau.data(), &query, &lwork, &info);
  double query2 = 0;
  if (info == 0) LAPACK_dorgqr(&m, &n, &n, A.data(), &m, tau.data(), &query2, &lwork, &info);
  if (info != 0) grain::impl::throw_error("grain::cp::orthonormalize_columns: LAPACK workspace query failed (info ", info, ")");
  lwork = static_cast<lapack_int>(std::max(query, query2));
  std::vector<double> work(std::max<lapack_int>(1, lwork));
  LAPACK_dgeqrf(&m, &n, A.data(), &m, tau.data(), work.data(), &lwork, &info);
  if (info != 0) grain::impl::throw_error("grain::cp::orthonormalize_columns: LAPACK dgeqrf failed (info ", info, ")");
  LAPACK_dorgqr(&m, &n, &n, A.data(), &m, tau.data(), work.data(), &lwork, &info);
  if (info != 0) grain::impl::throw_error("grain::cp::orthonormalize_columns: LAPACK dorgqr failed (info ", info, ")");
}

}  // namespace grain::cp
