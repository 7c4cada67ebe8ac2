// Hexahedral basis gradients: the portable kernel and the hand-written one of each back end,
// against the analytic gradients of boxes and an independent host solve on distorted elements.
#include <cmath>
#include <string>

#include "grain_test.hpp"
#include "hex_reference.hpp"
#include "hex_gradient/hex_gradient.hpp"
#include "hex_gradient/hex_gradient_hand.hpp"

namespace {

namespace ex = grain::examples;
using HostHex = grain::View<double***, grain::LayoutRight, grain::HostSpace>;

template <class V>
HostHex to_host(const V& v) {
  HostHex h(grain::WithoutInitializing, "host", v.extent(0), 3, 8);
  grain::deep_copy(h, v);
  return h;
}

// Independent reference: grad N_k solves J^T g = dN_k/dxi, by Gaussian elimination with partial
// pivoting (no cofactors), with dN/dxi differentiated here from the basis functions' formula.
void reference_gradients(const HostHex& x, double xi, double eta, double zeta, HostHex& g) {
  const double p[3] = {xi, eta, zeta};
  double n[8], dn[8][3];
  grain::test::trilinear_basis(p, n, dn);
  for (std::size_t e = 0; e < x.extent(0); ++e) {
    double jt[3][3];  // jt[j][i] = dx_i / dxi_j
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        jt[j][i] = 0;
        for (int k = 0; k < 8; ++k) jt[j][i] += x(e, i, k) * dn[k][j];
      }
    for (int k = 0; k < 8; ++k) {
      double sol[3];
      grain::test::solve3(jt, dn[k], sol);
      for (int i = 0; i < 3; ++i) g(e, i, k) = sol[i];
    }
  }
}

// Runs grain's kernel or the hand-written one on Exec's default-layout Views.
template <class Exec, bool Hand, class V>
void compute(const V& coords, const V& grads, const ex::HexShapeDerivatives& s) {
  if constexpr (Hand) {
    ex::hex_gradient_hand<Exec>(coords, grads, s);
  } else {
    ex::hex_gradient<Exec>(coords, grads, s);
  }
  Exec().fence();
}

template <class Exec, bool Hand>
void check_boxes_match_analytic() {
  using V = grain::View<double***, typename Exec::memory_space>;
  const int n = 37;
  V coords("coords", n, 3, 8), grads("grads", n, 3, 8);
  ex::fill_hex_boxes<Exec>(coords);
  grain::test::poison(grads);
  const auto s = ex::hex_shape_derivatives(-0.3, 0.7, 0.1);
  compute<Exec, Hand>(coords, grads, s);
  const HostHex g = to_host(grads);
  for (int e = 0; e < n; ++e)
    for (int i = 0; i < 3; ++i)
      for (int k = 0; k < 8; ++k)
        ASSERT_TRUE(grain::test::near(g(e, i, k), ex::hex_box_gradient(s, e, i, k), 1e-13))
            << "element " << e << " dim " << i << " node " << k;
}

template <class Exec, bool Hand>
void check_distorted_match_reference() {
  using V = grain::View<double***, typename Exec::memory_space>;
  for (int n : {1, 101}) {
    V coords("coords", n, 3, 8), grads("grads", n, 3, 8);
    ex::fill_hex_mesh<Exec>(coords, 5 + n, 0.15);
    grain::test::poison(grads);
    const auto s = ex::hex_default_derivatives();
    compute<Exec, Hand>(coords, grads, s);
    const HostHex x = to_host(coords), g = to_host(grads);
    HostHex ref("ref", n, 3, 8);
    reference_gradients(x, s.point[0], s.point[1], s.point[2], ref);
    for (int e = 0; e < n; ++e)
      for (int i = 0; i < 3; ++i)
        for (int k = 0; k < 8; ++k)
          ASSERT_TRUE(grain::test::near(g(e, i, k), ref(e, i, k), 1e-12))
              << "element " << e << " dim " << i << " node " << k;
    EXPECT_LE(ex::hex_identity_error<Exec>(coords, grads), 1e-13);
  }
}

// The kernel source is the same for either layout: both must give the same numbers.
template <class Exec>
void check_layouts_agree() {
  using Space = typename Exec::memory_space;
  using Right = grain::View<double***, grain::LayoutRight, Space>;
  using Left = grain::View<double***, grain::LayoutLeft, Space>;
  const int n = 33;
  Right xr("xr", n, 3, 8), gr("gr", n, 3, 8);
  Left xl("xl", n, 3, 8), gl("gl", n, 3, 8);
  ex::fill_hex_mesh<Exec>(xr, 3);
  grain::deep_copy(xl, xr);
  grain::test::poison(gr);
  grain::test::poison(gl);
  const auto s = ex::hex_default_derivatives();
  ex::hex_gradient<Exec>(xr, gr, s);
  ex::hex_gradient<Exec>(xl, gl, s);
  const HostHex a = to_host(gr), b = to_host(gl);
  for (std::size_t q = 0; q < a.size(); ++q) ASSERT_EQ(a.data()[q], b.data()[q]) << "entry " << q;
}

// The identity checker must flag an unwritten (NaN) or wrong output.
template <class Exec>
void check_identity_checker_fails_bad_output() {
  using V = grain::View<double***, typename Exec::memory_space>;
  const int n = 7;
  V coords("coords", n, 3, 8), grads("grads", n, 3, 8);
  ex::fill_hex_mesh<Exec>(coords, 1);
  grain::test::poison(grads);
  EXPECT_FALSE(ex::hex_identity_error<Exec>(coords, grads) <= 1.0);
  grain::deep_copy(grads, 0.25);
  EXPECT_FALSE(ex::hex_identity_error<Exec>(coords, grads) <= 1e-3);
}

GRAIN_BACKEND_TEST(HexGradient, BoxesMatchAnalytic) { check_boxes_match_analytic<TypeParam, false>(); }
GRAIN_BACKEND_TEST(HexGradient, HandBoxesMatchAnalytic) { check_boxes_match_analytic<TypeParam, true>(); }
GRAIN_BACKEND_TEST(HexGradient, DistortedMatchReference) {
  check_distorted_match_reference<TypeParam, false>();
}
GRAIN_BACKEND_TEST(HexGradient, HandDistortedMatchReference) {
  check_distorted_match_reference<TypeParam, true>();
}
GRAIN_BACKEND_TEST(HexGradient, LayoutsAgree) { check_layouts_agree<TypeParam>(); }
GRAIN_BACKEND_TEST(HexGradient, IdentityCheckerFailsBadOutput) {
  check_identity_checker_fails_bad_output<TypeParam>();
}

TEST(HexGradient, RejectsWrongExtents) {
  using V = grain::View<double***, grain::LayoutRight, grain::HostSpace>;
  const auto s = ex::hex_default_derivatives();
  V good("good", 4, 3, 8), bad_nodes("bad", 4, 3, 7), short_grads("short", 3, 3, 8);
  EXPECT_NE(grain::test::error_of([&] { ex::hex_gradient<grain::Serial>(bad_nodes, good, s); })
                .find("hex_gradient: argument 'coords' has extents (4,3,7)"),
            std::string::npos);
  EXPECT_NE(grain::test::error_of([&] { ex::hex_gradient<grain::Serial>(good, short_grads, s); })
                .find("argument 'grads' has extents (3,3,8), expected (4,3,8)"),
            std::string::npos);
  EXPECT_NE(grain::test::error_of([&] { ex::hex_gradient_hand<grain::Serial>(good, bad_nodes, s); })
                .find("argument 'grads'"),
            std::string::npos);
}

TEST(HexGradient, ShapeDerivativesSumToZero) {
  const auto s = ex::hex_shape_derivatives(0.3, -0.6, 0.9);
  for (int j = 0; j < 3; ++j) {
    double sum = 0;
    for (int k = 0; k < 8; ++k) sum += s.d[j][k];
    EXPECT_TRUE(grain::test::near(sum, 0.0, 1e-15));
  }
}

}  // namespace
