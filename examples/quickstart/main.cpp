// A mass-matrix-like contraction on the host: out(c,l,r) = sum_p left(c,l,p) * right(c,r,p),
// checked against a plain loop. The same call runs on the GPU when the Views are in CudaSpace.
#include <cmath>
#include <cstdio>

#include <grain/grain.hpp>

int main() {
  const int C = 1000, L = 8, R = 8, P = 27;  // cells, left and right fields, points
  grain::View<double***> left("left", C, L, P), right("right", C, R, P), out("out", C, L, R);
  for (int c = 0; c < C; ++c)
    for (int p = 0; p < P; ++p) {
      for (int l = 0; l < L; ++l) left(c, l, p) = std::sin(c + 0.1 * l + 0.01 * p);
      for (int r = 0; r < R; ++r) right(c, r, p) = std::cos(c - 0.2 * r + 0.03 * p);
    }
  grain::contract_field_field_scalar(out, left, right);  // Auto picks the algorithm

  int wrong = 0;
  for (int c = 0; c < C; ++c)
    for (int l = 0; l < L; ++l)
      for (int r = 0; r < R; ++r) {
        double s = 0;
        for (int p = 0; p < P; ++p) s += left(c, l, p) * right(c, r, p);
        if (!(std::fabs(out(c, l, r) - s) <= 1e-12)) ++wrong;  // a NaN counts as wrong
      }
  std::printf("%d of %d outputs differ from the loop\n", wrong, C * L * R);
  return wrong == 0 ? 0 : 1;
}
