// Gradients of the trilinear basis functions of linear hexahedral elements (Edwards, Sunderland
// et al. 2011, "Manycore/GPGPU Portable Computational Mechanics Kernels via Multidimensional
// Arrays", §V, Figure 5): the portable kernel, written once against grain and run on every back
// end.
//
// For element e with vertex coordinates x(e, i, k) (i: spatial dimension, k: vertex), the
// isoparametric map x(xi) = sum_k x_k N_k(xi) has Jacobian J_ij = sum_k x(e,i,k) dN_k/dxi_j at
// the evaluation point, and the physical gradients are grad N_k = J^-T (dN_k/dxi). The kernel
// loads 24 coordinates, does 297 flops (see kHexFlopsPerElement) and stores 24 gradients.
//
// Arrays have extents (elements, 3, 8) in the default layout of their memory space: LayoutRight
// on the host (an element's 24 values are contiguous, one thread streams through them),
// LayoutLeft on the GPU (consecutive threads take consecutive elements: every load coalesces).
// The kernel source does not change between the two; only the View type does.
#pragma once

#include <cstdint>
#include <string>

#include "grain/core.hpp"

namespace grain::examples {

inline constexpr int kHexDim = 3;
inline constexpr int kHexNodes = 8;

// Reference-cube vertex signs, in the usual (exodus) node order: the bottom face
// counter-clockwise, then the top face.
GRAIN_INLINE_FUNCTION double hex_node_sign(int node, int dim) {
  // Bits of a node's reference coordinates: x is + for nodes 1,2,5,6; y for 2,3,6,7; z for 4..7.
  const int x_plus = ((node & 3) == 1 || (node & 3) == 2) ? 1 : 0;
  const int y_plus = (node & 2) ? 1 : 0;
  const int z_plus = (node & 4) ? 1 : 0;
  const int plus = dim == 0 ? x_plus : (dim == 1 ? y_plus : z_plus);
  return plus ? 1.0 : -1.0;
}

// dN_k/dxi_j of the 8 trilinear basis functions N_k = (1 + s_k0 xi)(1 + s_k1 eta)(1 + s_k2 zeta)/8
// at one reference point; computed once on the host and passed to every element by value.
struct HexShapeDerivatives {
  double d[kHexDim][kHexNodes];
  double point[kHexDim];
};

inline HexShapeDerivatives hex_shape_derivatives(double xi, double eta, double zeta) {
  HexShapeDerivatives s{};
  const double p[3] = {xi, eta, zeta};
  for (int k = 0; k < kHexNodes; ++k) {
    double f[3];
    for (int j = 0; j < 3; ++j) f[j] = 1.0 + hex_node_sign(k, j) * p[j];
    s.d[0][k] = 0.125 * hex_node_sign(k, 0) * f[1] * f[2];
    s.d[1][k] = 0.125 * hex_node_sign(k, 1) * f[0] * f[2];
    s.d[2][k] = 0.125 * hex_node_sign(k, 2) * f[0] * f[1];
  }
  for (int j = 0; j < 3; ++j) s.point[j] = p[j];
  return s;
}

// The point every benchmark and example uses: off-centre, so no derivative is zero and no
// symmetry hides an indexing error.
inline HexShapeDerivatives hex_default_derivatives() {
  return hex_shape_derivatives(0.25, -0.125, 0.5);
}

// Flops per element, counting each multiply and each add (a multiply-add is 2):
//   J = X D^T            9 entries x (8 mul + 7 add)            = 135
//   cofactors of J       9 x (2 mul + 1 sub)                    =  27
//   det, 1/det           3 mul + 2 add + 1 div                  =   6
//   cofactors / det      9 mul                                  =   9
//   gradients            24 x (3 mul + 2 add)                   = 120
// The paper counts 231 for its variant; ours evaluates at an arbitrary point, not the centre.
inline constexpr double kHexFlopsPerElement = 297.0;
// 24 coordinates read + 24 gradients written, in doubles.
inline constexpr double kHexBytesPerElement = 48.0 * sizeof(double);

// The per-element computation on plain arrays: shared by the portable kernel and the hand-written
// versions, so all of them do exactly the same arithmetic and only the data access differs.
// Returns det J (the gradients are meaningless where it is not positive: a tangled element).
GRAIN_FORCEINLINE_FUNCTION double hex_gradient_element(const double (&x)[kHexDim][kHexNodes],
                                                       const HexShapeDerivatives& s,
                                                       double (&g)[kHexDim][kHexNodes]) {
  double J[3][3];
#pragma unroll
  for (int i = 0; i < 3; ++i)
#pragma unroll
    for (int j = 0; j < 3; ++j) {
      double sum = x[i][0] * s.d[j][0];
#pragma unroll
      for (int k = 1; k < kHexNodes; ++k) sum += x[i][k] * s.d[j][k];
      J[i][j] = sum;
    }
  // Cofactors C_ij; J^-1 = C^T / det, so grad_i N_k = sum_j C_ij dN_k/dxi_j / det.
  double C[3][3];
  C[0][0] = J[1][1] * J[2][2] - J[1][2] * J[2][1];
  C[0][1] = J[1][2] * J[2][0] - J[1][0] * J[2][2];
  C[0][2] = J[1][0] * J[2][1] - J[1][1] * J[2][0];
  C[1][0] = J[0][2] * J[2][1] - J[0][1] * J[2][2];
  C[1][1] = J[0][0] * J[2][2] - J[0][2] * J[2][0];
  C[1][2] = J[0][1] * J[2][0] - J[0][0] * J[2][1];
  C[2][0] = J[0][1] * J[1][2] - J[0][2] * J[1][1];
  C[2][1] = J[0][2] * J[1][0] - J[0][0] * J[1][2];
  C[2][2] = J[0][0] * J[1][1] - J[0][1] * J[1][0];
  const double det = J[0][0] * C[0][0] + J[0][1] * C[0][1] + J[0][2] * C[0][2];
  const double inv_det = 1.0 / det;
#pragma unroll
  for (int i = 0; i < 3; ++i)
#pragma unroll
    for (int j = 0; j < 3; ++j) C[i][j] *= inv_det;
#pragma unroll
  for (int i = 0; i < 3; ++i)
#pragma unroll
    for (int k = 0; k < kHexNodes; ++k)
      g[i][k] = C[i][0] * s.d[0][k] + C[i][1] * s.d[1][k] + C[i][2] * s.d[2][k];
  return det;
}

// The portable kernel: one element per work item, every access through the View's layout map.
template <class CoordView, class GradView>
struct HexGradientKernel {
  CoordView coords;
  GradView grads;
  HexShapeDerivatives shape;

  GRAIN_INLINE_FUNCTION void operator()(index_type e) const {
    double x[kHexDim][kHexNodes], g[kHexDim][kHexNodes];
#pragma unroll
    for (int i = 0; i < kHexDim; ++i)
#pragma unroll
      for (int k = 0; k < kHexNodes; ++k) x[i][k] = coords(e, i, k);
    hex_gradient_element(x, shape, g);
#pragma unroll
    for (int i = 0; i < kHexDim; ++i)
#pragma unroll
      for (int k = 0; k < kHexNodes; ++k) grads(e, i, k) = g[i][k];
  }
};

template <class CoordView, class GradView>
void check_hex_views(const CoordView& coords, const GradView& grads) {
  static_assert(CoordView::rank == 3 && GradView::rank == 3,
                "hex_gradient: coordinates and gradients are rank-3 Views (elements, 3, 8)");
  if (coords.extent(1) != 3 || coords.extent(2) != 8)
    impl::throw_error("hex_gradient: argument 'coords' has extents ", coords.shape(),
                      ", expected (elements,3,8)");
  if (grads.extent(0) != coords.extent(0) || grads.extent(1) != 3 || grads.extent(2) != 8)
    impl::throw_error("hex_gradient: argument 'grads' has extents ", grads.shape(), ", expected (",
                      coords.extent(0), ",3,8) to match 'coords'");
}

// grads(e, :, :) = gradients of the 8 basis functions of element e at the shape's point.
template <class Exec, class CoordView, class GradView>
void hex_gradient(const CoordView& coords, const GradView& grads, const HexShapeDerivatives& shape) {
  check_hex_views(coords, grads);
  parallel_for(RangePolicy<Exec>(0, static_cast<index_type>(coords.extent(0))),
               HexGradientKernel<CoordView, GradView>{coords, grads, shape});
}

// ---- inputs ------------------------------------------------------------------------------------

// A well-spread 64-bit hash (splitmix64's finalizer): reproducible random inputs generated in
// parallel on any back end, without copying a host array to the device.
GRAIN_INLINE_FUNCTION std::uint64_t hash64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
// Uniform in [-1, 1).
GRAIN_INLINE_FUNCTION double hash_unit(std::uint64_t key) {
  return static_cast<double>(hash64(key) >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

// Distorted boxes: element e is a box with edges in [0.5, 1.5) whose vertices each move by up to
// `distortion` of the edge, so the Jacobian stays well away from singular for distortion < 0.2.
template <class Exec, class CoordView>
void fill_hex_mesh(const CoordView& coords, std::uint64_t seed, double distortion = 0.1) {
  const index_type n = static_cast<index_type>(coords.extent(0));
  parallel_for(RangePolicy<Exec>(0, n), GRAIN_LAMBDA(index_type e) {
    const std::uint64_t base = seed * 0x100000001b3ull + static_cast<std::uint64_t>(e) * 32u;
    for (int i = 0; i < kHexDim; ++i) {
      const double edge = 1.0 + 0.5 * hash_unit(base + 24 + i);
      for (int k = 0; k < kHexNodes; ++k)
        coords(e, i, k) = edge * (0.5 * (1.0 + hex_node_sign(k, i)) +
                                  distortion * hash_unit(base + i * kHexNodes + k));
    }
  });
}

// Axis-aligned boxes with edges (a, b, c) scaled per element: the exact gradients are
// grad N_k = (2/a dN_k/dxi, 2/b dN_k/deta, 2/c dN_k/dzeta), see hex_box_gradient.
GRAIN_INLINE_FUNCTION double hex_box_edge(index_type e, int dim) {
  return (1.0 + 0.5 * dim) * (1.0 + 0.001 * static_cast<double>(e % 97));
}
template <class Exec, class CoordView>
void fill_hex_boxes(const CoordView& coords) {
  const index_type n = static_cast<index_type>(coords.extent(0));
  parallel_for(RangePolicy<Exec>(0, n), GRAIN_LAMBDA(index_type e) {
    for (int i = 0; i < kHexDim; ++i)
      for (int k = 0; k < kHexNodes; ++k)
        coords(e, i, k) = 3.0 + 0.5 * (1.0 + hex_node_sign(k, i)) * hex_box_edge(e, i);
  });
}
inline double hex_box_gradient(const HexShapeDerivatives& s, index_type e, int i, int k) {
  return 2.0 / hex_box_edge(e, i) * s.d[i][k];
}

// ---- checks ---------------------------------------------------------------------------------------

// Largest violation, over all elements, of the identities every isoparametric element satisfies
// whatever its shape: sum_k grad N_k = 0 (partition of unity) and sum_k x_k (grad N_k)^T = I
// (linear completeness). Run where the data lives; returns a relative error.
template <class Exec, class CoordView, class GradView>
double hex_identity_error(const CoordView& coords, const GradView& grads) {
  check_hex_views(coords, grads);
  double worst = 0;
  parallel_reduce(
      RangePolicy<Exec>(0, static_cast<index_type>(coords.extent(0))),
      GRAIN_LAMBDA(index_type e, double& w) {
        for (int i = 0; i < kHexDim; ++i) {
          double sum = 0, scale = 0;
          for (int k = 0; k < kHexNodes; ++k) {
            sum += grads(e, i, k);
            scale += grads(e, i, k) < 0 ? -grads(e, i, k) : grads(e, i, k);
          }
          double err = sum < 0 ? -sum : sum;
          if (!(err <= 1e300)) err = 1e300;  // NaN or inf: the worst possible
          if (scale > 0) err /= scale;
          if (err > w) w = err;
          for (int j = 0; j < kHexDim; ++j) {
            double xg = 0;
            for (int k = 0; k < kHexNodes; ++k) xg += coords(e, j, k) * grads(e, i, k);
            double d = xg - (i == j ? 1.0 : 0.0);
            d = d < 0 ? -d : d;
            if (!(d <= 1e300)) d = 1e300;
            if (d > w) w = d;
          }
        }
      },
      Max<double>(worst));
  return worst;
}

// Copies every `step`-th element's 24 values into a small host View (samples, 3, 8): lets a
// benchmark compare outputs of different versions without a second full-size copy.
template <class Exec, class V>
View<double***, LayoutRight, HostSpace> hex_sample(const V& v, index_type step) {
  const index_type n = static_cast<index_type>(v.extent(0));
  const index_type m = step > 0 ? (n + step - 1) / step : 0;
  View<double***, typename V::memory_space> s(WithoutInitializing, "hex_sample", m, 3, 8);
  parallel_for(RangePolicy<Exec>(0, m), GRAIN_LAMBDA(index_type t) {
    for (int i = 0; i < kHexDim; ++i)
      for (int k = 0; k < kHexNodes; ++k) s(t, i, k) = v(t * step, i, k);
  });
  View<double***, LayoutRight, HostSpace> h(WithoutInitializing, "hex_sample_host", m, 3, 8);
  deep_copy(h, s);
  return h;
}

}  // namespace grain::examples
