// The small dense algebra of CP-ALS, on the host (R x R, row-major, double), through LAPACK.
#pragma once

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

}  // namespace grain::cp
