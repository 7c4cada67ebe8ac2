// Finite-element assembly with the contractions (examples/poisson): the element matrices against
// an independent host computation, their identities, the patch test, second-order convergence,
// and the errors for bad input; on every back end.
#include <cmath>
#include <string>
#include <vector>

#include "grain_test.hpp"
#include "hex_reference.hpp"
#include "poisson/poisson.hpp"

namespace {

namespace ex = grain::examples;

// Element matrices of one cell computed directly: its own Gauss points, basis from the product
// formula, the physical gradients by Gaussian elimination on J^T g = dN/dxi (no cofactors), det J
// by the rule of Sarrus.
struct HostElement {
  double K[8][8] = {}, M[8][8] = {}, b[8] = {};
};

HostElement host_element(const double (&xe)[8][3], const ex::PoissonData& data) {
  const double g = std::sqrt(1.0 / 3.0);
  HostElement e;
  for (int pz = 0; pz < 2; ++pz)
    for (int py = 0; py < 2; ++py)
      for (int px = 0; px < 2; ++px) {
        const double xi[3] = {px ? -g : g, py ? -g : g, pz ? -g : g};
        double N[8], dN[8][3];
        grain::test::trilinear_basis(xi, N, dN);
        double jt[3][3] = {}, xq[3] = {};  // jt[j][i] = dx_i / dxi_j
        for (int k = 0; k < 8; ++k)
          for (int i = 0; i < 3; ++i) {
            xq[i] += N[k] * xe[k][i];
            for (int j = 0; j < 3; ++j) jt[j][i] += xe[k][i] * dN[k][j];
          }
        const double det = jt[0][0] * jt[1][1] * jt[2][2] + jt[0][1] * jt[1][2] * jt[2][0] +
                           jt[0][2] * jt[1][0] * jt[2][1] - jt[0][2] * jt[1][1] * jt[2][0] -
                           jt[0][0] * jt[1][2] * jt[2][1] - jt[0][1] * jt[1][0] * jt[2][2];
        double grad[8][3];
        for (int k = 0; k < 8; ++k) grain::test::solve3(jt, dN[k], grad[k]);
        const double f = data.source(xq);
        for (int l = 0; l < 8; ++l) {
          e.b[l] += f * N[l] * det;
          for (int r = 0; r < 8; ++r) {
            e.M[l][r] += N[l] * N[r] * det;
            for (int d = 0; d < 3; ++d) e.K[l][r] += grad[l][d] * grad[r][d] * det;
          }
        }
      }
  return e;
}

template <class Exec>
void check_element_matrices() {
  const ex::PoissonData data{1.0, true};
  ex::PoissonProblem<Exec> problem(3, 0.15, data);
  problem.setup();
  grain::test::poison(problem.stiffness());
  grain::test::poison(problem.mass());
  grain::test::poison(problem.load());
  problem.geometry();
  problem.contract_elements();
  const auto K = grain::test::to_host(problem.stiffness());
  const auto M = grain::test::to_host(problem.mass());
  const auto b = grain::test::to_host(problem.load());
  const auto x = grain::test::to_host(problem.coordinates());
  const auto conn = grain::test::to_host(problem.connectivity());
  double volume = 0;
  for (std::size_t c = 0; c < K.extent(0); ++c) {
    double xe[8][3];
    for (int k = 0; k < 8; ++k)
      for (int d = 0; d < 3; ++d) xe[k][d] = x(conn(c, k), d);
    const HostElement ref = host_element(xe, data);
    for (int l = 0; l < 8; ++l) {
      ASSERT_TRUE(grain::test::near(b(c, l), ref.b[l], 1e-12)) << "cell " << c << " b(" << l << ")";
      double row = 0, scale = 0;
      for (int r = 0; r < 8; ++r) {
        ASSERT_TRUE(grain::test::near(K(c, l, r), ref.K[l][r], 1e-12)) << "cell " << c << " K(" << l << "," << r << ")";
        ASSERT_TRUE(grain::test::near(M(c, l, r), ref.M[l][r], 1e-13)) << "cell " << c << " M(" << l << "," << r << ")";
        ASSERT_TRUE(grain::test::near(K(c, l, r), K(c, r, l), 1e-13)) << "K symmetric, cell " << c;
        ASSERT_TRUE(grain::test::near(M(c, l, r), M(c, r, l), 1e-15)) << "M symmetric, cell " << c;
        row += K(c, l, r);
        scale += std::abs(K(c, l, r));
        volume += M(c, l, r);
      }
      // Constants are in the kernel of the stiffness matrix.
      EXPECT_TRUE(std::abs(row) <= 1e-13 * scale) << "cell " << c << " row " << l << " sums to " << row;
    }
  }
  // The map fixes the cube, and 2-point Gauss integrates det J of a trilinear element exactly.
  EXPECT_TRUE(grain::test::near(volume, 1.0, 1e-13));
}

// A linear solution lies in the trilinear space (the element map is isoparametric), and the
// quadrature integrates the consistency terms exactly: the discrete solution is the exact one,
// at every node, on a distorted mesh.
template <class Exec>
void check_patch_test() {
  ex::PoissonProblem<Exec> problem(5, 0.15, ex::PoissonData{1.0, false});
  const ex::PoissonResult r = problem.solve(1e-14);
  EXPECT_GT(r.iterations, 0);
  EXPECT_LE(r.l2_error, 1e-11);
  const auto u = grain::test::to_host(problem.solution());
  const auto x = grain::test::to_host(problem.coordinates());
  for (std::size_t g = 0; g < u.extent(0); ++g) {
    const double xg[3] = {x(g, 0), x(g, 1), x(g, 2)};
    ASSERT_TRUE(grain::test::near(u(g), problem.data().exact(xg), 1e-11)) << "node " << g;
  }
}

// On the smooth solution the L2 error falls as h^2.
template <class Exec>
void check_convergence() {
  double e[3];
  int its[3];
  for (int q = 0; q < 3; ++q) {
    ex::PoissonProblem<Exec> problem(4 << q, 0.1, ex::PoissonData{1.0, true});
    const ex::PoissonResult r = problem.solve();
    e[q] = r.l2_error;
    its[q] = r.iterations;
    EXPECT_LE(r.residual, 1e-10);
  }
  for (int q = 1; q < 3; ++q) {
    const double rate = std::log2(e[q - 1] / e[q]);
    EXPECT_TRUE(rate >= 1.8 && rate <= 2.2) << "rate " << rate << " from n = " << (4 << (q - 1));
  }
  EXPECT_LT(e[2], 2e-3);
  EXPECT_LT(its[0], its[2]);  // CG works harder on the finer mesh: it did run
}

// A tangled element is named, not solved.
template <class Exec>
void check_tangled_element_rejected() {
  ex::PoissonProblem<Exec> problem(4, 0.0, ex::PoissonData{});
  problem.setup();
  // Node (1, 1, 1) (spacing 0.25) pushed past its neighbours inverts the cells around it.
  problem.move_node(ex::cube_node(4, 1, 1, 1), 0.9, 0.9, 0.9);
  const std::string msg = grain::test::error_of([&] { problem.solve(); });
  EXPECT_NE(msg.find("non-positive Jacobian determinant"), std::string::npos) << msg;
  EXPECT_NE(msg.find("poisson: cell "), std::string::npos) << msg;
}

template <class Exec>
void check_solver_failure_reported() {
  ex::PoissonProblem<Exec> problem(6, 0.1, ex::PoissonData{});
  const std::string msg = grain::test::error_of([&] { problem.solve(1e-10, 2); });
  EXPECT_NE(msg.find("conjugate gradients did not reach a relative residual of 1e-10 in 2 iterations"),
            std::string::npos)
      << msg;
}

GRAIN_BACKEND_TEST(Poisson, ElementMatricesMatchHost) { check_element_matrices<TypeParam>(); }
GRAIN_BACKEND_TEST(Poisson, PatchTest) { check_patch_test<TypeParam>(); }
GRAIN_BACKEND_TEST(Poisson, SecondOrderConvergence) { check_convergence<TypeParam>(); }
GRAIN_BACKEND_TEST(Poisson, TangledElementRejected) { check_tangled_element_rejected<TypeParam>(); }
GRAIN_BACKEND_TEST(Poisson, SolverFailureReported) { check_solver_failure_reported<TypeParam>(); }

// The matrix pattern: slot (a, b, c) of node (i, j, k) holds that neighbour, or the node itself
// where the neighbour is outside the mesh; the real entries number cube_nonzeros.
template <class Exec>
void check_pattern() {
  const grain::index_type n = 3, m = n + 1;
  ex::PoissonProblem<Exec> problem(n, 0.0, ex::PoissonData{});
  problem.setup();
  const auto cols = grain::test::to_host(problem.columns());
  ASSERT_EQ(cols.extent(0), static_cast<std::size_t>(m * m * m));
  grain::index_type inside = 0;
  for (grain::index_type k = 0; k <= n; ++k)
    for (grain::index_type j = 0; j <= n; ++j)
      for (grain::index_type i = 0; i <= n; ++i) {
        const grain::index_type g = i + m * (j + m * k);
        int slot = 0;
        for (int c = -1; c <= 1; ++c)
          for (int b = -1; b <= 1; ++b)
            for (int a = -1; a <= 1; ++a, ++slot) {
              const grain::index_type ni = i + a, nj = j + b, nk = k + c;
              const bool in = ni >= 0 && nj >= 0 && nk >= 0 && ni <= n && nj <= n && nk <= n;
              inside += in ? 1 : 0;
              ASSERT_EQ(cols(g, slot), in ? ni + m * (nj + m * nk) : g)
                  << "node (" << i << "," << j << "," << k << ") slot " << slot;
            }
      }
  EXPECT_EQ(inside, ex::cube_nonzeros(n));
}

// The assembled matrix: identity rows on the boundary, zero coupling to boundary nodes, and
// symmetric between interior nodes (entry (g, h) against (h, g), the mirrored slot).
template <class Exec>
void check_matrix_symmetric() {
  const grain::index_type n = 4, m = n + 1;
  ex::PoissonProblem<Exec> problem(n, 0.15, ex::PoissonData{2.0, true});
  problem.setup();
  problem.geometry();
  problem.contract_elements();
  problem.assemble();
  const auto cols = grain::test::to_host(problem.columns());
  const auto a = grain::test::to_host(problem.matrix());
  auto boundary = [&](grain::index_type g) {
    const grain::index_type i = g % m, j = g / m % m, k = g / (m * m);
    return i == 0 || j == 0 || k == 0 || i == n || j == n || k == n;
  };
  for (grain::index_type g = 0; g < m * m * m; ++g)
    for (int s = 0; s < ex::kStencil; ++s) {
      const grain::index_type h = cols(g, s);
      if (boundary(g)) {
        ASSERT_EQ(a(g, s), s == ex::kDiagonalSlot ? 1.0 : 0.0) << "boundary row " << g << " slot " << s;
      } else if (boundary(h)) {
        ASSERT_EQ(a(g, s), 0.0) << "row " << g << " couples to boundary node " << h;
      } else {
        ASSERT_TRUE(grain::test::near(a(g, s), a(h, ex::kStencil - 1 - s), 1e-13)) << "entry (" << g << "," << h << ")";
        if (s == ex::kDiagonalSlot) {
          ASSERT_GT(a(g, s), 0.0);
        }
      }
    }
}

GRAIN_BACKEND_TEST(Poisson, Pattern) { check_pattern<TypeParam>(); }
GRAIN_BACKEND_TEST(Poisson, MatrixSymmetric) { check_matrix_symmetric<TypeParam>(); }

TEST(Poisson, RejectsBadArguments) {
  using P = ex::PoissonProblem<grain::Serial>;
  EXPECT_NE(grain::test::error_of([] { P(0, 0.1, ex::PoissonData{}); }).find("n >= 1 cells along each edge, got n = 0"),
            std::string::npos);
  EXPECT_NE(grain::test::error_of([] { P(4, 0.5, ex::PoissonData{}); }).find("distortion must be in [0, 0.2]"),
            std::string::npos);
  EXPECT_NE(grain::test::error_of([] { P(4, 0.1, ex::PoissonData{-1.0, true}); }).find("kappa must be >= 0, got -1"),
            std::string::npos);
}

// A mesh too large for the host's memory is refused before anything is allocated. n = 1024 needs
// about 5.6 TB.
TEST(Poisson, RejectsMeshTooLargeForMemory) {
  ex::PoissonProblem<grain::Serial> problem(1024, 0.1, ex::PoissonData{});
  EXPECT_GT(problem.bytes_needed(), 5e12);
  if (!(ex::host_physical_bytes() > 0)) GTEST_SKIP() << "the host's memory size is unknown here";
  const std::string msg = grain::test::error_of([&] { problem.setup(); });
  EXPECT_NE(msg.find("poisson: n = 1024 needs about"), std::string::npos) << msg;
  EXPECT_NE(msg.find("GB of memory"), std::string::npos) << msg;
}

// hex_local_node inverts hex_corner.
TEST(Poisson, LocalNodesRoundTrip) {
  for (int r = 0; r < 8; ++r) {
    int d[3];
    ex::hex_corner(r, d);
    EXPECT_EQ(ex::hex_local_node(d[0], d[1], d[2]), r);
  }
}

}  // namespace
