// Finite-element assembly with the contractions: the diffusion-reaction problem
//
//   -div grad u + kappa u = f  in the unit cube,   u = g on its boundary,
//
// on n x n x n trilinear hexahedra (Q1), assembled and solved on any back end. This is the
// workflow the nine contractions come from (Intrepid; Collins et al. 2015, "Parallelizing
// Intrepid Tensor Contractions Using Kokkos", chapter 1): per cell and
// quadrature point, the Jacobian of the element map and the physical basis gradients; then
//
//   stiffness  K(c,l,r) = sum_{p,d} grad N_l(c,p,d) * [w_p det J(c,p) grad N_r(c,p,d)]
//                                                         contract_field_field_vector
//   mass       M(c,l,r) = sum_p N_l(p) * [w_p det J(c,p) N_r(p)]   contract_field_field_scalar
//   load       b(c,l)   = sum_p f(x(c,p)) * [w_p det J(c,p) N_l(p)] contract_data_field_scalar
//
// and the global matrix A = K + kappa M, the Dirichlet rows, and a Jacobi-preconditioned
// conjugate-gradient solve. Every step is a portable kernel (functors: the same
// code on Serial, OpenMP and CUDA; README, "Lambdas in CUDA-enabled builds"), every array a View
// in the default layout of its space.
//
// The mesh is the unit cube under a smooth map that fixes its boundary (distortion 0: the
// uniform grid), so every element is a general trilinear hexahedron, not a box, and the
// Jacobian varies over each element. A node couples to at most 27 nodes (its neighbours in the
// grid), so A is stored as ELLPACK: 27 slots a row, values(N, 27) and cols(N, 27) in the default
// layout of the space. On the GPU that is LayoutLeft, so the threads of a warp (consecutive rows)
// read consecutive addresses for each slot; on the CPU LayoutRight, a row's slots contiguous. The
// same source gives each back end its format, which CSR (rows of varying length, one after the
// other) would not. Assembly is by rows: each node's row gathers the entries of the (up to 8)
// cells around it, so every entry is written by one thread and no atomics are needed; the result
// does not depend on the back end's scheduling.
//
// What the tests check (tests/examples/test_poisson.cpp): element matrices against a direct
// computation on the host; symmetry, zero row sums of K, total mass = volume; the patch test
// (a linear u is reproduced to solver accuracy on a distorted mesh); second-order convergence
// in L2 on a smooth solution; clear errors for bad input (n < 1, a tangled element).
#pragma once

#include <chrono>
#include <cmath>
#include <cstdint>
#include <type_traits>
#if defined(__unix__)
#include <unistd.h>
#endif

#include "grain/contract/contract.hpp"
#include "grain/core.hpp"
#include "hex_gradient/hex_gradient.hpp"

namespace grain::examples {

// 2 x 2 x 2 Gauss points on the reference cube [-1, 1]^3, with the values and reference
// gradients of the 8 trilinear basis functions there (node order as in hex_gradient.hpp).
// Exact for the mass matrix of any trilinear element and for sum_p w_p cof(J) dN/dxi, which is
// what makes the patch test hold on distorted elements.
inline constexpr int kQuadPoints = 8;

struct HexReference {
  double w[kQuadPoints];                   // weights (all 1)
  double N[kHexNodes][kQuadPoints];        // N_k(xi_p)
  HexShapeDerivatives d[kQuadPoints];      // dN_k/dxi_j at xi_p (d[p].d[j][k]; d[p].point = xi_p)
};

inline HexReference hex_reference_q1() {
  HexReference ref{};
  const double g = 1.0 / std::sqrt(3.0);
  for (int p = 0; p < kQuadPoints; ++p) {
    // Point p's coordinates: bit j of p chooses -g or +g along dimension j.
    double xi[kHexDim];
    for (int j = 0; j < kHexDim; ++j) xi[j] = (p >> j & 1) ? g : -g;
    ref.w[p] = 1.0;
    ref.d[p] = hex_shape_derivatives(xi[0], xi[1], xi[2]);
    for (int k = 0; k < kHexNodes; ++k) {
      double v = 0.125;
      for (int j = 0; j < kHexDim; ++j) v *= 1.0 + hex_node_sign(k, j) * xi[j];
      ref.N[k][p] = v;
    }
  }
  return ref;
}

inline constexpr double kPi = 3.14159265358979323846;

// The smooth map of the unit cube onto itself that distorts the grid: each coordinate moves by
// amp * sin(pi x) sin(pi y) sin(pi z) * (a different phase per dimension), which vanishes on the
// boundary. Its Jacobian stays positive for amp up to about 0.2.
GRAIN_INLINE_FUNCTION void cube_map(double (&x)[3], double amp) {
  const double bump = amp * std::sin(kPi * x[0]) * std::sin(kPi * x[1]) * std::sin(kPi * x[2]);
  const double y0 = x[0] + bump * std::cos(kPi * x[1]);
  const double y1 = x[1] + bump * std::cos(kPi * x[2]);
  const double y2 = x[2] + bump * std::cos(kPi * x[0]);
  x[0] = y0, x[1] = y1, x[2] = y2;
}

// The problem's data: the exact solution (which also gives the boundary values g) and the
// source f = -lap u + kappa u. `smooth`: u = sin(pi x) sin(pi y) sin(pi z) + x + 2y + 3z;
// otherwise the linear part alone (the patch test).
struct PoissonData {
  double kappa = 1.0;
  bool smooth = true;
  GRAIN_INLINE_FUNCTION double exact(const double (&x)[3]) const {
    const double lin = 1.0 + x[0] + 2.0 * x[1] + 3.0 * x[2];
    if (!smooth) return lin;
    return std::sin(kPi * x[0]) * std::sin(kPi * x[1]) * std::sin(kPi * x[2]) + lin;
  }
  GRAIN_INLINE_FUNCTION double source(const double (&x)[3]) const {
    const double lin = 1.0 + x[0] + 2.0 * x[1] + 3.0 * x[2];
    if (!smooth) return kappa * lin;
    const double s = std::sin(kPi * x[0]) * std::sin(kPi * x[1]) * std::sin(kPi * x[2]);
    return (3.0 * kPi * kPi + kappa) * s + kappa * lin;
  }
};

// Node numbering of the structured mesh: node (i, j, k), 0 <= i, j, k <= n, is i + m (j + m k)
// with m = n + 1; cell (i, j, k), 0 <= i, j, k < n, is i + n (j + n k).
GRAIN_INLINE_FUNCTION index_type cube_node(index_type n, index_type i, index_type j, index_type k) {
  return i + (n + 1) * (j + (n + 1) * k);
}
// Its inverse: node g's (i, j, k).
GRAIN_INLINE_FUNCTION void cube_coords(index_type n, index_type g, index_type& i, index_type& j, index_type& k) {
  const index_type m = n + 1;
  i = g % m, j = g / m % m, k = g / (m * m);
}
// A cell's local node r sits at corner (dx, dy, dz) of the cell (hex_node_sign's order).
GRAIN_INLINE_FUNCTION void hex_corner(int r, int (&d)[3]) {
  for (int j = 0; j < kHexDim; ++j) d[j] = hex_node_sign(r, j) > 0 ? 1 : 0;
}
GRAIN_INLINE_FUNCTION int hex_local_node(int dx, int dy, int dz) {
  const int face = dy ? (dx ? 2 : 3) : (dx ? 1 : 0);
  return face + 4 * dz;
}
// A row's 27 slots: slot 9 (c + 1) + 3 (b + 1) + a + 1 holds neighbour (i + a, j + b, k + c),
// a, b, c in {-1, 0, 1}; slot 13 is the diagonal. Slots whose neighbour lies outside the mesh
// (rows on the boundary) hold the row's own node with the value 0.
inline constexpr int kStencil = 27;
inline constexpr int kDiagonalSlot = 13;
GRAIN_INLINE_FUNCTION int stencil_slot(int a, int b, int c) { return 9 * (c + 1) + 3 * (b + 1) + a + 1; }
// Stored entries that are real (neighbour inside the mesh): 3 m - 2 per dimension, m = n + 1.
inline index_type cube_nonzeros(index_type n) {
  const index_type d = 3 * (n + 1) - 2;
  return d * d * d;
}

// ---- kernels ----------------------------------------------------------------------------------

template <class Space>
struct CubeNodes {  // node coordinates
  index_type n;
  double amp;
  View<double**, Space> x;
  GRAIN_INLINE_FUNCTION void operator()(index_type g) const {
    index_type i, j, k;
    cube_coords(n, g, i, j, k);
    const double nd = static_cast<double>(n);
    double p[3] = {static_cast<double>(i) / nd, static_cast<double>(j) / nd, static_cast<double>(k) / nd};
    cube_map(p, amp);
    for (int d = 0; d < kHexDim; ++d) x(g, d) = p[d];
  }
};

template <class Space>
struct CubeCells {  // connectivity
  index_type n;
  View<int**, Space> conn;
  GRAIN_INLINE_FUNCTION void operator()(index_type c) const {
    const index_type i = c % n, j = c / n % n, k = c / (n * n);
    for (int r = 0; r < kHexNodes; ++r) {
      int d[3];
      hex_corner(r, d);
      conn(c, r) = static_cast<int>(cube_node(n, i + d[0], j + d[1], k + d[2]));
    }
  }
};

template <class Space>
struct CubePattern {  // cols(g, slot): the neighbour's node, or g where it is outside the mesh
  index_type n;
  View<int**, Space> cols;
  GRAIN_INLINE_FUNCTION void operator()(index_type g) const {
    index_type i, j, k;
    cube_coords(n, g, i, j, k);
    for (int c = -1; c <= 1; ++c)
      for (int b = -1; b <= 1; ++b)
        for (int a = -1; a <= 1; ++a) {
          const index_type ni = i + a, nj = j + b, nk = k + c;
          const bool inside = ni >= 0 && nj >= 0 && nk >= 0 && ni <= n && nj <= n && nk <= n;
          cols(g, stencil_slot(a, b, c)) = static_cast<int>(inside ? cube_node(n, ni, nj, nk) : g);
        }
  }
};

// Per cell and point: det J and the physical gradients (grad; hex_gradient_element, the Jacobian
// inverted by cofactors), the weighted gradients (wgrad = w det J grad), the basis values (val)
// and weighted ones (wval), and the source at the point (f). A non-positive determinant marks
// the cell in `bad` (the first such cell, as cell + 1; 0: none).
template <class Space>
struct ElementGeometry {
  HexReference ref;
  PoissonData data;
  View<double**, Space> x;
  View<int**, Space> conn;
  View<double****, Space> grad, wgrad;  // (C, 8, P, 3)
  View<double***, Space> val, wval;     // (C, 8, P)
  View<double**, Space> f;              // (C, P)
  View<int*, Space> bad;                // (1)
  GRAIN_INLINE_FUNCTION void operator()(index_type c) const {
    double xe[kHexDim][kHexNodes];  // the layout hex_gradient_element takes
    for (int k = 0; k < kHexNodes; ++k)
      for (int d = 0; d < kHexDim; ++d) xe[d][k] = x(conn(c, k), d);
    for (int p = 0; p < kQuadPoints; ++p) {
      double g[kHexDim][kHexNodes];  // physical gradients: the hex_gradient example's arithmetic
      const double det = hex_gradient_element(xe, ref.d[p], g);
      if (!(det > 0)) atomic_fetch_max(&bad(0), static_cast<int>(c) + 1);
      const double wdet = ref.w[p] * det;
      double xq[3] = {0, 0, 0};
      for (int k = 0; k < kHexNodes; ++k) {
        for (int i = 0; i < kHexDim; ++i) {
          grad(c, k, p, i) = g[i][k];
          wgrad(c, k, p, i) = wdet * g[i][k];
          xq[i] += ref.N[k][p] * xe[i][k];
        }
        val(c, k, p) = ref.N[k][p];
        wval(c, k, p) = wdet * ref.N[k][p];
      }
      f(c, p) = data.source(xq);
    }
  }
};

// Row g of A = K + kappa M and of the right-hand side, gathered from the cells around node g.
// Dirichlet nodes (on the boundary) get the identity row and rhs = u(x_g); in the other rows the
// columns of Dirichlet nodes are moved to the right-hand side (A_gj u_j subtracted, A_gj = 0), so
// A stays symmetric.
template <class Space>
struct AssembleRows {
  index_type n;
  PoissonData data;
  View<double**, Space> x;
  View<int**, Space> conn;
  View<double***, Space> K, M;  // (C, 8, 8)
  View<double**, Space> b;      // (C, 8)
  View<double**, Space> values; // (N, 27)
  View<double*, Space> rhs, diag;

  GRAIN_INLINE_FUNCTION bool boundary(index_type i, index_type j, index_type k) const {
    return i == 0 || j == 0 || k == 0 || i == n || j == n || k == n;
  }
  GRAIN_INLINE_FUNCTION void operator()(index_type g) const {
    index_type i, j, k;
    cube_coords(n, g, i, j, k);
    if (boundary(i, j, k)) {
      for (int s = 0; s < kStencil; ++s) values(g, s) = s == kDiagonalSlot ? 1.0 : 0.0;
      double xg[3] = {x(g, 0), x(g, 1), x(g, 2)};
      rhs(g) = data.exact(xg);
      diag(g) = 1.0;
      return;
    }
    // The row is summed here and written once.
    double row[kStencil] = {};
    double r_g = 0;
    // The 8 cells around an interior node: cell (i - 1 + ca, j - 1 + cb, k - 1 + cc).
    for (int cc = 0; cc < 2; ++cc)
      for (int cb = 0; cb < 2; ++cb)
        for (int ca = 0; ca < 2; ++ca) {
          const index_type cell = (i - 1 + ca) + n * ((j - 1 + cb) + n * (k - 1 + cc));
          const int l = hex_local_node(1 - ca, 1 - cb, 1 - cc);  // node g's place in that cell
          r_g += b(cell, l);
          for (int r = 0; r < kHexNodes; ++r) {
            int d[3];
            hex_corner(r, d);
            // Node r of the cell is node g + (a, bb, c):
            const int a = ca - 1 + d[0], bb = cb - 1 + d[1], c = cc - 1 + d[2];
            const double v = K(cell, l, r) + data.kappa * M(cell, l, r);
            if (boundary(i + a, j + bb, k + c)) {
              const index_type gc = conn(cell, r);
              double xc[3] = {x(gc, 0), x(gc, 1), x(gc, 2)};
              r_g -= v * data.exact(xc);
            } else {
              row[stencil_slot(a, bb, c)] += v;
            }
          }
        }
    for (int s = 0; s < kStencil; ++s) values(g, s) = row[s];
    rhs(g) = r_g;
    diag(g) = row[kDiagonalSlot];
  }
};

// y = A x (ELLPACK, 27 slots a row).
template <class Space>
struct EllMultiply {
  View<int**, Space> cols;
  View<double**, Space> values;
  View<double*, Space> x, y;
  GRAIN_INLINE_FUNCTION void operator()(index_type g) const {
    double s = 0;
    for (int q = 0; q < kStencil; ++q) s += values(g, q) * x(cols(g, q));
    y(g) = s;
  }
};

template <class Space>
struct Dot {
  View<double*, Space> a, b;
  GRAIN_INLINE_FUNCTION void operator()(index_type i, double& s) const { s += a(i) * b(i); }
};

// One step of preconditioned CG after q = A p: u += alpha p, r -= alpha q, z = r / diag, and the
// new (r, z).
template <class Space>
struct CgUpdate {
  double alpha;
  View<double*, Space> u, p, r, q, z, diag;
  GRAIN_INLINE_FUNCTION void operator()(index_type i, double& rz) const {
    u(i) += alpha * p(i);
    r(i) -= alpha * q(i);
    z(i) = r(i) / diag(i);
    rz += r(i) * z(i);
  }
};

// p = z + beta p.
template <class Space>
struct CgDirection {
  double beta;
  View<double*, Space> p, z;
  GRAIN_INLINE_FUNCTION void operator()(index_type i) const { p(i) = z(i) + beta * p(i); }
};

// r = rhs - A u (with q = A u already computed), z = r / diag; returns (r, z) by reduction.
template <class Space>
struct CgStart {
  View<double*, Space> rhs, q, r, z, p, diag;
  GRAIN_INLINE_FUNCTION void operator()(index_type i, double& rz) const {
    r(i) = rhs(i) - q(i);
    z(i) = r(i) / diag(i);
    p(i) = z(i);
    rz += r(i) * z(i);
  }
};

// The squared L2 error of the finite-element solution over one cell, by the cell's quadrature.
template <class Space>
struct L2Error {
  HexReference ref;
  PoissonData data;
  View<double**, Space> x;
  View<int**, Space> conn;
  View<double***, Space> wval;  // w det J N: sum over the nodes gives w det J
  View<double*, Space> u;
  GRAIN_INLINE_FUNCTION void operator()(index_type c, double& e2) const {
    for (int p = 0; p < kQuadPoints; ++p) {
      double uh = 0, wdet = 0, xq[3] = {0, 0, 0};
      for (int k = 0; k < kHexNodes; ++k) {
        const index_type g = conn(c, k);
        uh += ref.N[k][p] * u(g);
        wdet += wval(c, k, p);
        for (int d = 0; d < kHexDim; ++d) xq[d] += ref.N[k][p] * x(g, d);
      }
      const double e = uh - data.exact(xq);
      e2 += wdet * e * e;
    }
  }
};

// ---- the driver -------------------------------------------------------------------------------

// The host's physical memory in bytes (0 where unknown).
inline double host_physical_bytes() {
#if defined(__unix__) && defined(_SC_PHYS_PAGES)
  const long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && size > 0 ? static_cast<double>(pages) * static_cast<double>(size) : 0.0;
#else
  return 0.0;
#endif
}

struct PoissonTimes {
  double geometry = 0, contractions = 0, assembly = 0, solve = 0;
};

struct PoissonResult {
  index_type cells = 0, nodes = 0, nonzeros = 0;
  int iterations = 0;
  double residual = 0;  // relative, preconditioned: sqrt((r, z) / (r0, z0))
  double l2_error = 0;
  PoissonTimes seconds;
};

// The whole problem on Exec: mesh, element matrices, assembly, solve, error. Views stay
// accessible for the tests (element matrices K, M, b; the system; the solution u).
template <class Exec>
class PoissonProblem {
 public:
  using Space = typename Exec::memory_space;

  // n cells along each edge (n >= 1), the mesh distortion (0 to 0.2), the problem's data.
  PoissonProblem(index_type n, double distortion, PoissonData data) : n_(n), amp_(distortion), data_(data) {
    if (n < 1) impl::throw_error("poisson: the mesh needs n >= 1 cells along each edge, got n = ", n);
    if (n > 1024) impl::throw_error("poisson: n = ", n, " is too large (at most 1024 cells along each edge)");
    if (!(distortion >= 0.0 && distortion <= 0.2))
      impl::throw_error("poisson: distortion must be in [0, 0.2] (larger tangles the map), got ", distortion);
    if (!(data.kappa >= 0.0)) impl::throw_error("poisson: kappa must be >= 0, got ", data.kappa);
  }

  index_type cells() const { return n_ * n_ * n_; }
  index_type nodes() const { return (n_ + 1) * (n_ + 1) * (n_ + 1); }

  // Every step, timed; throws if an element is tangled or CG does not converge. The mesh and
  // every array are made first (setup(), untimed here), so the steps' times do not include the
  // first touch of their memory.
  PoissonResult solve(double tol = 1e-10, int max_iterations = 0) {
    if (!ready_) setup();
    PoissonResult res;
    res.cells = cells(), res.nodes = nodes(), res.nonzeros = cube_nonzeros(n_);
    const double t0 = now();
    geometry();
    Exec().fence();
    const double t1 = now();
    contract_elements();
    Exec().fence();
    const double t2 = now();
    assemble();
    Exec().fence();
    const double t3 = now();
    res.iterations = conjugate_gradient(tol, max_iterations > 0 ? max_iterations : 10 * static_cast<int>(n_) + 100,
                                        res.residual);
    Exec().fence();
    const double t4 = now();
    res.l2_error = l2_error();
    res.seconds = {t1 - t0, t2 - t1, t3 - t2, t4 - t3};
    return res;
  }

  // Bytes of the arrays setup() makes: per cell the geometry (grad, wgrad: 2 x 8 x P x 3; val,
  // wval: 2 x 8 x P; f: P), the element matrices (K, M: 2 x 64; b: 8) and the connectivity; per
  // node the coordinates, the matrix's 27 slots and the solver's 7 vectors.
  double bytes_needed() const {
    const double C = static_cast<double>(cells()), N = static_cast<double>(nodes());
    const double per_cell = (2.0 * 8 * kQuadPoints * 3 + 2.0 * 8 * kQuadPoints + kQuadPoints + 2.0 * 64 + 8) * 8 + 8 * 4;
    const double per_node = 3 * 8 + kStencil * (8 + 4) + 7 * 8;
    return C * per_cell + N * per_node;
  }

  // The mesh, the matrix pattern and every array (zero-filled). On the host, a mesh whose arrays
  // would not fit in memory is refused before anything is allocated (the allocations could
  // succeed and the first touch of their pages then fail; the GPU's allocator says so itself).
  void setup() {
    if constexpr (std::is_same_v<Space, HostSpace>) {
      const double have = host_physical_bytes();
      if (have > 0 && bytes_needed() > 0.9 * have)
        impl::throw_error("poisson: n = ", n_, " needs about ", std::round(bytes_needed() / 1e8) / 10,
                          " GB for its arrays; this host has ", std::round(have / 1e8) / 10, " GB of memory");
    }
    const index_type C = cells(), N = nodes();
    x_ = View<double**, Space>("poisson_x", N, 3);
    conn_ = View<int**, Space>("poisson_conn", C, 8);
    parallel_for(RangePolicy<Exec>(0, N), CubeNodes<Space>{n_, amp_, x_});
    parallel_for(RangePolicy<Exec>(0, C), CubeCells<Space>{n_, conn_});
    grad_ = View<double****, Space>("poisson_grad", C, 8, kQuadPoints, 3);
    wgrad_ = View<double****, Space>("poisson_wgrad", C, 8, kQuadPoints, 3);
    val_ = View<double***, Space>("poisson_val", C, 8, kQuadPoints);
    wval_ = View<double***, Space>("poisson_wval", C, 8, kQuadPoints);
    f_ = View<double**, Space>("poisson_f", C, kQuadPoints);
    K_ = View<double***, Space>("poisson_K", C, 8, 8);
    M_ = View<double***, Space>("poisson_M", C, 8, 8);
    b_ = View<double**, Space>("poisson_b", C, 8);
    cols_ = View<int**, Space>("poisson_cols", N, kStencil);
    values_ = View<double**, Space>("poisson_values", N, kStencil);
    parallel_for(RangePolicy<Exec>(0, N), CubePattern<Space>{n_, cols_});
    rhs_ = View<double*, Space>("poisson_rhs", N);
    diag_ = View<double*, Space>("poisson_diag", N);
    u_ = View<double*, Space>("poisson_u", N);
    r_ = View<double*, Space>("cg_r", N);
    z_ = View<double*, Space>("cg_z", N);
    p_ = View<double*, Space>("cg_p", N);
    q_ = View<double*, Space>("cg_q", N);
    ready_ = true;
  }

  // The steps (after setup()), for tests that look between them.
  // Overrides one node's coordinates (tests: a tangled element).
  void move_node(index_type g, double x0, double x1, double x2) {
    if (!ready_) setup();
    auto h = create_mirror_view(x_);
    deep_copy(h, x_);
    h(g, 0) = x0, h(g, 1) = x1, h(g, 2) = x2;
    deep_copy(x_, h);
  }
  void geometry() {
    const index_type C = cells();
    View<int*, Space> bad("poisson_bad", 1);
    parallel_for(RangePolicy<Exec>(0, C),
                 ElementGeometry<Space>{ref_, data_, x_, conn_, grad_, wgrad_, val_, wval_, f_, bad});
    auto h = create_mirror_view(bad);
    deep_copy(h, bad);
    if (h(0) > 0)
      impl::throw_error("poisson: cell ", h(0) - 1, " has a non-positive Jacobian determinant at a quadrature ",
                  "point (a tangled or inverted element)");
  }
  // The contractions run on Exec too (host Views would otherwise take the host's default, OpenMP,
  // in a Serial run); Auto picks each algorithm.
  void contract_elements() {
    ContractOptions opt;
    if constexpr (std::is_same_v<Exec, Serial>) opt.exec = ContractExec::Serial;
    contract_field_field_vector(K_, grad_, wgrad_, opt);
    contract_field_field_scalar(M_, val_, wval_, opt);
    contract_data_field_scalar(b_, f_, wval_, opt);
  }
  void assemble() {
    const index_type N = nodes();
    parallel_for(RangePolicy<Exec>(0, N),
                 AssembleRows<Space>{n_, data_, x_, conn_, K_, M_, b_, values_, rhs_, diag_});
  }
  // Preconditioned CG from u = 0 until sqrt((r, z) / (r0, z0)) <= tol; returns the iterations.
  int conjugate_gradient(double tol, int max_iterations, double& relative) {
    const index_type N = nodes();
    const View<double*, Space> r = r_, z = z_, p = p_, q = q_;
    deep_copy(u_, 0.0);
    RangePolicy<Exec> all(0, N);
    parallel_for(all, EllMultiply<Space>{cols_, values_, u_, q});
    double rz = 0;
    parallel_reduce(all, CgStart<Space>{rhs_, q, r, z, p, diag_}, rz);
    const double rz0 = rz;
    relative = 0;
    if (!(rz0 > 0)) return 0;  // rhs = 0: u = 0 is the solution
    for (int it = 1; it <= max_iterations; ++it) {
      parallel_for(all, EllMultiply<Space>{cols_, values_, p, q});
      double pq = 0;
      parallel_reduce(all, Dot<Space>{p, q}, pq);
      if (!(pq > 0)) impl::throw_error("poisson: conjugate gradients broke down at iteration ", it, " (p'Ap = ", pq, ")");
      const double alpha = rz / pq;
      double rz_new = 0;
      parallel_reduce(all, CgUpdate<Space>{alpha, u_, p, r, q, z, diag_}, rz_new);
      relative = std::sqrt(rz_new / rz0);
      if (relative <= tol) return it;
      parallel_for(all, CgDirection<Space>{rz_new / rz, p, z});
      rz = rz_new;
    }
    impl::throw_error("poisson: conjugate gradients did not reach a relative residual of ", tol, " in ",
                max_iterations, " iterations (reached ", relative, ")");
  }
  double l2_error() const {
    double e2 = 0;
    parallel_reduce(RangePolicy<Exec>(0, cells()), L2Error<Space>{ref_, data_, x_, conn_, wval_, u_}, e2);
    return std::sqrt(e2);
  }

  // Results, in Exec's memory space.
  const View<double***, Space>& stiffness() const { return K_; }
  const View<double***, Space>& mass() const { return M_; }
  const View<double**, Space>& load() const { return b_; }
  const View<double**, Space>& coordinates() const { return x_; }
  const View<int**, Space>& connectivity() const { return conn_; }
  const View<double*, Space>& solution() const { return u_; }
  const View<int**, Space>& columns() const { return cols_; }
  const View<double**, Space>& matrix() const { return values_; }
  const HexReference& reference() const { return ref_; }
  const PoissonData& data() const { return data_; }

 private:
  static double now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  }
  index_type n_;
  double amp_;
  PoissonData data_;
  HexReference ref_ = hex_reference_q1();
  View<double**, Space> x_;
  View<int**, Space> conn_;
  View<double****, Space> grad_, wgrad_;
  View<double***, Space> val_, wval_, K_, M_;
  View<double**, Space> f_, b_;
  View<int**, Space> cols_;      // (N, 27)
  View<double**, Space> values_;  // (N, 27)
  View<double*, Space> rhs_, diag_, u_, r_, z_, p_, q_;
  bool ready_ = false;
};

}  // namespace grain::examples
