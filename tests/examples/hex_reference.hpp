// Independent host references for the hexahedral tests (test_hex_gradient.cpp, test_poisson.cpp):
// the trilinear basis from its product formula and a 3 x 3 solve by Gaussian elimination with
// partial pivoting, so no test checks the examples' cofactor arithmetic against itself.
#pragma once

#include <cmath>
#include <utility>

namespace grain::test {

// Reference-cube vertex signs in the examples' node order (the bottom face counter-clockwise,
// then the top face).
inline constexpr int kHexSign[8][3] = {{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1},
                                       {-1, -1, 1},  {1, -1, 1},  {1, 1, 1},  {-1, 1, 1}};

// N_k(xi) and dN_k/dxi_j of the 8 trilinear basis functions.
inline void trilinear_basis(const double (&xi)[3], double (&n)[8], double (&dn)[8][3]) {
  for (int k = 0; k < 8; ++k) {
    n[k] = 1.0 / 8.0;
    for (int j = 0; j < 3; ++j) n[k] *= 1.0 + kHexSign[k][j] * xi[j];
    for (int j = 0; j < 3; ++j) {
      double v = kHexSign[k][j] / 8.0;
      for (int m = 0; m < 3; ++m)
        if (m != j) v *= 1.0 + kHexSign[k][m] * xi[m];
      dn[k][j] = v;
    }
  }
}

// x solving a x = rhs.
inline void solve3(const double (&a_in)[3][3], const double (&rhs)[3], double (&x)[3]) {
  double a[3][4];
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) a[r][c] = a_in[r][c];
    a[r][3] = rhs[r];
  }
  for (int c = 0; c < 3; ++c) {
    int piv = c;
    for (int r = c + 1; r < 3; ++r)
      if (std::abs(a[r][c]) > std::abs(a[piv][c])) piv = r;
    for (int q = 0; q < 4; ++q) std::swap(a[c][q], a[piv][q]);
    for (int r = c + 1; r < 3; ++r) {
      const double f = a[r][c] / a[c][c];
      for (int q = c; q < 4; ++q) a[r][q] -= f * a[c][q];
    }
  }
  for (int r = 2; r >= 0; --r) {
    double s = a[r][3];
    for (int q = r + 1; q < 3; ++q) s -= a[r][q] * x[q];
    x[r] = s / a[r][r];
  }
}

}  // namespace grain::test
