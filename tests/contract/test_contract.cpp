// The nine contractions: every algorithm x every kernel x both layouts x float and double x
// every enabled back end, against grain's serial oracle and an independent naive loop, on random
// non-zero inputs of odd extents, with the output NaN-poisoned first (overwrite) or holding
// random values (sum_into). The combinations are looped inside a few tests to keep CI fast.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <set>
#include <vector>

#include "grain/contract/algorithms/block.hpp"  // ContractBlockHostCellKernel, tested directly below
#include "grain/contract/algorithms/flat.hpp"  // ContractFlatRowKernel, tested directly below
#include "grain/contract/algorithms/team_reduce.hpp"  // ContractTeamSmallKCellsKernel, tested directly below
#include "grain/contract/engine.hpp"
#include "grain/contract/testing.hpp"  // forcing mma's configurations and team-small-k's cell tiles

#include "contract_test_util.hpp"

namespace {

using namespace contract_test;
using grain::ContractAlgorithm;

// The test's own applicability table (select.hpp is not consulted).
template <int Family, int NK, class Exec, class T, class Layout>
bool applies(ContractAlgorithm a) {
  switch (a) {
    case ContractAlgorithm::TeamDepth2: return NK >= 2;
    case ContractAlgorithm::Slice:
    case ContractAlgorithm::AdaptiveSlice: return Family >= 1;
    case ContractAlgorithm::Tile: return Family == 2;
    case ContractAlgorithm::Block: return Family >= 1;
    case ContractAlgorithm::Blas:
#if GRAIN_CUDA_LAUNCH_AVAILABLE
      return Family == 2 && std::is_same_v<Exec, grain::Cuda> &&
             std::is_same_v<Layout, grain::LayoutRight>;
#else
      return false;
#endif
    case ContractAlgorithm::Mma:
#if GRAIN_CUDA_LAUNCH_AVAILABLE
      return Family == 2 && std::is_same_v<Exec, grain::Cuda>;  // LayoutLeft and LayoutRight
#else
      return false;
#endif
    default: return true;
  }
}

template <class T>
double tol_for(std::size_t K, double mag) {
  const double eps = std::numeric_limits<T>::epsilon();
  return 2.0 * eps * (static_cast<double>(K) + 2.0) * mag + 4.0 * eps;
}

template <class Exec, int Family, int NK, class T, class Layout>
void sweep(const Shape& s, bool broadcast, std::uint64_t seed, int& runs) {
  using Space = typename Exec::memory_space;
  using KS = KernelShape<Family, NK>;
  using HL = ViewN<T, KS::left_rank, Layout, grain::HostSpace>;
  using HR = ViewN<T, KS::right_rank, Layout, grain::HostSpace>;
  using HO = ViewN<T, KS::out_rank, Layout, grain::HostSpace>;
  using DL = ViewN<T, KS::left_rank, Layout, Space>;
  using DR = ViewN<T, KS::right_rank, Layout, Space>;
  using DO = ViewN<T, KS::out_rank, Layout, Space>;
  using CDL = ViewN<const T, KS::left_rank, Layout, Space>;
  using CDR = ViewN<const T, KS::right_rank, Layout, Space>;

  const std::size_t L = KS::L(s), R = KS::R(s);
  const std::size_t K = s.P * (NK >= 2 ? s.D1 : 1) * (NK >= 3 ? s.D2 : 1);
  HL hl = make_view<HL>("left", KS::left_extents(s, broadcast ? 1 : s.P));
  HR hr = make_view<HR>("right", KS::right_extents(s));
  grain::test::fill_random(hl, seed);
  grain::test::fill_random(hr, seed + 1);
  std::vector<double> ref, mag;
  naive<Family, NK>(s, hl, hr, ref, mag);

  std::ostringstream ctx_os;
  ctx_os << "kernel family " << Family << " NK " << NK << ", " << grain::impl::layout_name<Layout>()
         << ", " << (sizeof(T) == 4 ? "float" : "double") << ", " << Exec::name() << ", "
         << describe(s) << (broadcast ? ", data broadcast over P" : "");
  const std::string ctx = ctx_os.str();

  // grain's serial oracle, on the host, checked against the naive loop.
  HO oracle = make_view<HO>("oracle", KS::out_extents(s));
  grain::test::poison(oracle);
  call<Family, NK>(oracle, hl, hr, {false, ContractAlgorithm::Serial, grain::ContractExec::Serial});
  for (std::size_t c = 0; c < s.C; ++c)
    for (std::size_t l = 0; l < L; ++l)
      for (std::size_t r = 0; r < R; ++r) {
        const std::size_t i = (c * L + l) * R + r;
        const double got = out_at<Family>(oracle, c, l, r);
        ASSERT_TRUE(std::abs(got - ref[i]) <= tol_for<T>(K, mag[i]))
            << ctx << ": serial oracle at (" << c << "," << l << "," << r << ") = " << got
            << ", naive " << ref[i];
      }

  DL dl = make_view<DL>("left_d", KS::left_extents(s, broadcast ? 1 : s.P));
  DR dr = make_view<DR>("right_d", KS::right_extents(s));
  grain::deep_copy(dl, hl);
  grain::deep_copy(dr, hr);
  const CDL cl = dl;  // inputs as const Views
  const CDR cr = dr;
  DO dout = make_view<DO>("out_d", KS::out_extents(s));
  HO hout = make_view<HO>("out_h", KS::out_extents(s));
  HO init = make_view<HO>("init", KS::out_extents(s));
  grain::test::fill_random(init, seed + 2);

  std::vector<ContractAlgorithm> algs{ContractAlgorithm::Auto};
  for (ContractAlgorithm a : grain::kAllContractAlgorithms) algs.push_back(a);
  for (ContractAlgorithm a : algs) {
    const std::string where = ctx + ", algorithm " + grain::contract_algorithm_name(a);
    grain::ContractOptions opt;
    opt.algorithm = a;
    opt.exec = exec_of<Exec>();
    // With every extent 1 the two layouts are the same memory, so blas (which needs row-major
    // compatible data, not literally LayoutRight) applies to LayoutLeft Views too, and mma
    // (cells-fastest data) to LayoutRight ones.
    const bool all_ones = s.C == 1 && s.L == 1 && s.R == 1 && K == 1;
    const bool on_degenerate = all_ones && (applies<Family, NK, Exec, T, grain::LayoutRight>(a) ||
                                            applies<Family, NK, Exec, T, grain::LayoutLeft>(a));
    if (!applies<Family, NK, Exec, T, Layout>(a) && !on_degenerate) {
      bool threw = false;
      try {
        call<Family, NK>(dout, cl, cr, opt);
      } catch (const grain::Error&) {
        threw = true;
      }
      EXPECT_TRUE(threw) << where << ": expected grain::Error (algorithm does not apply)";
      continue;
    }
    for (int mode = 0; mode < 2; ++mode) {
      opt.sum_into = mode == 1;
      if (opt.sum_into) {
        grain::deep_copy(dout, init);
      } else {
        grain::test::poison(dout);
      }
      try {
        call<Family, NK>(dout, cl, cr, opt);
      } catch (const std::exception& e) {
        ADD_FAILURE() << where << (opt.sum_into ? ", sum_into" : "") << ": threw " << e.what();
        continue;
      }
      ++runs;
      grain::deep_copy(hout, dout);
      for (std::size_t c = 0; c < s.C; ++c)
        for (std::size_t l = 0; l < L; ++l)
          for (std::size_t r = 0; r < R; ++r) {
            const std::size_t i = (c * L + l) * R + r;
            const double base = opt.sum_into ? out_at<Family>(init, c, l, r) : 0.0;
            const double got = out_at<Family>(hout, c, l, r);
            const double tol = tol_for<T>(K, mag[i] + std::abs(base));
            const double by_oracle = base + out_at<Family>(oracle, c, l, r);
            if (!(std::abs(got - (base + ref[i])) <= tol) || !(std::abs(got - by_oracle) <= 2 * tol)) {
              ADD_FAILURE() << where << (opt.sum_into ? ", sum_into" : "") << ": out at (" << c
                            << "," << l << "," << r << ") = " << got << ", naive "
                            << base + ref[i] << ", serial oracle " << by_oracle;
              c = s.C;  // one report per run
              l = L;
              break;
            }
          }
    }
  }
}

const std::vector<Shape>& shapes() {
  // Odd extents: 1, 3, 7, 33 cells/fields, 130 points (tiles never divide them), components of
  // 1, 2, 3 (an extent-1 component is dropped when K is flattened).
  static const std::vector<Shape> s = {{1, 1, 1, 1, 1, 1},
                                       {7, 3, 7, 3, 3, 2},
                                       {33, 7, 3, 7, 2, 3},
                                       {1, 33, 17, 130, 1, 2},
                                       {5, 18, 20, 30, 3, 1}};
  return s;
}

template <class Exec, int Family, int NK>
void sweep_all(bool broadcast, int& runs) {
  std::uint64_t seed = 1000 * Family + 100 * NK;
  for (const Shape& s : shapes()) {
    sweep<Exec, Family, NK, double, grain::LayoutRight>(s, broadcast, seed += 10, runs);
    sweep<Exec, Family, NK, double, grain::LayoutLeft>(s, broadcast, seed += 10, runs);
    sweep<Exec, Family, NK, float, grain::LayoutRight>(s, broadcast, seed += 10, runs);
    sweep<Exec, Family, NK, float, grain::LayoutLeft>(s, broadcast, seed += 10, runs);
  }
}

template <class Exec, int Family>
void check_family(bool broadcast = false) {
  int runs = 0;
  sweep_all<Exec, Family, 1>(broadcast, runs);
  sweep_all<Exec, Family, 2>(broadcast, runs);
  sweep_all<Exec, Family, 3>(broadcast, runs);
  EXPECT_GT(runs, 0);
  std::printf("[ contract ] %s: %d checked runs\n", Exec::name(), runs);
}

// team-small-k's staged rows (LayoutRight Data kernels with back-to-back unit-stride rows that
// are not 16-byte packable): rows of every length it takes (odd and even K up to 4 KiB), teams
// that straddle cells and end part-way, and base pointers off their 16-byte boundary by
// different amounts in the two operands, so the copy's skew, head and tail paths all run; out
// is poisoned (overwrite) or random (sum_into). Checked against a double-precision loop.
// data_scalar_case is one DataDataScalar (R = 1) or DataFieldScalar call of `algorithm` on flat
// buffers in `Layout`, the base pointers off_a / off_b elements into them, run twice (NaN-poisoned
// out, then sum_into random values) and compared with a double loop within tol_for.
template <class Exec, class T, class Layout>
void data_scalar_case(ContractAlgorithm algorithm, std::size_t C, std::size_t R, std::size_t K, std::size_t off_a,
                      std::size_t off_b, std::uint64_t seed) {
  using Space = typename Exec::memory_space;
  using HV = grain::View<T*, Layout, grain::HostSpace>;
  constexpr bool right = std::is_same_v<Layout, grain::LayoutRight>;
  const std::size_t na = C * K, nb = C * R * K, no = C * R;
  HV ha("a", na + 8), hb("b", nb + 8), hinit("init", no), hout("out", no);
  grain::test::fill_random(ha, seed);
  grain::test::fill_random(hb, seed + 1);
  grain::test::fill_random(hinit, seed + 2);
  grain::View<T*, Layout, Space> da("a_d", na + 8), db("b_d", nb + 8), dout("out_d", no);
  grain::deep_copy(da, ha);
  grain::deep_copy(db, hb);
  // Element (c, r, k) of a C x rows x K array, and (c, r) of the C x R output, in this layout.
  auto at = [&](std::size_t c, std::size_t r, std::size_t k, std::size_t rows) {
    return right ? (c * rows + r) * K + k : c + C * (r + rows * k);
  };
  auto out_at = [&](std::size_t c, std::size_t r) { return right ? c * R + r : c + C * r; };
  std::vector<double> ref(no), mag(no);
  for (std::size_t c = 0; c < C; ++c)
    for (std::size_t r = 0; r < R; ++r) {
      double s = 0, m = 0;
      for (std::size_t k = 0; k < K; ++k) {
        const double x = double(ha.data()[off_a + at(c, 0, k, 1)]) * double(hb.data()[off_b + at(c, r, k, R)]);
        s += x;
        m += std::abs(x);
      }
      ref[out_at(c, r)] = s;
      mag[out_at(c, r)] = m;
    }
  grain::ContractOptions opt;
  opt.algorithm = algorithm;
  opt.exec = exec_of<Exec>();
  const std::string where = std::string(Exec::name()) + (sizeof(T) == 4 ? " float" : " double") +
                            (right ? " right" : " left") + ", C " + std::to_string(C) + ", R " + std::to_string(R) +
                            ", K " + std::to_string(K) + ", offsets " + std::to_string(off_a) + "/" +
                            std::to_string(off_b);
  for (int mode = 0; mode < 2; ++mode) {
    opt.sum_into = mode == 1;
    if (opt.sum_into) {
      grain::deep_copy(dout, hinit);
    } else {
      grain::test::poison(dout);
    }
    grain::View<const T**, Layout, Space> a(da.data() + off_a, C, K);
    if (R == 1) {
      grain::View<const T**, Layout, Space> b(db.data() + off_b, C, K);
      grain::contract_data_data_scalar(dout, a, b, opt);
    } else {
      grain::View<const T***, Layout, Space> b(db.data() + off_b, C, R, K);
      grain::View<T**, Layout, Space> o(dout.data(), C, R);
      grain::contract_data_field_scalar(o, a, b, opt);
    }
    grain::deep_copy(hout, dout);
    for (std::size_t i = 0; i < no; ++i) {
      const double base = opt.sum_into ? double(hinit.data()[i]) : 0.0;
      const double got = hout.data()[i];
      if (!(std::abs(got - (base + ref[i])) <= tol_for<T>(K, mag[i] + std::abs(base)))) {
        ADD_FAILURE() << where << (opt.sum_into ? ", sum_into" : "") << ": out " << i << " = " << got
                      << ", expected " << base + ref[i];
        break;
      }
    }
  }
}

template <class Exec, class T>
void staged_rows_case(std::size_t C, std::size_t R, std::size_t K, std::size_t off_a, std::size_t off_b,
                      std::uint64_t seed) {
  data_scalar_case<Exec, T, grain::LayoutRight>(ContractAlgorithm::TeamSmallK, C, R, K, off_a, off_b, seed);
}

GRAIN_BACKEND_TEST(Contract, StagedRowsAnyLengthAndAlignment) {
  std::uint64_t seed = 7000;
  for (std::size_t K : {17, 27, 31, 64, 81, 130, 243, 301, 511}) {
    for (std::size_t R : {1, 5, 27}) {
      staged_rows_case<TypeParam, float>(37, R, K, 1, 3, seed += 3);
      staged_rows_case<TypeParam, float>(37, R, K, 2, 0, seed += 3);
      staged_rows_case<TypeParam, double>(37, R, K, 1, 0, seed += 3);
    }
  }
  // Longer than a team's scratch allows for several rows: double rows of 4088 bytes.
  staged_rows_case<TypeParam, double>(9, 3, 511, 0, 1, seed += 3);
}

// team-small-k's K slices (LayoutLeft, cells fastest): DataField in float over 4 slices (at most
// 35000 outputs, 8 loads in flight) and 2 slices (more: two fields a team, one per thread group, 4
// loads in flight; 125 fields leave the last team's second group empty), and in double 8 slices
// of 2, with K odd so that every remainder of the unrolled loads runs; in double with K >= 1024
// two fields a thread over 4 slices (5 fields: two pairs and a single); the base pointers on and
// off their boundaries; overwrite and sum_into against a double loop.
GRAIN_BACKEND_TEST(Contract, KSlicesLayoutLeft) {
  std::uint64_t seed = 9500;
  for (std::size_t off : {0, 1}) {
    data_scalar_case<TypeParam, float, grain::LayoutLeft>(ContractAlgorithm::TeamSmallK, 300, 125, 37, off, 0, seed += 3);
    data_scalar_case<TypeParam, float, grain::LayoutLeft>(ContractAlgorithm::TeamSmallK, 37, 27, 301, 0, off, seed += 3);
    data_scalar_case<TypeParam, double, grain::LayoutLeft>(ContractAlgorithm::TeamSmallK, 45, 9, 83, off, off, seed += 3);
    data_scalar_case<TypeParam, float, grain::LayoutLeft>(ContractAlgorithm::TeamSmallK, 70, 1, 513, off, 0, seed += 3);
    data_scalar_case<TypeParam, double, grain::LayoutLeft>(ContractAlgorithm::TeamSmallK, 45, 5, 1031, off, off, seed += 3);
  }
}

// flat's packed cells (LayoutLeft Data kernels on the GPU, ContractProblem::flat_cell_pack): C a
// multiple of 4 (16-byte loads of 4 floats or 2 doubles), C only even (float
// pairs), C odd in float (shifted packs of 4 where there are 2^18 such threads, flat_cell_shift)
// and a base pointer off its boundary (the plain threads), enough fields or cells for the packed
// threads to apply (and one pack short of it), K = 13 / 7 / 5 (a remainder after the 4-step loop);
// out poisoned
// (overwrite) or random (sum_into), against a double loop. Host back ends run their own flat.
template <class Exec, class T>
void flat_packed_case(std::size_t C, std::size_t R, std::size_t K, std::size_t off, std::uint64_t seed) {
  data_scalar_case<Exec, T, grain::LayoutLeft>(ContractAlgorithm::Flat, C, R, K, off, off, seed);
}

GRAIN_BACKEND_TEST(Contract, FlatPackedCellsLayoutLeft) {
  std::uint64_t seed = 9000;
  for (std::size_t off : {0, 1}) {
    flat_packed_case<TypeParam, float>(4000, 100, 13, off, seed += 3);   // 4 cells per thread
    flat_packed_case<TypeParam, float>(2000, 100, 13, off, seed += 3);   // 2: too few threads of 4
    flat_packed_case<TypeParam, float>(2002, 100, 13, off, seed += 3);   // 2
    flat_packed_case<TypeParam, double>(2000, 100, 13, off, seed += 3);  // 2
    flat_packed_case<TypeParam, float>(2001, 100, 13, off, seed += 3);   // odd C: one cell
    flat_packed_case<TypeParam, float>(10501, 100, 13, off, seed += 3);  // shifted packs of 4
    flat_packed_case<TypeParam, float>(1657, 125, 9, off, seed += 3);    // field pairs (on an H100)
    flat_packed_case<TypeParam, float>(10503, 100, 5, off, seed += 3);   // C = 3 mod 4, K < 4 steps
    flat_packed_case<TypeParam, float>(1048569, 1, 7, off, seed += 3);   // DataData, 1 short of 2^18 packs
    flat_packed_case<TypeParam, float>(1048577, 1, 7, off, seed += 3);   // DataData, shifted
    flat_packed_case<TypeParam, float>(200000, 1, 7, off, seed += 3);    // DataData: 4
    flat_packed_case<TypeParam, float>(200002, 1, 7, off, seed += 3);    // 2
    flat_packed_case<TypeParam, double>(200000, 1, 7, off, seed += 3);   // 2
  }
}

// FieldField cells with long K (the CPU block's right panels packed k by k from K = 512, whole and
// partial panels, rows in blocks of 6 and the 4 / 2 / 1 remainders) and few cells (rows split into
// panels across threads): every algorithm, both layouts, overwrite and sum_into. The last shape,
// FieldFieldTensor with K = 1791 (P = 199), is one that block's CPU team kernel runs in chunks of
// K (host_k_chunk: 2 in float, 3 in double), LayoutLeft packing each chunk's strided rows.
GRAIN_BACKEND_TEST(Contract, FieldFieldLongK) {
  int runs = 0;
  std::uint64_t seed = 7700;
  for (const Shape& s : {Shape{3, 13, 37, 600, 1, 1}, Shape{2, 9, 16, 520, 1, 1}, Shape{1, 31, 8, 530, 1, 1}}) {
    sweep<TypeParam, 2, 1, double, grain::LayoutRight>(s, false, seed += 10, runs);
    sweep<TypeParam, 2, 1, float, grain::LayoutRight>(s, false, seed += 10, runs);
    sweep<TypeParam, 2, 1, float, grain::LayoutLeft>(s, false, seed += 10, runs);
  }
  const Shape chunked{2, 20, 21, 199, 3, 3};
  sweep<TypeParam, 2, 3, double, grain::LayoutRight>(chunked, false, seed += 10, runs);
  sweep<TypeParam, 2, 3, double, grain::LayoutLeft>(chunked, false, seed += 10, runs);
  sweep<TypeParam, 2, 3, float, grain::LayoutRight>(chunked, false, seed += 10, runs);
  sweep<TypeParam, 2, 3, float, grain::LayoutLeft>(chunked, false, seed += 10, runs);
  EXPECT_GT(runs, 0);
}

GRAIN_BACKEND_TEST(Contract, DataDataEveryAlgorithm) { check_family<TypeParam, 0>(); }
GRAIN_BACKEND_TEST(Contract, DataFieldEveryAlgorithm) { check_family<TypeParam, 1>(); }
GRAIN_BACKEND_TEST(Contract, DataFieldBroadcastData) { check_family<TypeParam, 1>(true); }
GRAIN_BACKEND_TEST(Contract, FieldFieldEveryAlgorithm) { check_family<TypeParam, 2>(); }

// team-small-k's staged FieldField cells four fields a thread (LayoutRight, R a multiple of 4,
// rows of whole 16-byte packs): K = 4 to 72 (1 to 18 packs of float, 2 to 36 of double), L odd
// and even, R = 4, 8, 12, cell counts that leave the last team part-full; every algorithm runs
// (sweep), overwrite and sum_into, against the naive loop and the serial oracle.
template <class Exec, class T>
void staged_cell_quads(std::uint64_t seed, int& runs) {
  sweep<Exec, 2, 1, T, grain::LayoutRight>({37, 8, 8, 8, 1, 1}, false, seed + 1, runs);
  sweep<Exec, 2, 1, T, grain::LayoutRight>({45, 3, 4, 4, 1, 1}, false, seed + 2, runs);
  sweep<Exec, 2, 2, T, grain::LayoutRight>({21, 8, 8, 8, 3, 1}, false, seed + 3, runs);
  sweep<Exec, 2, 2, T, grain::LayoutRight>({13, 5, 12, 4, 2, 1}, false, seed + 4, runs);
  sweep<Exec, 2, 3, T, grain::LayoutRight>({11, 8, 8, 8, 3, 3}, false, seed + 5, runs);
  sweep<Exec, 2, 3, T, grain::LayoutRight>({70, 7, 8, 4, 2, 2}, false, seed + 6, runs);
}

GRAIN_BACKEND_TEST(Contract, FieldFieldStagedCellQuads) {
  int runs = 0;
  staged_cell_quads<TypeParam, float>(11000, runs);
  staged_cell_quads<TypeParam, double>(12000, runs);
  EXPECT_GT(runs, 0);
}

// team-small-k's cell tiles (LayoutRight FieldField cells of 17-32 x 17-32, more than 256 outputs:
// ContractTeamSmallKCellTilesKernel): K = 27 (one pass, several groups a team), 64, 81 and 243
// (on the GPU in passes; K = 81 and 243 passes of 27 float or 14 double indices, whose staged rows
// end in zeroed padding), L and R not covered exactly by the 3 x 9 tiles (rows and fields
// re-read and dropped), cell counts that leave the last team part-full and put the groups'
// outputs at every 16-byte skew; every algorithm runs (sweep), overwrite and sum_into, against the
// naive loop and the serial oracle.
template <class Exec, class T>
void staged_cell_tiles(std::uint64_t seed, int& runs) {
  sweep<Exec, 2, 1, T, grain::LayoutRight>({37, 27, 27, 27, 1, 1}, false, seed + 1, runs);
  sweep<Exec, 2, 1, T, grain::LayoutRight>({11, 17, 32, 64, 1, 1}, false, seed + 2, runs);
  sweep<Exec, 2, 2, T, grain::LayoutRight>({13, 27, 27, 27, 3, 1}, false, seed + 3, runs);
  sweep<Exec, 2, 3, T, grain::LayoutRight>({7, 27, 27, 27, 3, 3}, false, seed + 4, runs);
  sweep<Exec, 2, 3, T, grain::LayoutRight>({6, 30, 19, 8, 3, 3}, false, seed + 5, runs);
}

GRAIN_BACKEND_TEST(Contract, FieldFieldStagedCellTiles) {
  int runs = 0;
  staged_cell_tiles<TypeParam, float>(13000, runs);
  staged_cell_tiles<TypeParam, double>(14000, runs);
  EXPECT_GT(runs, 0);
}

// The same kernel under shapes its rule does not choose (grain::impl::testing::cell_tiles_override;
// host teams ignore it): passes of 7 and 9 indices (padded rows), passes of one index (the outputs
// too many for a buffer, so gathered apart), one buffer with several groups a team (a budget two
// buffers do not fit: each group must stage its own rows, not reuse the first group's), one and
// 8 cells a group, 2 cells with the rule's budget. FieldFieldTensor Q2-like cells in float
// (K = 243) and FieldFieldScalar (K = 27), 13 cells so the last team's groups run short.
GRAIN_BACKEND_TEST(Contract, FieldFieldStagedCellTilesForcedShapes) {
  int runs = 0;
  std::uint64_t seed = 15000;
  const grain::impl::testing::CellTilesOverride shapes[] = {{0, 7, 0, 0},   {0, 9, 1, 0},      {0, 1, 2, 0},
                                                   {2, 27, 3, 14000}, {1, 0, 1, 0}, {8, 0, 0, 0}, {2, 0, 3, 20000}};
  for (const auto& shape : shapes) {
    grain::impl::testing::cell_tiles_override() = shape;
    sweep<TypeParam, 2, 3, float, grain::LayoutRight>({13, 27, 27, 27, 3, 3}, false, seed += 10, runs);
    sweep<TypeParam, 2, 1, float, grain::LayoutRight>({13, 27, 27, 27, 1, 1}, false, seed += 10, runs);
    sweep<TypeParam, 2, 1, double, grain::LayoutRight>({13, 27, 27, 27, 1, 1}, false, seed += 10, runs);
  }
  grain::impl::testing::cell_tiles_override() = {};
  EXPECT_GT(runs, 0);
}

// dot_strided's strided branch with 1, 2, 4 and 8 partial sums (flat's float GPU threads use 8
// when they are few), and dot_strided_rows over 2 and 4 rows of y (flat's field pairs,
// team-small-k's field groups): every length from 0 to 40, so every remainder of the unrolled
// steps, on random non-zero strided data against a long double loop.
template <int A, class T>
void check_dot_strided(std::mt19937_64& g) {
  std::uniform_real_distribution<double> u(0.5, 1.5);
  constexpr grain::index_type sx = 3, sy = 5, ry = 7;  // rows of y interleave (ry < n sy)
  constexpr int F = 4;
  for (grain::index_type n = 0; n <= 40; ++n) {
    std::vector<T> x(std::size_t(n * sx + 1)), y(std::size_t(n * sy + F * ry + 1));
    for (T& v : x) v = T(g() % 2 ? u(g) : -u(g));
    for (T& v : y) v = T(g() % 2 ? u(g) : -u(g));
    long double ref[F] = {}, mag[F] = {};
    for (int f = 0; f < F; ++f)
      for (grain::index_type i = 0; i < n; ++i) {
        const long double t = (long double)x[std::size_t(i * sx)] * (long double)y[std::size_t(f * ry + i * sy)];
        ref[f] += t;
        mag[f] += std::fabs(t);
      }
    auto tol = [&](int f) { return 4.0 * double(n + 1) * double(std::numeric_limits<T>::epsilon()) * double(mag[f]); };
    const T got = grain::impl::dot_strided<A>(x.data(), sx, y.data(), sy, n);
    EXPECT_LE(std::abs(double(got) - double(ref[0])), tol(0)) << "A = " << A << ", n = " << n;
    // dot_strided_rows: 2 and 4 rows of y sharing each x.
    T two[2], four[4];
    grain::impl::dot_strided_rows<A, 2>(x.data(), sx, y.data(), sy, ry, n, two);
    grain::impl::dot_strided_rows<A, 4>(x.data(), sx, y.data(), sy, ry, n, four);
    for (int f = 0; f < F; ++f) {
      if (f < 2) {
        EXPECT_LE(std::abs(double(two[f]) - double(ref[f])), tol(f)) << "A = " << A << ", n = " << n << ", row " << f << " of 2";
      }
      EXPECT_LE(std::abs(double(four[f]) - double(ref[f])), tol(f)) << "A = " << A << ", n = " << n << ", row " << f << " of 4";
    }
  }
}

// The reference for a LayoutRight DataField output (cell c, field r; left c * K + k, right
// (c R + r) K + k) starting from `start`, in long double, and the magnitude of its terms (`mag`,
// for tol_for).
template <class T>
long double right_rows_reference(const std::vector<T>& a, const std::vector<T>& b, grain::index_type c,
                                 grain::index_type r, grain::index_type R, grain::index_type K, long double start,
                                 long double& mag) {
  long double ref = start;
  mag = std::fabs(double(start));
  for (grain::index_type k = 0; k < K; ++k) {
    const long double t = (long double)a[std::size_t(c * K + k)] * b[std::size_t((c * R + r) * K + k)];
    ref += t, mag += std::fabs((double)t);
  }
  return ref;
}

// The CPU `flat` rows (LayoutRight, unit-stride K) in both field orders, whichever one this host's
// Auto path takes (one field at a time on AMD, blocks of W and of 4 fields elsewhere): a
// DataFieldScalar problem with 19 fields (a W block, a block of 4, 3 single fields) and rows of
// 61 elements (longer than kFlatShortRow in both types), overwrite and sum_into, against a long
// double loop on random non-zero data.
template <class T>
void check_flat_row_orders(std::mt19937_64& g) {
  constexpr grain::index_type C = 7, R = 19, K = 61;
  std::uniform_real_distribution<double> u(0.5, 1.5);
  auto rnd = [&] { return T(g() % 2 ? u(g) : -u(g)); };
  std::vector<T> a(std::size_t(C * K)), b(std::size_t(C * R * K)), init(std::size_t(C * R));
  for (T& v : a) v = rnd();
  for (T& v : b) v = rnd();
  for (T& v : init) v = rnd();
  grain::impl::ContractProblem<T> p;
  p.kernel = grain::ContractKernel::DataFieldScalar;
  p.C = C, p.L = 1, p.R = R;
  p.x[2] = K, p.ax[2] = p.bx[2] = 1;
  p.a_c = K, p.b_c = R * K, p.b_r = K, p.o_c = R, p.o_r = 1;
  p.canonicalize();
  p.a = a.data(), p.b = b.data();
  for (bool one : {false, true}) {
    for (bool sum_into : {false, true}) {
      std::vector<T> out = sum_into ? init : std::vector<T>(init.size(), std::numeric_limits<T>::quiet_NaN());
      p.out = out.data(), p.sum_into = sum_into;
      const grain::impl::ContractFlatRowKernel<T> kernel{p, one};
      for (grain::index_type o = 0; o < C; ++o) kernel(o);
      for (grain::index_type c = 0; c < C; ++c)
        for (grain::index_type r = 0; r < R; ++r) {
          long double mag = 0;
          const long double ref = right_rows_reference(a, b, c, r, R, K, sum_into ? init[std::size_t(c * R + r)] : 0, mag);
          EXPECT_LE(std::abs(double(out[std::size_t(c * R + r)]) - double(ref)), tol_for<T>(K, double(mag)))
              << "one field at a time = " << one << ", sum_into = " << sum_into << ", cell " << c << ", field " << r;
        }
    }
  }
}

TEST(ContractFlatRows, BothFieldOrders) {
  std::mt19937_64 g(1515);
  check_flat_row_orders<float>(g);
  check_flat_row_orders<double>(g);
}

#ifdef GRAIN_HOST_SHUFFLE_TRANSPOSE
// The CPU `flat` rows for the Data kernels (ContractFlatDataRowsKernel: LayoutRight, L = 1),
// called directly: 7 cells by 1 and 3 a call (the last call short), 19 fields (W blocks and single
// fields) and 1 field, rows of 8 and 61 elements, packed or padded, out with unit-stride fields
// (whole vectors stored) or strided ones (one at a time), overwrite (NaN-poisoned out) and
// sum_into, with and without prefetching 2 cells ahead, against a long double loop on random
// non-zero data; and the rules of flat_cells_per_item and host_prefetch_cells.
template <class T>
void check_flat_data_rows(std::mt19937_64& g, int& runs) {
  constexpr grain::index_type C = 7;
  std::uniform_real_distribution<double> u(0.5, 1.5);
  auto rnd = [&] { return T(g() % 2 ? u(g) : -u(g)); };
  for (grain::index_type R : {1, 19})
    for (grain::index_type K : {8, 61}) {
      std::vector<T> a(std::size_t(C * K)), b(std::size_t(C * R * K)), init(std::size_t(C * R));
      for (T& v : a) v = rnd();
      for (T& v : b) v = rnd();
      for (T& v : init) v = rnd();
      // The same fields with rows padded by 3 elements (b_r > K: prefetched row by row).
      std::vector<T> padded(std::size_t(C * R * (K + 3)), std::numeric_limits<T>::quiet_NaN());
      for (grain::index_type row = 0; row < C * R; ++row)
        for (grain::index_type k = 0; k < K; ++k) padded[std::size_t(row * (K + 3) + k)] = b[std::size_t(row * K + k)];
      for (bool fields_fast : {true, false})
        for (grain::index_type cells : {1, 3})
          for (bool sum_into : {false, true})
            for (grain::index_type ahead : {0, 2})
              for (grain::index_type pad : {0, 3}) {
            grain::impl::ContractProblem<T> p;
            p.kernel = R == 1 ? grain::ContractKernel::DataDataScalar : grain::ContractKernel::DataFieldScalar;
            p.C = C, p.L = 1, p.R = R;
            p.x[2] = K, p.ax[2] = p.bx[2] = 1;
            p.a_c = K, p.b_c = R * (K + pad), p.b_r = K + pad;
            p.o_c = fields_fast ? R : 1, p.o_r = fields_fast ? 1 : C;
            p.canonicalize();
            p.a = a.data(), p.b = pad ? padded.data() : b.data();
            std::vector<T> out(init.size(), std::numeric_limits<T>::quiet_NaN());
            for (grain::index_type c = 0; c < C; ++c)
              for (grain::index_type r = 0; r < R; ++r)
                if (sum_into) out[std::size_t(c * p.o_c + r * p.o_r)] = init[std::size_t(c * R + r)];
            p.out = out.data(), p.sum_into = sum_into;
            const grain::impl::ContractFlatDataRowsKernel<T> kernel{p, cells, ahead};
            for (grain::index_type o = 0; o < (C + cells - 1) / cells; ++o) kernel(o);
            ++runs;
            for (grain::index_type c = 0; c < C; ++c)
              for (grain::index_type r = 0; r < R; ++r) {
                long double mag = 0;
                const long double ref =
                    right_rows_reference(a, b, c, r, R, K, sum_into ? init[std::size_t(c * R + r)] : 0, mag);
                EXPECT_LE(std::abs(double(out[std::size_t(c * p.o_c + r * p.o_r)]) - double(ref)), tol_for<T>(K, double(mag)))
                    << "R " << R << ", K " << K << ", fields unit-stride " << fields_fast << ", " << cells
                    << " cells a call, sum_into " << sum_into << ", " << ahead << " cells ahead, rows padded by "
                    << pad << ", cell " << c << ", field " << r;
              }
          }
    }
}

TEST(ContractFlatDataRows, EveryPath) {
  std::mt19937_64 g(2323);
  int runs = 0;
  check_flat_data_rows<float>(g, runs);
  check_flat_data_rows<double>(g, runs);
  EXPECT_EQ(runs, 2 * 2 * 2 * 2 * 2 * 2 * 2 * 2);
  using grain::impl::host_prefetch_cells;
  EXPECT_EQ(host_prefetch_cells(9 * 8 * 4), 15);          // DataFieldScalar Q1 float: 288 B a cell, 4 KB ahead
  EXPECT_EQ(host_prefetch_cells(28 * 27 * 8), 1);         // Q2 double: 6 KB a cell, the next one
  EXPECT_EQ(host_prefetch_cells(8192), 1);
  EXPECT_EQ(host_prefetch_cells(8193), 0);                // longer cells: the hardware's prefetchers
  EXPECT_EQ(host_prefetch_cells(0), 0);
  using grain::impl::flat_cells_per_item;
  EXPECT_EQ(flat_cells_per_item(524288, 8 * 8 * 4, 2), 16);      // DataFieldScalar Q1 float: 4 KB a call
  EXPECT_EQ(flat_cells_per_item(524288, 32, 2), 64);             // at most 64 cells
  EXPECT_EQ(flat_cells_per_item(1242, 125 * 216 * 4, 2), 1);     // Q4: one cell's rows are 108 KB
  EXPECT_EQ(flat_cells_per_item(100, 16, 2), 3);                  // at least 16 calls a thread
  EXPECT_EQ(flat_cells_per_item(5, 16, 2), 1);
}
#endif

#ifdef GRAIN_HOST_SHUFFLE_TRANSPOSE
// C cells of FieldFieldScalar operands (c, l, k) and (c, r, k), random and non-zero, K
// unit-stride, and a random `init` output whose (c, l, r) is at c L R + l o_l + r o_r. run() fills
// `out` (NaN-poisoned, or init for sum_into), calls the kernel on every cell and checks every
// output against a long double loop; `what` names the case in failures.
template <class T>
struct HostCellsCase {
  grain::index_type C, L, R, K;
  std::vector<T> a, b, init;
  grain::impl::ContractProblem<T> p;
  HostCellsCase(std::mt19937_64& g, grain::index_type C_, grain::index_type L_, grain::index_type R_,
                grain::index_type K_, grain::index_type o_l, grain::index_type o_r)
      : C(C_), L(L_), R(R_), K(K_), a(std::size_t(C * L * K)), b(std::size_t(C * R * K)), init(std::size_t(C * L * R)) {
    std::uniform_real_distribution<double> u(0.5, 1.5);
    auto rnd = [&] { return T(g() % 2 ? u(g) : -u(g)); };
    for (T& v : a) v = rnd();
    for (T& v : b) v = rnd();
    for (T& v : init) v = rnd();
    p.kernel = grain::ContractKernel::FieldFieldScalar;
    p.C = C, p.L = L, p.R = R;
    p.x[2] = K, p.ax[2] = p.bx[2] = 1;
    p.a_c = L * K, p.a_l = K, p.b_c = R * K, p.b_r = K, p.o_c = L * R, p.o_l = o_l, p.o_r = o_r;
    p.canonicalize();
    p.a = a.data(), p.b = b.data();
  }
  template <class Kernel>
  void run(const Kernel& kernel, bool sum_into, const std::string& what) {
    run_with([&](const grain::impl::ContractProblem<T>& q) {
      Kernel k = kernel;
      k.p = q;
      for (grain::index_type c = 0; c < C; ++c) k(c);
    }, sum_into, what);
  }
  // launch(p) computes every cell of p.
  template <class Launch>
  void run_with(const Launch& launch, bool sum_into, const std::string& what) {
    std::vector<T> out = sum_into ? init : std::vector<T>(init.size(), std::numeric_limits<T>::quiet_NaN());
    p.out = out.data(), p.sum_into = sum_into;
    launch(p);
    for (grain::index_type c = 0; c < C; ++c)
      for (grain::index_type l = 0; l < L; ++l)
        for (grain::index_type r = 0; r < R; ++r) {
          const std::size_t o = std::size_t(c * L * R + l * p.o_l + r * p.o_r);
          long double ref = sum_into ? init[o] : 0, mag = std::fabs(double(ref));
          for (grain::index_type k0 = 0; k0 < K; ++k0) {
            const long double t = (long double)a[std::size_t((c * L + l) * K + k0)] * b[std::size_t((c * R + r) * K + k0)];
            ref += t, mag += std::fabs((double)t);
          }
          EXPECT_LE(std::abs(double(out[o]) - double(ref)), tol_for<T>(K, double(mag)))
              << what << ", L " << L << ", R " << R << ", K " << K << ", sum_into " << sum_into << ", cell " << c
              << ", out (" << l << ", " << r << ")";
        }
  }
};

// block's CPU kernel for cells of one short panel (ContractBlockHostCellKernel), called directly
// on every path: R = NR (whole vector rows) and R < NR (a zero-filled panel, stores one by one;
// NR - 3, or NR - 1 where NR is 2: SSE2's 16-byte vectors of doubles),
// L = 8 and 13 (unequal row blocks), K = 8, 24 and 72 (where K NR fits kHostCellPanel), the next
// cell prefetched by lines or not, whole cells 2 ahead or not, overwrite (NaN-poisoned out) and
// sum_into (HostCellsCase).
template <class T, int NR, int MR>
void check_block_cells(std::mt19937_64& g) {
  int runs = 0;
  for (grain::index_type L : {8, 13})
    for (grain::index_type R : {grain::index_type(NR), grain::index_type(NR > 3 ? NR - 3 : NR - 1)})
      for (grain::index_type K : {8, 24, 72}) {
        if (K * NR > grain::impl::kHostCellPanel) continue;  // the kernel's precondition
        HostCellsCase<T> cells(g, 5, L, R, K, R, 1);
        const int blocks = int((L + MR - 1) / MR);
        for (bool prefetch : {false, true})
          for (grain::index_type ahead : {0, 2})
            for (bool sum_into : {false, true}) {
              const grain::impl::ContractBlockHostCellKernel<T, NR, MR> kernel{cells.p, blocks, int(L / blocks),
                                                                                int(L % blocks), prefetch, ahead};
              cells.run(kernel, sum_into, std::string(prefetch ? "prefetch" : "no prefetch") + ", " +
                                              std::to_string(ahead) + " cells ahead");
              ++runs;
            }
      }
  EXPECT_EQ(runs, NR * 72 > grain::impl::kHostCellPanel ? 64 : 96);
}

TEST(ContractBlockCells, EveryPath) {
  std::mt19937_64 g(1616);
  constexpr int VF = grain::impl::kHostVectorBytes / 4, VD = grain::impl::kHostVectorBytes / 8;
  check_block_cells<float, VF, 8>(g);       // Q1 float: one vector of fields, 8 rows a block
  check_block_cells<float, 2 * VF, 6>(g);   // two vectors, 6 rows
  check_block_cells<double, 2 * VD, 6>(g);  // Q1 double
  check_block_cells<double, VD, 8>(g);
}

// block's CPU team kernel (ContractBlockHostGemmKernel), called directly as Serial teams, at the
// build's vector width and at 64 bytes (the AVX-512 panels of host_wide_panels; GCC's generic
// vectors, so it runs on any host): R from under one panel to two panels and a part (zero-filled
// fields), L = 7 and 27 (unequal row blocks), K = 5 to 243 (the packing's W x W blocks and their
// tails), K whole or in chunks of 2 or 16 (partial sums kept between chunks, the last one
// shorter), the rows split over 1 or 2 teams a cell, the next cell prefetched or not, overwrite
// (NaN-poisoned out) and sum_into (HostCellsCase).
template <class T, int NR, int MR, int VB>
void check_block_team(std::mt19937_64& g, int& runs) {
  using K = grain::impl::ContractBlockHostGemmKernel<T, NR, MR, VB>;
  for (grain::index_type L : {7, 27})
    for (grain::index_type R : {grain::index_type(NR / 2 + 1), grain::index_type(NR), grain::index_type(2 * NR + 3)})
      for (grain::index_type Kk : {5, 37, 243}) {
        HostCellsCase<T> cells(g, 3, L, R, Kk, R, 1);
        for (grain::index_type kc : {Kk, grain::index_type(2), grain::index_type(16)})
          for (grain::index_type panels : {1, 2})
            for (bool prefetch : {false, true})
              for (bool sum_into : {false, true}) {
                grain::index_type rows = (L + panels - 1) / panels;
                rows = (rows + MR - 1) / MR * MR;
                cells.run_with([&](const grain::impl::ContractProblem<T>& q) {
                  grain::TeamPolicy<grain::Serial> policy(q.C * panels, 1);
                  policy.set_scratch_size(0, grain::PerTeam(K::scratch_bytes(q, rows, true, kc)));
                  grain::parallel_for(policy, K{q, panels, rows, true, prefetch, kc});
                }, sum_into, "team kernel NR " + std::to_string(NR) + ", " + std::to_string(VB) + "-byte vectors, " +
                                 std::to_string(panels) + " panels, K in chunks of " + std::to_string(kc) +
                                 (prefetch ? ", prefetch" : ""));
                ++runs;
              }
      }
}

TEST(ContractBlockTeam, EveryPathBothWidths) {
  std::mt19937_64 g(2020);
  constexpr int B = grain::impl::kHostVectorBytes, VF = B / 4, VD = B / 8;
  int runs = 0;
  check_block_team<float, 2 * VF, 6, B>(g, runs);
  check_block_team<double, 2 * VD, 6, B>(g, runs);
  check_block_team<float, 32, 6, 64>(g, runs);
  check_block_team<double, 16, 6, 64>(g, runs);
  EXPECT_EQ(runs, 4 * 2 * 3 * 3 * 3 * 8);
  // The chunk rule: whole K while a chunk's packed panels and left rows fit kHostChunkBytes, else
  // equal chunks within it.
  using grain::impl::host_k_chunk;
  EXPECT_EQ(host_k_chunk(243, (32 + 27) * 4), 243);     // FieldFieldTensor Q2 float, wide panels
  EXPECT_EQ(host_k_chunk(1944, (128 + 125) * 8), 122);  // Q4 double: 16 chunks (15 of 122, one of 114)
  EXPECT_EQ(host_k_chunk(1944, (128 + 125) * 4), 243);  // Q4 float: 8 chunks
  EXPECT_EQ(host_k_chunk(7, 1 << 30), 7);               // a chunk's row beyond the budget: no chunks
  // The rule: wide panels only with AVX-512, off CPUs that split a 512-bit FMA in halves (AMD's
  // before Zen 5), beyond two narrow vectors of fields.
#if defined(__AVX512F__)
  const bool avx512 = !grain::impl::host_avx512_halves();
#else
  const bool avx512 = false;
#endif
  EXPECT_EQ(grain::impl::host_wide_panels(4, 27), avx512);  // FieldField Q2 float
  EXPECT_EQ(grain::impl::host_wide_panels(8, 125), avx512);
  EXPECT_EQ(grain::impl::host_wide_panels(8, 9), avx512);
  EXPECT_FALSE(grain::impl::host_wide_panels(4, 16));  // two 256-bit vectors hold them
  EXPECT_FALSE(grain::impl::host_wide_panels(4, 8));   // Q1
  EXPECT_FALSE(grain::impl::host_wide_panels(8, 8));
}

// block's CPU kernel for LayoutLeft cells (ContractBlockHostCellVecKernel), called directly as
// Serial teams on LayoutLeft operands at 32- and 64-byte vectors (GCC's generic vectors, so both
// run on any host): C = one vector of cells, one and a part (the last group overlaps the one
// before, through scratch), two and five and a part, 1, 2 or 3 groups a team (packed together,
// the last team's whole groups fewer); L, R = 5 and 9 (packed panels padded with zero rows,
// row and field blocks with remainders), K = 7 and 40 whole or in chunks of 3 (outputs re-read
// between chunks), overwrite (NaN-poisoned out) and sum_into, plain or streaming stores of the
// output runs (whose rows, C elements apart, start at every offset within a line), against a
// long double loop.
// A LayoutLeft FieldFieldScalar problem over C cells of L x R fields, K contracted indices (the
// operands a and b dense, cells fastest; the output's strides set, its pointer left to the caller).
template <class T>
grain::impl::ContractProblem<T> left_cells_problem(grain::index_type C, grain::index_type L, grain::index_type R,
                                                   grain::index_type K, const T* a, const T* b) {
  grain::impl::ContractProblem<T> p;
  p.kernel = grain::ContractKernel::FieldFieldScalar;
  p.C = C, p.L = L, p.R = R;
  p.x[2] = K, p.ax[2] = C * L, p.bx[2] = C * R;
  p.a_c = 1, p.a_l = C, p.b_c = 1, p.b_r = C, p.o_c = 1, p.o_l = C, p.o_r = C * L;
  p.canonicalize();
  p.a = a, p.b = b;
  return p;
}

template <class T, int MR, int NR, int VB>
void check_cell_vectors(std::mt19937_64& g, int& runs) {
  using Kern = grain::impl::ContractBlockHostCellVecKernel<T, MR, NR, VB>;
  constexpr grain::index_type W = Kern::W;
  std::uniform_real_distribution<double> u(0.5, 1.5);
  auto rnd = [&] { return T(g() % 2 ? u(g) : -u(g)); };
  for (grain::index_type C : {W, W + 3, 2 * W + 5, 5 * W + 3})
    for (grain::index_type L : {5, 9})
      for (grain::index_type R : {4, 9})
        for (grain::index_type K : {7, 40}) {
          std::vector<T> a(std::size_t(C * L * K)), b(std::size_t(C * R * K)), init(std::size_t(C * L * R));
          for (T& v : a) v = rnd();
          for (T& v : b) v = rnd();
          for (T& v : init) v = rnd();
          grain::impl::ContractProblem<T> p = left_cells_problem(C, L, R, K, a.data(), b.data());
          ASSERT_TRUE(grain::impl::host_cell_vectors(p, int(W)));
          for (grain::index_type kc : {K, grain::index_type(3)})
            for (bool sum_into : {false, true})
              for (grain::index_type groups : {1, 2, 3})
                for (bool nt : {false, true}) {
              std::vector<T> out = sum_into ? init : std::vector<T>(init.size(), std::numeric_limits<T>::quiet_NaN());
              p.out = out.data(), p.sum_into = sum_into;
              grain::TeamPolicy<grain::Serial> policy((C + groups * W - 1) / (groups * W), 1);
              policy.set_scratch_size(0, grain::PerTeam(Kern::scratch_bytes(p, kc, groups)));
              grain::parallel_for(policy, Kern{p, kc, groups, nt});
              ++runs;
              int bad = 0;
              for (grain::index_type c = 0; c < C; ++c)
                for (grain::index_type l = 0; l < L; ++l)
                  for (grain::index_type r = 0; r < R; ++r) {
                    const std::size_t o = std::size_t(c + l * C + r * C * L);
                    long double ref = sum_into ? init[o] : 0, mag = std::fabs(double(ref));
                    for (grain::index_type k = 0; k < K; ++k) {
                      const long double t = (long double)a[std::size_t(c + l * C + k * C * L)] * b[std::size_t(c + r * C + k * C * R)];
                      ref += t, mag += std::fabs((double)t);
                    }
                    if (!(std::abs(double(out[o]) - double(ref)) <= tol_for<T>(K, double(mag))) && bad++ < 3)
                      ADD_FAILURE() << VB << "-byte vectors, C " << C << ", L " << L << ", R " << R << ", K " << K
                                    << " in chunks of " << kc << ", sum_into " << sum_into << ", streaming " << nt << ", " << groups
                                    << " groups a team: out (" << c << ", "
                                    << l << ", " << r << ") = " << out[o] << ", expected " << double(ref);
                  }
            }
        }
}

TEST(ContractBlockCellVectors, EveryPathBothWidths) {
  std::mt19937_64 g(2121);
  int runs = 0;
  check_cell_vectors<float, 3, 3, 32>(g, runs);
  check_cell_vectors<double, 3, 3, 32>(g, runs);
  check_cell_vectors<float, 4, 4, 64>(g, runs);
  check_cell_vectors<double, 4, 4, 64>(g, runs);
  EXPECT_EQ(runs, 4 * 4 * 2 * 2 * 2 * 2 * 2 * 3 * 2);
  // host_cell_groups: packed chunks within 4 MiB, at most 8 groups, at least 4 teams a thread.
  using grain::impl::host_cell_groups;
  EXPECT_EQ(host_cell_groups(524288, 16, 16 * 8 * 16 * 4, 2), 8);   // FieldFieldScalar Q1 float: 8 KiB a group
  EXPECT_EQ(host_cell_groups(524288, 16, 384 << 10, 2), 8);          // 384 KiB a group
  EXPECT_EQ(host_cell_groups(524288, 16, 640 << 10, 2), 6);          // 640 KiB a group
  EXPECT_EQ(host_cell_groups(524288, 16, 512 << 10, 2), 8);          // Q3 float: 512 KiB a group
  EXPECT_EQ(host_cell_groups(524288, 16, 2049 << 10, 2), 1);
  EXPECT_EQ(host_cell_groups(910, 16, 512 << 10, 2), 7);             // FieldFieldTensor Q3 float: 57 groups
  EXPECT_EQ(host_cell_groups(16 * 16 * 4, 16, 1024, 2), 8);          // 64 groups, 2 threads: 4 teams each
  EXPECT_EQ(host_cell_groups(16 * 16 * 4 - 1, 16, 1024, 2), 7);
  EXPECT_EQ(host_cell_groups(16, 16, 1024, 2), 1);
}

// ContractBlockHostCellVecKernel's prefetches of the next team's packing (Ahead): from a team's
// last chunk they walk exactly the next team's whole groups' lines of both operands (L + R rows x
// its first chunk's indices x groups), every one inside its operand and each once; none from an
// earlier chunk, from the last team, or where that packing exceeds kHostCellAheadBytes.
TEST(ContractBlockCellVectors, AheadWalksTheNextPacking) {
  using Kern = grain::impl::ContractBlockHostCellVecKernel<float, 4, 4, 64>;
  using grain::index_type;
  constexpr index_type W = Kern::W;
  const index_type C = 7 * W + 5, L = 5, R = 9, K = 40;
  std::vector<float> a(std::size_t(C * L * K)), b(std::size_t(C * R * K));
  const grain::impl::ContractProblem<float> p = left_cells_problem(C, L, R, K, a.data(), b.data());
  for (index_type kc : {K, index_type(16)})
    for (index_type g : {1, 2, 3}) {
      const Kern k{p, kc, g, false};
      const index_type last_k0 = (K - 1) / kc * kc, last_kn = K - last_k0, first_kn = kc < K ? kc : K;
      for (index_type c0 = 0; c0 + g * W <= C; c0 += g * W) {
        const index_type nc = c0 + g * W;
        const index_type ng = (C - nc) / W < g ? (C - nc) / W : g;
        const index_type lines = ng * (L + R) * first_kn;
        Kern::Ahead ah = k.ahead_of(c0, g, last_k0, last_kn, 7);
        if (ng == 0) {
          EXPECT_EQ(ah.op, 2) << "no next team from cells " << c0;
          continue;
        }
        ASSERT_EQ(ah.op, 0) << "kc " << kc << ", g " << g << ", c0 " << c0;
        ASSERT_EQ(ah.share, int((lines + 6) / 7));
        // Walk it one line at a time, as step() does, and check each address.
        std::set<const float*> seen;
        ah.share = 1;
        for (index_type n = 0; n < lines; ++n) {
          const float* q = ah.base[ah.op] + ah.row * ah.rs[ah.op] + ah.k * ah.ks[ah.op] + ah.q * W;
          const bool in_a = ah.op == 0 && q >= a.data() && q + W <= a.data() + a.size();
          const bool in_b = ah.op == 1 && q >= b.data() && q + W <= b.data() + b.size();
          ASSERT_TRUE(in_a || in_b) << "line " << n << " outside its operand";
          const index_type cell = (ah.op == 0 ? q - a.data() : q - b.data()) % C;
          ASSERT_GE(cell, nc);
          ASSERT_LT(cell + W, nc + ng * W + 1);
          EXPECT_TRUE(seen.insert(q).second) << "line " << n << " twice";
          ah.step();
        }
        EXPECT_EQ(ah.op, 2) << "more lines than the packing's " << lines;
        if (last_k0 > 0) {
          EXPECT_EQ(k.ahead_of(c0, g, 0, kc, 7).op, 2) << "prefetches from an earlier chunk";
        }
      }
    }
  // A packing over kHostCellAheadBytes: none.
  std::vector<float> big_a(std::size_t(64 * W * 8 * 600)), big_b(big_a.size());
  const Kern big{left_cells_problem(64 * W, 8, 8, 600, big_a.data(), big_b.data()), 600, 8, false};  // 8 groups x 16 rows x 600 indices x 64 bytes: 4.7 MiB
  EXPECT_EQ(big.ahead_of(0, 8, 0, 600, 8).op, 2);
}

// host_stream_run: every destination offset within a 64-byte line and run lengths 0 to 3 lines
// and a part copy exactly the run (sentinels on both sides untouched); host_stream_outputs' rule.
template <class T>
void check_stream_run() {
  constexpr int W = 64 / int(sizeof(T));
  alignas(64) T dst[6 * W];
  T src[4 * W];
  for (int i = 0; i < 4 * W; ++i) src[i] = T(i + 1) * T(0.5);
  for (int off = 0; off < W; ++off)
    for (int n = 0; n <= 3 * W + 3; ++n) {
      for (T& v : dst) v = T(-7);
      grain::impl::host_stream_run(dst + W + off, src, n);
      grain::impl::host_stream_fence();
      for (int i = 0; i < 6 * W; ++i) {
        const int j = i - W - off;
        const T want = j >= 0 && j < n ? src[j] : T(-7);
        if (dst[i] != want) {
          ADD_FAILURE() << sizeof(T) << "-byte elements, offset " << off << ", n " << n << ": element " << j
                        << " is " << dst[i] << ", expected " << want;
          return;
        }
      }
    }
}

TEST(ContractBlockCellVectors, StreamRun) {
  check_stream_run<float>();
  check_stream_run<double>();
  using grain::impl::host_stream_outputs;
#ifdef GRAIN_HOST_STREAM_STORES
  const bool avx512 = true;
#else
  const bool avx512 = false;
#endif
  EXPECT_EQ(host_stream_outputs(8, 8, 8, 128 << 20, false), avx512);     // FieldFieldScalar Q1
  EXPECT_EQ(host_stream_outputs(64, 64, 64, 32 << 20, false), avx512);   // Q3 at the least size
  EXPECT_FALSE(host_stream_outputs(64, 64, 64, (32 << 20) - 1, false));  // smaller
  EXPECT_FALSE(host_stream_outputs(8, 8, 8, 128 << 20, true));           // sum_into reads them
  EXPECT_FALSE(host_stream_outputs(8, 8, 24, 128 << 20, false));         // FieldFieldVector Q1
  EXPECT_FALSE(host_stream_outputs(125, 125, 216, 128 << 20, false));    // FieldFieldScalar Q4
}

// block's CPU dot kernel (ContractBlockHostDotKernel<T, 8, 4>), called directly: L = 8 and 16,
// R = 4 and 8, K = 8 W and 9 W (the suite's FieldFieldTensor Q1 in float), the next cell
// prefetched or not, outputs row-major (whole rows of TR stored at once) or with the fields
// strided (one store at a time), overwrite (NaN-poisoned out) and sum_into (HostCellsCase).
// host_dot_cells' rule is checked on the suite's shapes.
template <class T>
void check_block_dot(std::mt19937_64& g) {
  constexpr grain::index_type W = grain::impl::kHostVectorBytes / grain::index_type(sizeof(T));
  int runs = 0;
  for (grain::index_type L : {8, 16})
    for (grain::index_type R : {4, 8})
      for (grain::index_type K : {8 * W, 9 * W})
        for (bool fields_strided : {false, true}) {
          HostCellsCase<T> cells(g, 5, L, R, K, fields_strided ? 1 : R, fields_strided ? L : 1);
          for (bool prefetch : {false, true})
            for (bool sum_into : {false, true}) {
              const grain::impl::ContractBlockHostDotKernel<T, 8, 4> kernel{cells.p, prefetch};
              cells.run(kernel, sum_into, std::string(fields_strided ? "fields strided" : "rows whole") +
                                              (prefetch ? ", prefetch" : ", no prefetch"));
              ++runs;
            }
        }
  EXPECT_EQ(runs, 64);
}

TEST(ContractBlockDot, EveryPath) {
  std::mt19937_64 g(1818);
  check_block_dot<float>(g);
  check_block_dot<double>(g);  // the template's double instance (not used by the rule)
  // The rule: FieldFieldTensor Q1 float (8 x 8 fields, K = 72) only among the suite's cells.
  auto rule = [](auto zero, grain::index_type L, grain::index_type R, grain::index_type K) {
    using T = decltype(zero);
    grain::impl::ContractProblem<T> p;
    p.kernel = grain::ContractKernel::FieldFieldScalar;
    p.C = 3, p.L = L, p.R = R;
    p.x[2] = K, p.ax[2] = p.bx[2] = 1;
    p.a_c = L * K, p.a_l = K, p.b_c = R * K, p.b_r = K, p.o_c = L * R, p.o_l = R, p.o_r = 1;
    p.canonicalize();
    return grain::impl::host_dot_cells(sizeof(T), p.a_k_unit() && p.b_k_unit(), p.L, p.R, p.K);
  };
#ifdef __AVX512VL__
  const bool wide = grain::impl::kHostVectorBytes == 32;  // W = 8 floats: K = 72 is a multiple
#else
  const bool wide = false;  // the rule needs AVX-512's 32 vector registers
#endif
  EXPECT_EQ(rule(0.0f, 8, 8, 72), wide);
  EXPECT_FALSE(rule(0.0, 8, 8, 72));
  EXPECT_FALSE(rule(0.0f, 8, 8, 24));
  EXPECT_FALSE(rule(0.0f, 8, 8, 8));
  EXPECT_FALSE(rule(0.0f, 64, 64, 576));
  EXPECT_FALSE(rule(0.0f, 27, 27, 243));
}
#endif

// block's CPU cell kernel on 512-bit registers (ContractBlockHostCellZmmKernel<T, K>), called
// directly: K = 8, 16, 24 and 72 (float takes 4-36 words of two elements, double 8-72 of one;
// float's 12 and 36 words end with a part transposition; double's 72-element cells, over 8 KB,
// prefetch the next one a share a block where `ahead` is 0), L = 1, 8 and 13 (blocks of
// 2 rows and a remainder, whose float row pairs with zeros), R = 8 (whole rows), 5 and 1
// (zero rows in the transposition, stores one by one), outputs row-major or with the fields
// strided, whole cells 2 ahead or none, overwrite (NaN-poisoned out) and sum_into
// (HostCellsCase). host_zmm_cells' rule is checked on the suite's shapes.
#ifdef GRAIN_HOST_ZMM_CELLS
template <class T, int K>
void check_block_zmm_k(std::mt19937_64& g, int& runs) {
  using Kernel = grain::impl::ContractBlockHostCellZmmKernel<T, K>;
  for (grain::index_type L : {1, 8, 13})
    for (grain::index_type R : {8, 5, 1})
      for (bool fields_strided : {false, true}) {
        HostCellsCase<T> cells(g, 5, L, R, K, fields_strided ? 1 : R, fields_strided ? L : 1);
        for (grain::index_type ahead : {0, 2})
          for (bool sum_into : {false, true}) {
            grain::impl::ContractProblem<T> q = cells.p;
            q.sum_into = sum_into;  // make() reads it: whole rows only when overwritten
            const Kernel kernel = Kernel::make(q, ahead);
            EXPECT_EQ(kernel.whole, R == 8 && (!fields_strided || L == 1) && !sum_into);
            cells.run(kernel, sum_into, "zmm cells K " + std::to_string(K) + (fields_strided ? ", fields strided" : ", rows whole") +
                                            ", " + std::to_string(ahead) + " cells ahead");
            ++runs;
          }
      }
}
#endif

TEST(ContractBlockZmm, EveryPath) {
#ifdef GRAIN_HOST_ZMM_CELLS
  std::mt19937_64 g(3636);
  int runs = 0;
  check_block_zmm_k<float, 8>(g, runs);
  check_block_zmm_k<float, 16>(g, runs);
  check_block_zmm_k<float, 24>(g, runs);
  check_block_zmm_k<float, 72>(g, runs);
  check_block_zmm_k<double, 8>(g, runs);
  check_block_zmm_k<double, 16>(g, runs);
  check_block_zmm_k<double, 24>(g, runs);
  check_block_zmm_k<double, 72>(g, runs);
  EXPECT_EQ(runs, 8 * 3 * 3 * 2 * 2 * 2);
  // The rule: FieldField Q1 (8 x 8 fields, K = 8, 24 and 72), not more than 8 right fields, nor
  // other K, nor K strided.
  using grain::impl::host_zmm_cells;
  const bool whole_fma = !grain::impl::host_avx512_halves();
  EXPECT_EQ(host_zmm_cells(true, 8, 8), whole_fma);
  EXPECT_EQ(host_zmm_cells(true, 8, 24), whole_fma);
  EXPECT_EQ(host_zmm_cells(true, 8, 72), whole_fma);
  EXPECT_EQ(host_zmm_cells(true, 3, 16), whole_fma);
  EXPECT_FALSE(host_zmm_cells(true, 8, 12));
  EXPECT_FALSE(host_zmm_cells(true, 8, 216));
  EXPECT_FALSE(host_zmm_cells(true, 27, 24));
  EXPECT_FALSE(host_zmm_cells(false, 8, 8));
#else
  GTEST_SKIP() << "ContractBlockHostCellZmmKernel is compiled only with AVX-512 and GCC's vector extensions";
#endif
}

// A LayoutLeft DataField (R > 1) or DataData (R = 1) problem over exactly sized host arrays, for
// running GPU kernels directly on the host: left (c, k0, k1) at c + cs k0 + cs (K0 + 1) k1 (padded
// between levels when K1 = 2), right (c, r, k0, k1) at c + cs r + cs R k0 + cs R K0 k1, out (c, r)
// at c + C r; cs = C, or C + 1 where C is a multiple of 4 (so no row is 16-byte packed). Random
// non-zero data; check() compares the output with a long double loop.
template <class T>
struct LeftFieldsCase {
  grain::index_type C, R, K0, K1, cs, astride1;
  std::vector<T> a, b, init, out;
  grain::impl::ContractProblem<T> p;
  LeftFieldsCase(std::mt19937_64& g, grain::index_type C_, grain::index_type R_, grain::index_type K0_, grain::index_type K1_)
      : C(C_), R(R_), K0(K0_), K1(K1_), cs(C_ % 4 ? C_ : C_ + 1), astride1(cs * (K0_ + 1)) {
    std::uniform_real_distribution<double> u(0.5, 1.5);
    auto rnd = [&] { return T(g() % 2 ? u(g) : -u(g)); };
    a.resize(std::size_t(astride1 * (K1 - 1) + cs * (K0 - 1) + C));
    b.resize(std::size_t(cs * R * K0 * K1 - cs + C));
    init.resize(std::size_t(C * R));
    for (T& v : a) v = rnd();
    for (T& v : b) v = rnd();
    for (T& v : init) v = rnd();
    p.kernel = R == 1 ? grain::ContractKernel::DataDataScalar : grain::ContractKernel::DataFieldScalar;
    p.C = C, p.L = 1, p.R = R;
    p.x[1] = K0, p.ax[1] = cs, p.bx[1] = cs * R;
    p.x[2] = K1, p.ax[2] = astride1, p.bx[2] = cs * R * K0;
    p.a_c = 1, p.a_l = 0, p.b_c = 1, p.b_r = cs, p.o_c = 1, p.o_l = 0, p.o_r = C;
    p.canonicalize();
    p.a = a.data(), p.b = b.data();
  }
  // A fresh output: the initial values (sum_into) or NaN.
  void reset(bool sum_into) {
    out = sum_into ? init : std::vector<T>(init.size(), std::numeric_limits<T>::quiet_NaN());
    p.out = out.data(), p.sum_into = sum_into;
  }
  void check(const std::string& what) const {
    for (grain::index_type c = 0; c < C; ++c)
      for (grain::index_type r = 0; r < R; ++r) {
        const std::size_t o = std::size_t(c + r * C);
        long double ref = p.sum_into ? init[o] : 0, mag = std::fabs(double(ref));
        for (grain::index_type k1 = 0; k1 < K1; ++k1)
          for (grain::index_type k0 = 0; k0 < K0; ++k0) {
            const long double t = (long double)a[std::size_t(c + cs * k0 + astride1 * k1)] *
                                  b[std::size_t(c + cs * r + cs * R * k0 + cs * R * K0 * k1)];
            ref += t, mag += std::fabs((double)t);
          }
        EXPECT_LE(std::abs(double(out[o]) - double(ref)), tol_for<T>(K0 * K1, double(mag)))
            << what << ": C " << C << ", R " << R << ", K0 " << K0 << ", K1 " << K1 << ", sum_into " << p.sum_into
            << ", cell " << c << ", field " << r;
      }
  }
};

// flat's CPU kernel for LayoutLeft Data kernels (ContractFlatCellStreamKernel), called directly:
// C = 5 to 67 (whole register blocks of 16 cells and remainders) and 300, 700 (DataField's field
// rows prefetched ahead and into the next row's: kFlatStreamPrefetchBytes), DataData (R = 1) and DataField
// (R = 3, 20), K0 = 3, 8, 13 (a part step, exactly one, a whole and a part) at one and two levels
// (the left operand padded between them), items of every cell and output row, of 16 and 32 cells
// with one and two rows (several cell blocks, a short last one), and the plan's own;
// overwrite (NaN-poisoned out) and sum_into. flat_stream_plan's rules are checked on the
// suite's shapes and on a range of cell counts.
template <class T>
void check_flat_stream(std::mt19937_64& g, int& runs) {
  using Kern = grain::impl::ContractFlatCellStreamKernel<T>;
  using grain::index_type;
  for (index_type C : {5, 16, 38, 55, 67, 300, 700})
    for (index_type R : {1, 3, 20})
      for (index_type K0 : {3, 8, 13})
        for (index_type K1 : {1, 2}) {
          LeftFieldsCase<T> t(g, C, R, K0, K1);
          ASSERT_EQ(t.p.K1, K1);
          const grain::impl::FlatStreamPlan planned = grain::impl::flat_stream_plan(C, R, index_type(sizeof(T)), 2);
          struct Items {
            index_type cells, rows;
          };
          for (const Items it : {Items{C, R}, Items{16, 1}, Items{32, 2}, Items{planned.cells, planned.rows}})
            for (bool sum_into : {false, true}) {
              t.reset(sum_into);
              const index_type blocks = (C + it.cells - 1) / it.cells, groups = (R + it.rows - 1) / it.rows;
              const Kern kernel{t.p, it.cells, it.rows, blocks};
              for (index_type o = 0; o < blocks * groups; ++o) kernel(o);
              ++runs;
              t.check("cell streams of " + std::to_string(it.cells) + " cells x " + std::to_string(it.rows) + " rows");
            }
        }
}

TEST(ContractFlatCellStream, EveryPath) {
  std::mt19937_64 g(2222);
  int runs = 0;
  check_flat_stream<float>(g, runs);
  check_flat_stream<double>(g, runs);
  EXPECT_EQ(runs, 2 * 7 * 3 * 3 * 2 * 4 * 2);
  using grain::index_type;
  using grain::impl::flat_stream_plan;
  // DataFieldScalar Q1 float at 128 MiB (C = 524288): 4 KB blocks, all 8 rows an item.
  auto q1 = flat_stream_plan(524288, 8, 4, 2);
  EXPECT_EQ(q1.cells, 1024);
  EXPECT_EQ(q1.blocks, 512);
  EXPECT_EQ(q1.rows, 8);
  // DataFieldScalar Q4 float (C = 1242): all cells in one block; 52 rows keep an item's outputs
  // within 256 KB, so 125 rows in 4 items of 32 (3 would leave one thread 2 of them).
  auto q4 = flat_stream_plan(1242, 125, 4, 2);
  EXPECT_EQ(q4.cells, 1242);
  EXPECT_EQ(q4.blocks, 1);
  EXPECT_EQ(q4.rows, 32);
  EXPECT_EQ(q4.items, 4);
  // DataFieldTensor Q4 float (C = 138): one item a thread, of 63 and 62 rows; on 8 threads 8
  // items of 16.
  auto t4 = flat_stream_plan(138, 125, 4, 2);
  EXPECT_EQ(t4.rows, 63);
  EXPECT_EQ(t4.items, 2);
  t4 = flat_stream_plan(138, 125, 4, 8);
  EXPECT_EQ(t4.rows, 16);
  EXPECT_EQ(t4.items, 8);
  // Every plan covers the cells and rows exactly once, keeps an item's outputs within the budget
  // where a row allows, and gives every thread work where there is enough of it.
  for (index_type threads : {1, 2, 3, 8})
    for (index_type C = 1; C < 40000; C = C * 3 / 2 + 1)
      for (index_type outs : {1, 3, 27, 125})
        for (index_type elem : {4, 8}) {
          const auto pl = flat_stream_plan(C, outs, elem, threads);
          ASSERT_GE(pl.cells * pl.blocks, C);
          ASSERT_LT((pl.blocks - 1) * pl.cells, C);
          ASSERT_GE(pl.rows, 1);
          ASSERT_EQ(pl.items, pl.blocks * ((outs + pl.rows - 1) / pl.rows));
          if (pl.rows > 1) {
            ASSERT_LE(pl.cells * pl.rows * elem, grain::impl::kFlatStreamOutBytes);
          }
          if (C >= 16 * threads) {
            ASSERT_GE(pl.items, threads) << C << " " << outs << " " << elem;
          }
        }
}

// flat's shifted packs (ContractFlatCellShiftKernel) and field pairs (ContractFlatPairKernel),
// GPU kernels, run here directly on the host so every index path is checked (and, in the
// sanitizer build, every read stays inside the arrays, which are allocated exactly): C = 5 to 67
// with C mod 4 = 0-3 (0 with padded strides), DataData (R = 1: pairs of one field) and DataField
// (R = 3: a pair and a single), one level of K (K0 = 3, 4, 13: the remainder loop and the 4-step
// loop) and two (the left operand padded between levels), overwrite (NaN-poisoned out) and
// sum_into; against a long double loop on random non-zero data. flat_field_pairs' window on the
// H100's numbers (132 SMs x 2048 threads) is checked too.
TEST(ContractFlatCellShift, EveryPath) {
  const grain::index_type h100 = 132 * 2048;  // one wave of the 8-partial-sum threads: 168960
  EXPECT_FALSE(grain::impl::flat_field_pairs(168960, 125, h100));
  EXPECT_TRUE(grain::impl::flat_field_pairs(207125, 125, h100));  // DataFieldVector Q4 float
  EXPECT_TRUE(grain::impl::flat_field_pairs(337920, 125, h100));
  EXPECT_FALSE(grain::impl::flat_field_pairs(621375, 125, h100));  // DataFieldScalar Q4 float
  EXPECT_FALSE(grain::impl::flat_field_pairs(69000, 125, h100));   // DataFieldTensor Q4 float
  EXPECT_FALSE(grain::impl::flat_field_pairs(207125, 1, h100));    // one field: nothing to pair
  std::mt19937_64 g(2626);
  int runs = 0;
  for (grain::index_type C : {5, 9, 11, 38, 39, 64, 67})
    for (grain::index_type R : {1, 3})
      for (grain::index_type K0 : {3, 4, 13})
        for (grain::index_type K1 : {1, 2}) {
          LeftFieldsCase<float> t(g, C, R, K0, K1);
          ASSERT_EQ(t.p.K1, K1);
          ASSERT_FALSE(t.p.cells_packed(4));
          for (bool pairs : {false, true})
            for (bool sum_into : {false, true}) {
              t.reset(sum_into);
              if (pairs) {
                using PK = grain::impl::ContractFlatPairKernel<float, 4>;
                const PK kernel{t.p};
                for (grain::index_type o = 0; o < (C + PK::G - 1) / PK::G * PK::G * ((R + 1) / 2); ++o) kernel(o);
              } else {
                using SK = grain::impl::ContractFlatCellShiftKernel<float, 4>;
                const grain::index_type groups = ((C + 3) / 4 + SK::G - 1) / SK::G;
                const SK kernel{t.p};
                for (grain::index_type o = 0; o < groups * SK::G * R; ++o) kernel(o);
              }
              ++runs;
              t.check(pairs ? "pairs" : "shifted packs");
            }
        }
  EXPECT_EQ(runs, 7 * 2 * 3 * 2 * 2 * 2);
}

// team-small-k's LayoutLeft K slices with F fields a team (ContractTeamSmallKCellsKernel<T, A, F>,
// the GPU's form for double DataField with long K: A = 2, F = 2, 4 slices), run here as host teams
// with the GPU's slice counts: F = 2 and 4 (R = 2, 3, 5, 9: whole groups and a last group short of
// F), 1, 3 and 4 slices (K0 = 5, 13, 1031: slices shorter than A, empty slices, the A-step loop),
// one and two levels of K, C = 5 and 39 (a partial 32-cell group), overwrite and sum_into, against
// a long double loop.
template <class T, int A, int F, int W = 1>
void check_small_k_fields(std::mt19937_64& g, int& runs) {
  using K = grain::impl::ContractTeamSmallKCellsKernel<T, A, F, W>;
  for (grain::index_type C : {5, 39})
    for (grain::index_type R : {2, 3, 5, 9})
      for (grain::index_type K0 : {5, 13, 1031})
        for (grain::index_type K1 : {1, 2}) {
          if (K0 > 13 && (K1 > 1 || R > 3)) continue;  // the long rows once per C
          LeftFieldsCase<T> t(g, C, R, K0, K1);
          for (int slices : {1, 3, 4})
            for (bool sum_into : {false, true}) {
              t.reset(sum_into);
              auto policy = grain::impl::contract_team_policy<grain::Serial>(K::league(t.p), 32 * slices * K::thread_groups);
              policy.set_scratch_size(0, grain::PerTeam(std::size_t(32 * slices * K::fields) * sizeof(T)));
              grain::parallel_for(policy, K{t.p, slices});
              ++runs;
              t.check("team-small-k A " + std::to_string(A) + ", F " + std::to_string(F) + ", slices " + std::to_string(slices));
            }
        }
}

TEST(ContractTeamSmallKFields, EveryPath) {
  std::mt19937_64 g(3131);
  int runs = 0;
  check_small_k_fields<double, 2, 2>(g, runs);
  check_small_k_fields<float, 2, 4>(g, runs);
  check_small_k_fields<float, 4, 1, 2>(g, runs);
  check_small_k_fields<double, 2, 2, 2>(g, runs);
  EXPECT_EQ(runs, 4 * (2 * (4 * 2 * 2 + 2 * 1)) * 3 * 2);
}

TEST(ContractDot, StridedPartialSums) {
  std::mt19937_64 g(4242);
  check_dot_strided<1, double>(g);
  check_dot_strided<2, double>(g);
  check_dot_strided<4, float>(g);
  check_dot_strided<8, float>(g);
  check_dot_strided<8, double>(g);
}

#if GRAIN_CUDA_LAUNCH_AVAILABLE
using grain::impl::testing::MmaConfig;
using grain::impl::testing::mma_config_name;

// Forces mma's configuration while in scope; back to the rule even if a call throws.
struct ForceMma {
  explicit ForceMma(MmaConfig c) { grain::impl::testing::force_mma_config(c); }
  ~ForceMma() { grain::impl::testing::force_mma_config(MmaConfig::Auto); }
  ForceMma(const ForceMma&) = delete;
  ForceMma& operator=(const ForceMma&) = delete;
};

// mma in float (3xTF32) at a Q4-sized cell (L = R = 125, K = 216: 4 x 4 output tiles, the last
// ones partial; 19 cells: a partial cell group), on inputs spanning 2^-12 to 2^12, against a
// double loop, within the suite's fp32 bound. The test also computes what one plain TF32 pass
// (inputs rounded to 10 mantissa bits) would give and requires that to break the bound, so it
// fails if the big/small split is lost. C = 19 runs the copied kernel (Copied, and CopiedSm80:
// the configuration below compute capability 9.0), C = 20 (a multiple of 4: packed operands) the
// persistent packed one; both also the warpgroup kernel (WgmmaLoads: 4- and 16-byte loads; Wgmma
// at C = 20: its TMA copies, 3 stages in flight; WgmmaSplit: split K; WgmmaLead2 at C = 20: TMA
// with 2 stages in flight) and whatever the rule picks on this device (Auto).
// Layout = LayoutRight runs the warpgroup kernel's row copies (the Wgmma configurations, and the
// rule on 9.0), the copied kernel over K-contiguous rows (Copied) and the rows kernel's 3xTF32
// tiles (Rows).
template <class Layout = grain::LayoutLeft>
void mma_float_accuracy(std::size_t C, MmaConfig config) {
  constexpr std::size_t F = 125, K = 216;
  using HV = grain::View<float***, Layout, grain::HostSpace>;
  using DV = grain::View<float***, Layout, grain::CudaSpace>;
  HV hl("left", C, F, K), hr("right", C, F, K), ho("out", C, F, F);
  std::mt19937_64 g(77);
  std::uniform_real_distribution<float> u(0.5f, 1.0f);
  std::uniform_int_distribution<int> ex(-12, 12), sign(0, 1);
  auto draw = [&] { return (sign(g) ? -1.0f : 1.0f) * std::ldexp(u(g), ex(g)); };
  for (std::size_t i = 0; i < hl.size(); ++i) hl.data()[i] = draw();
  for (std::size_t i = 0; i < hr.size(); ++i) hr.data()[i] = draw();
  DV dl("left_d", C, F, K), dr("right_d", C, F, K), dout("out_d", C, F, F);
  grain::deep_copy(dl, hl);
  grain::deep_copy(dr, hr);
  grain::ContractOptions opt;
  opt.algorithm = ContractAlgorithm::Mma;
  {
    ForceMma force(config);
    grain::contract_field_field_scalar(dout, dl, dr, opt);
  }
  grain::deep_copy(ho, dout);
  auto tf32 = [](float x) {  // round to nearest (ties away), 10 explicit mantissa bits
    std::uint32_t b;
    std::memcpy(&b, &x, 4);
    b = (b + 0x1000u) & ~0x1fffu;
    float y;
    std::memcpy(&y, &b, 4);
    return double(y);
  };
  double worst = 0, worst_tf32 = 0;  // in units of the bound
  for (std::size_t c = 0; c < C; ++c)
    for (std::size_t l = 0; l < F; ++l)
      for (std::size_t r = 0; r < F; ++r) {
        double ref = 0, mag = 0, one_pass = 0;
        for (std::size_t k = 0; k < K; ++k) {
          const double p = double(hl(c, l, k)) * double(hr(c, r, k));
          ref += p;
          mag += std::abs(p);
          one_pass += tf32(hl(c, l, k)) * tf32(hr(c, r, k));
        }
        const double err = std::abs(double(ho(c, l, r)) - ref);
        worst = std::max(worst, err / tol_for<float>(K, mag));
        worst_tf32 = std::max(worst_tf32, std::abs(one_pass - ref) / tol_for<float>(K, mag));
        ASSERT_LE(err, tol_for<float>(K, mag))
            << "mma " << mma_config_name(config) << ": out(" << c << "," << l << "," << r << ") = " << ho(c, l, r)
            << ", double reference " << ref;
      }
  std::printf("[ contract ] mma float, %s, C = %zu, %s: worst error %.3g of the fp32 bound (one TF32 pass: %.3g)\n",
              std::is_same_v<Layout, grain::LayoutLeft> ? "LayoutLeft" : "LayoutRight", C, mma_config_name(config),
              worst, worst_tf32);
  EXPECT_GT(worst_tf32, 1.0) << "the inputs no longer tell 3xTF32 from one TF32 pass";
}

TEST(ContractMma, FloatMatchesDoubleReference) {
  if (!grain::test::available<grain::Cuda>()) GTEST_SKIP() << "Cuda: no device here";
  using M = MmaConfig;
  for (M c : {M::Auto, M::CopiedSm80, M::Copied, M::WgmmaLoads, M::Wgmma, M::WgmmaSplit}) mma_float_accuracy(19, c);
  for (M c : {M::Auto, M::PackedPersistent, M::WgmmaLoads, M::Wgmma, M::WgmmaSplit, M::WgmmaLead2})
    mma_float_accuracy(20, c);
  for (M c : {M::Auto, M::Copied, M::Wgmma, M::WgmmaSplit, M::WgmmaLead2, M::Rows})
    mma_float_accuracy<grain::LayoutRight>(19, c);
}

// Every mma configuration (testing::MmaConfig), forced one at a time, on FieldFieldVector in both
// element types: 37 cells (partial groups of 4, 8 and 16; results stored one cell at a time; in
// float also with the left operand one element off its aligned base), 44 cells (a multiple of 4,
// a partial group of 8: results stored 4 cells at a time in float, 2 in double) and, in float, 42
// cells (2 at a time), 70 x 45 fields (partial 32- and 64-row tiles, several tiles each way),
// K = 13 x 3 = 39 (not a multiple of a stage), overwriting a NaN-poisoned output and then
// accumulating into it, against a double loop on the host.
// Layout = LayoutRight: the same over K-contiguous rows; with P = 12 (K = 36, rows 16-byte
// multiples) float's Wgmma configurations take the warpgroup kernel's row copies (TMA boxes of 8
// cells, zeros past C, L, R and K; results stored fields-fastest; WgmmaSplit: two blocks adding
// into the zeroed output; results in 16-byte packs from each row's first 16-byte boundary, with
// R = 45 starting anywhere, with R = 44 aligned), with P = 13 (K = 39) they fall back to Copied.
template <class T, class Layout = grain::LayoutLeft, std::size_t P = 13, std::size_t R = 45>
void mma_every_config(std::size_t C, std::size_t left_offset = 0) {
  constexpr std::size_t L = 70, D = 3;
  using HL = grain::View<T****, Layout, grain::HostSpace>;
  using HO = grain::View<T***, Layout, grain::HostSpace>;
  using DL = grain::View<T****, Layout, grain::CudaSpace>;
  using DO = grain::View<T***, Layout, grain::CudaSpace>;
  HL hl("left", C, L, P, D), hr("right", C, R, P, D);
  HO ho("out", C, L, R);
  grain::test::fill_random(hl, 901);
  grain::test::fill_random(hr, 902);
  // left_offset > 0: the left operand starts that many elements past its allocation's (16-byte
  // aligned) start, so no kernel may assume an aligned base.
  grain::View<T*, Layout, grain::CudaSpace> left_store("left_store", C * L * P * D + left_offset);
  DL dl(left_store.data() + left_offset, C, L, P, D), dr("right_d", C, R, P, D);
  DO dout("out_d", C, L, R);
  grain::deep_copy(dl, hl);
  grain::deep_copy(dr, hr);
  std::vector<double> ref(C * L * R), mag(C * L * R);
  for (std::size_t c = 0; c < C; ++c)
    for (std::size_t l = 0; l < L; ++l)
      for (std::size_t r = 0; r < R; ++r) {
        double sum = 0, m = 0;
        for (std::size_t q = 0; q < P; ++q)
          for (std::size_t d = 0; d < D; ++d) {
            const double x = double(hl(c, l, q, d)) * double(hr(c, r, q, d));
            sum += x;
            m += std::abs(x);
          }
        ref[(c * L + l) * R + r] = sum;
        mag[(c * L + l) * R + r] = m;
      }
  grain::ContractOptions opt;
  opt.algorithm = ContractAlgorithm::Mma;
  for (int n = 0; n < static_cast<int>(MmaConfig::Count); ++n) {
    const MmaConfig config = static_cast<MmaConfig>(n);
    ForceMma force(config);
    grain::deep_copy(dout, std::numeric_limits<T>::quiet_NaN());
    opt.sum_into = false;
    grain::contract_field_field_vector(dout, dl, dr, opt);
    opt.sum_into = true;  // out = 2 * result
    grain::contract_field_field_vector(dout, dl, dr, opt);
    grain::deep_copy(ho, dout);
    std::size_t bad = 0;
    for (std::size_t c = 0; c < C; ++c)
      for (std::size_t l = 0; l < L; ++l)
        for (std::size_t r = 0; r < R; ++r) {
          const std::size_t i = (c * L + l) * R + r;
          const double err = std::abs(double(ho(c, l, r)) - 2 * ref[i]);
          if (!(err <= 2 * tol_for<T>(P * D, mag[i])) && bad++ < 5)
            ADD_FAILURE() << "mma " << mma_config_name(config) << ": out(" << c << "," << l << "," << r
                          << ") = " << ho(c, l, r) << ", expected " << 2 * ref[i];
        }
    EXPECT_EQ(bad, 0u) << "mma " << mma_config_name(config) << " (" << sizeof(T) * 8 << "-bit, "
                       << (std::is_same_v<Layout, grain::LayoutLeft> ? "LayoutLeft" : "LayoutRight") << ", C = " << C
                       << ", K = " << P * D << ", left offset " << left_offset << ")";
  }
  EXPECT_THROW(grain::impl::testing::force_mma_config(MmaConfig::Count), grain::Error);
}

TEST(ContractMma, EveryConfigDouble) {
  if (!grain::test::available<grain::Cuda>()) GTEST_SKIP() << "Cuda: no device here";
  mma_every_config<double>(37);
  mma_every_config<double>(44);
}
TEST(ContractMma, EveryConfigFloat) {
  if (!grain::test::available<grain::Cuda>()) GTEST_SKIP() << "Cuda: no device here";
  mma_every_config<float>(37);
  mma_every_config<float>(37, 1);  // unaligned left base: 4-byte loads
  mma_every_config<float>(42);
  mma_every_config<float>(44);
}
TEST(ContractMma, EveryConfigLayoutRight) {
  if (!grain::test::available<grain::Cuda>()) GTEST_SKIP() << "Cuda: no device here";
  mma_every_config<float, grain::LayoutRight, 12>(37);
  mma_every_config<float, grain::LayoutRight, 12, 44>(37);  // every row 16-byte aligned
  mma_every_config<float, grain::LayoutRight, 12>(37, 1);  // unaligned left base: no tensor map, Copied
  mma_every_config<float, grain::LayoutRight, 13>(44);
  mma_every_config<double, grain::LayoutRight, 12>(37);
  // The rows kernel (Rows, and the double rule on 9.0): K = 39, and an unaligned left base, take
  // 8-byte (float: 4-byte) copies; over 37 cells K splits in two where a tile has 32 stages or
  // more (double K = 600, float K = 1032), blocks adding into the zeroed output (not when
  // accumulating, which the same loop also runs).
  mma_every_config<double, grain::LayoutRight, 13>(37);
  mma_every_config<double, grain::LayoutRight, 12>(37, 1);
  mma_every_config<double, grain::LayoutRight, 200>(37);
  mma_every_config<float, grain::LayoutRight, 344>(37);
}

// LayoutRight cells as Auto and mma run them by default: double at a Q4-sized cell (125 x 125, K =
// 216: 2 x 2 tiles of 64 a cell, the last ones partial) and float 64 x 64 cells with K = 192
// (FieldFieldVector Q3's shape), both on the rows kernel on 9.0 and newer, over 300 cells (more
// tiles than a round of blocks: a block takes several items), written and then accumulated into,
// against a double loop on the host (every seventh cell: all 300 would take the host seconds).
// Layout = LayoutLeft: double cells of 33-64 fields with an even C, which take the persistent
// packed kernel with its results in passes (PackedPersistent) on 9.0 and newer.
template <class T, class Layout = grain::LayoutRight>
void mma_default_cells(std::size_t F, std::size_t K) {
  constexpr std::size_t C = 300;
  using HV = grain::View<T***, Layout, grain::HostSpace>;
  using DV = grain::View<T***, Layout, grain::CudaSpace>;
  HV hl("left", C, F, K), hr("right", C, F, K), ho("out", C, F, F);
  grain::test::fill_random(hl, 4101);
  grain::test::fill_random(hr, 4102);
  DV dl("left_d", C, F, K), dr("right_d", C, F, K), dout("out_d", C, F, F);
  grain::deep_copy(dl, hl);
  grain::deep_copy(dr, hr);
  for (ContractAlgorithm a : {ContractAlgorithm::Auto, ContractAlgorithm::Mma}) {
    grain::ContractOptions opt;
    opt.algorithm = a;
    grain::deep_copy(dout, std::numeric_limits<T>::quiet_NaN());
    grain::contract_field_field_scalar(dout, dl, dr, opt);
    opt.sum_into = true;  // out = 2 * result
    grain::contract_field_field_scalar(dout, dl, dr, opt);
    grain::deep_copy(ho, dout);
    std::size_t bad = 0;
    for (std::size_t c = 0; c < C; c += 7)
      for (std::size_t l = 0; l < F; ++l)
        for (std::size_t r = 0; r < F; ++r) {
          double ref = 0, mag = 0;
          for (std::size_t k = 0; k < K; ++k) {
            const double x = double(hl(c, l, k)) * double(hr(c, r, k));
            ref += x;
            mag += std::abs(x);
          }
          if (!(std::abs(double(ho(c, l, r)) - 2 * ref) <= 2 * tol_for<T>(K, mag)) && bad++ < 5)
            ADD_FAILURE() << grain::contract_algorithm_name(a) << ": out(" << c << "," << l << "," << r
                          << ") = " << ho(c, l, r) << ", expected " << 2 * ref;
        }
    EXPECT_EQ(bad, 0u) << grain::contract_algorithm_name(a) << ", " << sizeof(T) * 8 << "-bit, " << F << " x " << F
                       << ", K = " << K;
  }
}
TEST(ContractMma, LayoutRightDoubleQ4Cells) {
  if (!grain::test::available<grain::Cuda>()) GTEST_SKIP() << "Cuda: no device here";
  mma_default_cells<double>(125, 216);
}
TEST(ContractMma, LayoutRightFloatQ3Cells) {
  if (!grain::test::available<grain::Cuda>()) GTEST_SKIP() << "Cuda: no device here";
  mma_default_cells<float>(64, 192);
}
TEST(ContractMma, LayoutLeftDoubleQ3Cells) {
  if (!grain::test::available<grain::Cuda>()) GTEST_SKIP() << "Cuda: no device here";
  mma_default_cells<double, grain::LayoutLeft>(64, 64);
  mma_default_cells<double, grain::LayoutLeft>(57, 100);  // partial tiles, K not a multiple of 4
}
#endif

}  // namespace
