// The contractions' error paths and empty extents: wrong extents (each argument, each family),
// a DataField data array with a wrong point extent, an output aliasing an input, algorithms
// that do not apply, a back end that does not match the Views, C = 0, L = 0 and P = 0.
#include "contract_test_util.hpp"

namespace {

using grain::ContractAlgorithm;

// Runs f, expects grain::Error whose message contains every one of `parts`.
template <class F>
void expect_error(F&& f, std::initializer_list<const char*> parts) {
  try {
    f();
    ADD_FAILURE() << "no grain::Error thrown (expected one mentioning '" << *parts.begin() << "')";
  } catch (const grain::Error& e) {
    const std::string msg = e.what();
    for (const char* p : parts)
      EXPECT_NE(msg.find(p), std::string::npos) << "message '" << msg << "' lacks '" << p << "'";
  }
}

template <class Exec>
void check_shape_errors() {
  using Space = typename Exec::memory_space;
  using V1 = grain::View<double*, Space>;
  using V2 = grain::View<double**, Space>;
  using V3 = grain::View<double***, Space>;
  using V4 = grain::View<double****, Space>;
  grain::ContractOptions opt;
  opt.exec = contract_test::exec_of<Exec>();

  // DataData: right's P differs, out's C differs.
  V2 a("a", 7, 3), b_bad("b", 7, 4), b("b", 7, 3);
  V1 o("o", 7), o_bad("o", 6);
  expect_error([&] { grain::contract_data_data_scalar(o, a, b_bad, opt); },
               {"grain::contract_data_data_scalar", "'right'", "(7,4)", "(7,3)"});
  expect_error([&] { grain::contract_data_data_scalar(o_bad, a, b, opt); },
               {"grain::contract_data_data_scalar", "'out'", "(6)", "(7)"});
  grain::contract_data_data_scalar(o, a, b, opt);  // the good call works

  // DataField: data with 2 points where fields have 5 (neither 5 nor 1), out with wrong F.
  V3 data("data", 4, 2, 3);
  V2 of("of", 4, 6), of_bad("of", 4, 5);
  V3 data_ok("data", 4, 5, 3);
  grain::View<double****, Space> fv("fv", 4, 6, 5, 3);
  expect_error([&] { grain::contract_data_field_vector(of, data, fv, opt); },
               {"grain::contract_data_field_vector", "'data'", "(4,2,3)", "(4,5,3)", "(4,1,3)"});
  expect_error([&] { grain::contract_data_field_vector(of_bad, data_ok, fv, opt); },
               {"grain::contract_data_field_vector", "'out'", "(4,5)", "(4,6)"});

  // FieldField: right's D differs; out's R differs.
  V4 l("l", 3, 5, 7, 2), r("r", 3, 4, 7, 2), r_bad("r", 3, 4, 7, 3);
  V3 off("off", 3, 5, 4), off_bad("off", 3, 4, 5);
  expect_error([&] { grain::contract_field_field_vector(off, l, r_bad, opt); },
               {"grain::contract_field_field_vector", "'right'", "(3,4,7,3)", "(3,4,7,2)"});
  expect_error([&] { grain::contract_field_field_vector(off_bad, l, r, opt); },
               {"grain::contract_field_field_vector", "'out'", "(3,4,5)", "(3,5,4)"});

  // Aliasing: out is an unmanaged View over the left input's memory.
  V3 ll("ll", 2, 3, 3), rr("rr", 2, 3, 3);
  V3 alias(ll.data(), 2, 3, 3);
  expect_error([&] { grain::contract_field_field_scalar(alias, ll, rr, opt); },
               {"grain::contract_field_field_scalar", "'out'", "overlaps", "'left'"});
  V2 alias2(rr.data() + 4, 2, 3);  // overlaps the tail of right
  V2 dd("dd", 2, 3);
  expect_error([&] { grain::contract_data_field_scalar(alias2, dd, rr, opt); },
               {"grain::contract_data_field_scalar", "overlaps", "'fields'"});

  // Algorithms that do not apply.
  opt.algorithm = ContractAlgorithm::Tile;
  expect_error([&] { grain::contract_data_data_scalar(o, a, b, opt); },
               {"grain::contract_data_data_scalar", "'tile'", "DataDataScalar", "FieldField"});
  opt.algorithm = ContractAlgorithm::Block;
  expect_error([&] { grain::contract_data_data_scalar(o, a, b, opt); },
               {"grain::contract_data_data_scalar", "'block'", "DataData"});
  opt.algorithm = ContractAlgorithm::Slice;
  expect_error([&] { grain::contract_data_data_scalar(o, a, b, opt); }, {"'slice'", "DataData"});
  opt.algorithm = ContractAlgorithm::AdaptiveSlice;
  expect_error([&] { grain::contract_data_data_scalar(o, a, b, opt); }, {"'adaptive-slice'"});
}

template <class Exec>
void check_algorithm_errors() {
  using Space = typename Exec::memory_space;
  grain::ContractOptions opt;
  opt.exec = contract_test::exec_of<Exec>();
  grain::View<double***, Space> l("l", 3, 5, 7), r("r", 3, 4, 7), o("o", 3, 5, 4);
  opt.algorithm = ContractAlgorithm::TeamDepth2;
  expect_error([&] { grain::contract_field_field_scalar(o, l, r, opt); },
               {"grain::contract_field_field_scalar", "'team-depth-2'", "Scalar"});
  opt.algorithm = ContractAlgorithm::Blas;
  if constexpr (grain::is_host_execution_space_v<Exec>) {
    expect_error([&] { grain::contract_field_field_scalar(o, l, r, opt); },
                 {"grain::contract_field_field_scalar", "'blas'", "GPU"});
  } else {
    // LayoutLeft device Views: cuBLAS cannot take cells as the unit-stride index.
    expect_error([&] { grain::contract_field_field_scalar(o, l, r, opt); }, {"'blas'", "LayoutRight"});
  }
  grain::View<double**, Space> dd("dd", 3, 7), od("od", 3, 4);
  expect_error([&] { grain::contract_data_field_scalar(od, dd, r, opt); },
               {"grain::contract_data_field_scalar", "'blas'", "FieldField"});
  opt.algorithm = ContractAlgorithm::Mma;
  expect_error([&] { grain::contract_data_field_scalar(od, dd, r, opt); },
               {"grain::contract_data_field_scalar", "'mma'", "FieldField"});
  if constexpr (grain::is_host_execution_space_v<Exec>) {
    expect_error([&] { grain::contract_field_field_scalar(o, l, r, opt); },
                 {"grain::contract_field_field_scalar", "'mma'", "GPU"});
  } else {
    // LayoutRight inputs with a LayoutLeft out: neither cells nor fields unit-stride in all three.
    grain::View<double***, grain::LayoutRight, Space> lr("lr", 3, 5, 7), rr("rr", 3, 4, 7);
    expect_error([&] { grain::contract_field_field_scalar(o, lr, rr, opt); }, {"'mma'", "LayoutLeft", "LayoutRight"});
  }
  opt.algorithm = ContractAlgorithm::Blas;
  if constexpr (grain::is_host_execution_space_v<Exec>) {
    opt.algorithm = ContractAlgorithm::Auto;
    opt.exec = grain::ContractExec::Cuda;
    expect_error([&] { grain::contract_field_field_scalar(o, l, r, opt); },
                 {"grain::contract_field_field_scalar", "cuda", "HostSpace"});
  } else {
    opt.algorithm = ContractAlgorithm::Auto;
    opt.exec = grain::ContractExec::Serial;
    expect_error([&] { grain::contract_field_field_scalar(o, l, r, opt); },
                 {"grain::contract_field_field_scalar", "serial", "CudaSpace"});
  }
  EXPECT_THROW(grain::parse_contract_algorithm("tiles"), grain::Error);
  EXPECT_EQ(grain::parse_contract_algorithm("team-small-k"), ContractAlgorithm::TeamSmallK);
  for (ContractAlgorithm a : grain::kAllContractAlgorithms)
    EXPECT_EQ(grain::parse_contract_algorithm(grain::contract_algorithm_name(a)), a);
}

// C = 0, L = 0: nothing to do. P = 0: zeros, or out unchanged with sum_into; for every algorithm
// that applies.
template <class Exec>
void check_empty() {
  using Space = typename Exec::memory_space;
  grain::ContractOptions opt;
  opt.exec = contract_test::exec_of<Exec>();
  grain::View<double***, Space> l0("l", 0, 5, 7), r0("r", 0, 4, 7), o0("o", 0, 5, 4);
  grain::contract_field_field_scalar(o0, l0, r0, opt);
  grain::View<double***, Space> lL("l", 3, 0, 7), oL("o", 3, 0, 4), rL("r", 3, 4, 7);
  grain::contract_field_field_scalar(oL, lL, rL, opt);

  grain::View<double***, Space> l("l", 3, 5, 0), r("r", 3, 4, 0), o("o", 3, 5, 4);
  auto h = grain::create_mirror_view(o);
  for (ContractAlgorithm a : {ContractAlgorithm::Auto, ContractAlgorithm::Serial,
                              ContractAlgorithm::Flat, ContractAlgorithm::TeamDepth1,
                              ContractAlgorithm::TeamStride, ContractAlgorithm::TeamSmallK,
                              ContractAlgorithm::Slice, ContractAlgorithm::AdaptiveSlice,
                              ContractAlgorithm::Tile, ContractAlgorithm::Block}) {
    opt.algorithm = a;
    opt.sum_into = false;
    grain::test::poison(o);
    grain::contract_field_field_scalar(o, l, r, opt);
    grain::deep_copy(h, o);
    for (std::size_t i = 0; i < h.size(); ++i)
      ASSERT_EQ(h.data()[i], 0.0) << grain::contract_algorithm_name(a) << " with P = 0";
    opt.sum_into = true;
    grain::deep_copy(o, 2.5);
    grain::contract_field_field_scalar(o, l, r, opt);
    grain::deep_copy(h, o);
    for (std::size_t i = 0; i < h.size(); ++i)
      ASSERT_EQ(h.data()[i], 2.5) << grain::contract_algorithm_name(a) << " sum_into with P = 0";
  }
  // DataDataTensor with a zero component extent.
  grain::View<float****, Space> a("a", 5, 3, 0, 2), b("b", 5, 3, 0, 2);
  grain::View<float*, Space> od("od", 5);
  opt.algorithm = ContractAlgorithm::Auto;
  opt.sum_into = false;
  grain::test::poison(od);
  grain::contract_data_data_tensor(od, a, b, opt);
  auto hd = grain::create_mirror_view(od);
  grain::deep_copy(hd, od);
  for (std::size_t i = 0; i < hd.size(); ++i) ASSERT_EQ(hd.data()[i], 0.0f);
}

GRAIN_BACKEND_TEST(ContractErrors, WrongExtentsAliasingAndAlgorithms) {
  check_shape_errors<TypeParam>();
}
GRAIN_BACKEND_TEST(ContractErrors, AlgorithmAndBackendChoice) { check_algorithm_errors<TypeParam>(); }
GRAIN_BACKEND_TEST(ContractEmpty, ZeroCellsFieldsAndPoints) { check_empty<TypeParam>(); }

}  // namespace
