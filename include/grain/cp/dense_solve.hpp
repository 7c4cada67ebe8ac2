// The small dense algebra of CP-ALS and its starts, on the host (double), through LAPACK.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

namespace grain::cp {

// The relative cut-off of the R x R solves: V counts as singular when a Cholesky pivot is at most
// this times V's largest diagonal entry, and the pseudo-inverse drops eigenvalues of magnitude at
// most this times the largest. Rounding in a factorization of order R grows like R * eps.
inline double spd_relative_floor(int R) { return 16.0 * R * std::numeric_limits<double>::epsilon(); }

// Replaces the symmetric positive semidefinite R x R matrix V by its inverse: LAPACK's Cholesky
// (dpotrf, dpotri) when every pivot is above the floor, otherwise the Moore-Penrose
// pseudo-inverse from LAPACK's symmetric eigendecomposition (dsyevd). Returns true when the
// pseudo-inverse was needed; raises grain::Error when LAPACK reports a failure.
bool spd_inverse(std::vector<double>& V, int R);

// V's pseudo-inverse through dsyevd, whatever its definiteness (the fallback of spd_inverse).
void spd_pseudo_inverse(std::vector<double>& V, int R);

// The eigenvalues of the symmetric R x R matrix V, ascending, through dsyevd; V is replaced by the
// eigenvectors, the k-th (of the k-th eigenvalue) in entries [k * R, (k + 1) * R).
std::vector<double> symmetric_eigen(std::vector<double>& V, int R);

// Replaces the rows x cols column-major matrix A (rows >= cols) by an orthonormal basis of its
// column space, through LAPACK's QR (dgeqrf, dorgqr).
void orthonormalize_columns(std::vector<double>& A, std::int64_t rows, int cols);

}  // namespace grain::cp
