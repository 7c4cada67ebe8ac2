// grain::contract_problem: the engine's description of a call, for every kernel in both layouts
// with random extents and random non-zero values, checked against what the extents alone say
// (strides derived here from the layout's definition, not read from the Views) and against the
// contraction itself: summing through the description's offsets gives the logical sum.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <set>
#include <string>
#include <utility>

#include "grain/grain.hpp"

namespace {

using grain::ContractKernel;
using grain::index_type;

// Strides of a dense View with these extents: LayoutRight, the last index unit-stride; LayoutLeft,
// the first.
template <class Layout, int Rank>
std::array<index_type, Rank> dense_strides(const std::size_t (&e)[Rank]) {
  std::array<index_type, Rank> s{};
  index_type m = 1;
  if constexpr (std::is_same_v<Layout, grain::LayoutRight>) {
    for (int r = Rank - 1; r >= 0; --r) s[r] = m, m *= index_type(e[r]);
  } else {
    for (int r = 0; r < Rank; ++r) s[r] = m, m *= index_type(e[r]);
  }
  return s;
}

template <int Rank>
index_type offset(const std::array<index_type, Rank>& s, const std::array<index_type, Rank>& i) {
  index_type o = 0;
  for (int r = 0; r < Rank; ++r) o += s[r] * i[r];
  return o;
}

// The logical index of an operand: (c, [field], contracted...); a broadcast point index is 0.
template <int Rank>
std::array<index_type, Rank> operand_index(index_type c, bool has_field, index_type f, const index_type* k,
                                           int nk, bool bcast_point) {
  std::array<index_type, Rank> i{};
  int n = 0;
  i[n++] = c;
  if (has_field) i[n++] = f;
  for (int j = 0; j < nk; ++j) i[n++] = (j == 0 && bcast_point) ? 0 : k[j];
  return i;
}

template <class T, int Rank, class Layout>
using HostView = grain::View<typename grain::impl::DataTypeOf<T, Rank>::type, Layout, grain::HostSpace>;

template <class V>
void fill_nonzero(const V& v, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(0.5, 1.5);
  for (std::size_t i = 0; i < v.size(); ++i) v.data()[i] = (rng() & 1 ? -1 : 1) * u(rng);
}

template <int Family, int NK, class Layout>
void check_random_problem(std::mt19937& rng, bool broadcast) {
  constexpr int lf = Family == 2 ? 1 : 0, rf = Family >= 1 ? 1 : 0;
  constexpr int lrank = 1 + lf + NK, rrank = 1 + rf + NK, orank = 1 + Family;
  constexpr ContractKernel kernel = grain::contract_kernel_of(Family, NK);
  std::uniform_int_distribution<int> ext(1, 6);
  const index_type C = ext(rng), L = lf ? ext(rng) : 1, R = rf ? ext(rng) : 1;
  index_type kx[3] = {1, 1, 1};
  for (int j = 0; j < NK; ++j) kx[j] = ext(rng);
  const bool bcast = Family == 1 && broadcast;  // DataField data constant over the points

  std::size_t le[lrank], re[rrank], oe[orank];
  {
    int n = 0, m = 0;
    le[n++] = C, re[m++] = C;
    if (lf) le[n++] = L;
    if (rf) re[m++] = R;
    for (int j = 0; j < NK; ++j) le[n++] = (j == 0 && bcast) ? 1 : kx[j], re[m++] = kx[j];
    oe[0] = C;
    if (Family == 1) oe[1] = R;
    if (Family == 2) oe[1] = L, oe[2] = R;
  }
  HostView<double, lrank, Layout> left("left", le);
  HostView<double, rrank, Layout> right("right", re);
  HostView<double, orank, Layout> out("out", oe);
  fill_nonzero(left, rng);
  fill_nonzero(right, rng);
  const auto ls = dense_strides<Layout>(le);
  const auto rs = dense_strides<Layout>(re);
  const auto os = dense_strides<Layout>(oe);

  grain::ContractOptions opt;
  opt.sum_into = (rng() & 1) != 0;
  const auto p = grain::contract_problem(kernel, out, left, right, opt);
  SCOPED_TRACE(std::string(grain::contract_kernel_name(kernel)) + " " + grain::impl::layout_name<Layout>() +
               " C=" + std::to_string(C) + " L=" + std::to_string(L) + " R=" + std::to_string(R) +
               " x=" + std::to_string(kx[0]) + "," + std::to_string(kx[1]) + "," + std::to_string(kx[2]) +
               (bcast ? " broadcast" : ""));

  EXPECT_EQ(p.kernel, kernel);
  EXPECT_STREQ(p.function, grain::contract_function_name(kernel));
  EXPECT_EQ(p.sum_into, opt.sum_into);
  EXPECT_EQ(p.C, C);
  EXPECT_EQ(p.L, L);
  EXPECT_EQ(p.R, R);
  EXPECT_EQ(p.K, kx[0] * kx[1] * kx[2]);
  EXPECT_EQ(p.K1 * p.K0, p.K);
  // The contracted indices padded to three at the front; a stride per operand, 0 where the
  // operand's extent is 1 (broadcast).
  for (int j = 0; j < NK; ++j) {
    const int slot = 3 - NK + j;
    EXPECT_EQ(p.x[slot], kx[j]) << "slot " << slot;
    EXPECT_EQ(p.ax[slot], le[1 + lf + j] == 1 ? 0 : ls[1 + lf + j]) << "slot " << slot;
    EXPECT_EQ(p.bx[slot], re[1 + rf + j] == 1 ? 0 : rs[1 + rf + j]) << "slot " << slot;
  }
  for (int slot = 0; slot < 3 - NK; ++slot) EXPECT_EQ(p.x[slot], 1) << "slot " << slot;
  EXPECT_EQ(p.a_c, ls[0]);
  EXPECT_EQ(p.b_c, rs[0]);
  EXPECT_EQ(p.a_l, lf ? ls[1] : 0);
  EXPECT_EQ(p.b_r, rf ? rs[1] : 0);
  EXPECT_EQ(p.o_c, os[0]);
  EXPECT_EQ(p.o_l, Family == 2 ? os[1] : 0);
  EXPECT_EQ(p.o_r, Family == 2 ? os[2] : Family == 1 ? os[1] : 0);
  EXPECT_EQ(p.a, left.data());
  EXPECT_EQ(p.b, right.data());
  EXPECT_EQ(p.out, out.data());

  // The canonical K visits each logical contracted index once, with the same element in both
  // operands: the pairs of offsets (a_k, b_k) are those of the logical indices.
  std::set<std::pair<index_type, index_type>> logical, canonical;
  index_type k[3];
  for (k[0] = 0; k[0] < kx[0]; ++k[0])
    for (k[1] = 0; k[1] < kx[1]; ++k[1])
      for (k[2] = 0; k[2] < kx[2]; ++k[2])
        logical.insert({offset<lrank>(ls, operand_index<lrank>(0, lf, 0, k, NK, bcast)),
                        offset<rrank>(rs, operand_index<rrank>(0, rf, 0, k, NK, false))});
  for (index_type i = 0; i < p.K; ++i) canonical.insert({p.a_k(i), p.b_k(i)});
  // (A broadcast data element pairs with several right elements: the pairs stay distinct.)
  EXPECT_EQ(canonical.size(), std::size_t(p.K));
  EXPECT_EQ(canonical, logical);

  // Summing through the description gives the contraction of the logical values.
  for (index_type c = 0; c < C; ++c)
    for (index_type l = 0; l < L; ++l)
      for (index_type r = 0; r < R; ++r) {
        double via = 0, direct = 0;
        for (index_type i = 0; i < p.K; ++i)
          via += p.a[c * p.a_c + l * p.a_l + p.a_k(i)] * p.b[c * p.b_c + r * p.b_r + p.b_k(i)];
        for (k[0] = 0; k[0] < kx[0]; ++k[0])
          for (k[1] = 0; k[1] < kx[1]; ++k[1])
            for (k[2] = 0; k[2] < kx[2]; ++k[2])
              direct += left.data()[offset<lrank>(ls, operand_index<lrank>(c, lf, l, k, NK, bcast))] *
                        right.data()[offset<rrank>(rs, operand_index<rrank>(c, rf, r, k, NK, false))];
        EXPECT_NEAR(via, direct, 1e-12 * (1 + std::abs(direct)));
        // out (c), (c, r) or (c, l, r).
        const std::array<index_type, orank> oi = operand_index<orank>(c, Family == 2, l, &r, Family >= 1 ? 1 : 0, false);
        EXPECT_EQ(p.out_at(c, l, r), out.data() + offset<orank>(os, oi));
      }
}

template <int Family, int NK>
void check_kernel(std::mt19937& rng) {
  for (int draw = 0; draw < 4; ++draw) {
    check_random_problem<Family, NK, grain::LayoutRight>(rng, draw % 2 == 1);
    check_random_problem<Family, NK, grain::LayoutLeft>(rng, draw % 2 == 1);
  }
}

}  // namespace

TEST(ContractProblem, DescribesEveryKernelInBothLayouts) {
  std::mt19937 rng(45);
  check_kernel<0, 1>(rng);
  check_kernel<0, 2>(rng);
  check_kernel<0, 3>(rng);
  check_kernel<1, 1>(rng);
  check_kernel<1, 2>(rng);
  check_kernel<1, 3>(rng);
  check_kernel<2, 1>(rng);
  check_kernel<2, 2>(rng);
  check_kernel<2, 3>(rng);
}

// The description raises what the call raises, and says so when the kernel does not match the
// Views' ranks.
TEST(ContractProblem, RaisesTheCallsErrors) {
  grain::View<double***> out("out", 4, 3, 5), left("left", 4, 3, 7), right("right", 4, 5, 6);
  std::string from_call, from_problem;
  try {
    grain::contract_field_field_scalar(out, left, right);
  } catch (const grain::Error& e) {
    from_call = e.what();
  }
  try {
    grain::contract_problem(ContractKernel::FieldFieldScalar, out, left, right);
  } catch (const grain::Error& e) {
    from_problem = e.what();
  }
  EXPECT_FALSE(from_call.empty());
  EXPECT_EQ(from_problem, from_call);

  grain::View<double***> alias("alias", 4, 3, 3);
  EXPECT_THROW(grain::contract_problem(ContractKernel::FieldFieldScalar, alias, alias, alias), grain::Error);

  // DataFieldScalar's ranks (2, 2, 3) are not FieldFieldScalar's.
  grain::View<double**> df_out("out", 4, 5), data("data", 4, 7);
  grain::View<double***> fields("fields", 4, 5, 7);
  try {
    grain::contract_problem(ContractKernel::FieldFieldScalar, df_out, data, fields);
    ADD_FAILURE() << "no error for a kernel that does not match the ranks";
  } catch (const grain::Error& e) {
    EXPECT_NE(std::string(e.what()).find("grain::contract_problem"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("DataFieldScalar"), std::string::npos) << e.what();
  }
  EXPECT_EQ(grain::contract_problem(ContractKernel::DataFieldScalar, df_out, data, fields).kernel,
            ContractKernel::DataFieldScalar);
}
