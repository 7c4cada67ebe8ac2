// The small dense algebra of CP-ALS, on the host (R x R, row-major, double).
#pragma once

#include <vector>

namespace grain::cp {

// Replaces the symmetric positive semidefinite R x R matrix V by its inverse: through a Cholesky
// factorization when V is positive definite, otherwise by the Moore-Penrose pseudo-inverse from
// a Jacobi eigendecomposition (eigenvalues below R * eps * largest are treated as zero).
// Returns true when the pseudo-inverse was needed.
bool spd_inverse(std::vector<double>& V, int R);

}  // namespace grain::cp
