// View: construction, shared ownership, layouts' offsets, mirrors and deep_copy.
#include "grain_test.hpp"

namespace {

TEST(Layout, RightOffsetsMatchHandComputed) {
  grain::View<double***, grain::LayoutRight> v("v", 3, 4, 5);
  EXPECT_EQ(v.stride(0), 20u);
  EXPECT_EQ(v.stride(1), 5u);
  EXPECT_EQ(v.stride(2), 1u);
  EXPECT_EQ(&v(2, 1, 3) - v.data(), 2 * 20 + 1 * 5 + 3);
}

TEST(Layout, LeftOffsetsMatchHandComputed) {
  grain::View<double***, grain::LayoutLeft> v("v", 3, 4, 5);
  EXPECT_EQ(v.stride(0), 1u);
  EXPECT_EQ(v.stride(1), 3u);
  EXPECT_EQ(v.stride(2), 12u);
  EXPECT_EQ(&v(2, 1, 3) - v.data(), 2 + 1 * 3 + 3 * 12);
}

template <class Exec>
void check_fill_on_device() {
  using Space = typename Exec::memory_space;
  const int n = 1000;
  grain::View<double**, Space> d("d", n, 3);
  grain::parallel_for(grain::RangePolicy<Exec>(0, n), GRAIN_LAMBDA(grain::index_type i) {
    for (int j = 0; j < 3; ++j) d(i, j) = 10.0 * i + j;
  });
  auto h = grain::create_mirror_view(d);
  grain::deep_copy(h, d);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < 3; ++j) ASSERT_EQ(h(i, j), 10.0 * i + j);
}

GRAIN_BACKEND_TEST(View, FillThroughKernelAndMirror) { check_fill_on_device<TypeParam>(); }

}  // namespace
