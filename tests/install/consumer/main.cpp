// Sums 1..n through grain's default host back end and checks the closed form.
#include <cstdio>

#include <grain/grain.hpp>

int main() {
  const long n = 100001;
  grain::View<double*> v("v", n);
  grain::parallel_for(grain::RangePolicy<grain::DefaultHostExecutionSpace>(0, n),
                      [=](grain::index_type i) { v(i) = static_cast<double>(i + 1); });
  double sum = 0;
  grain::parallel_reduce(grain::RangePolicy<grain::DefaultHostExecutionSpace>(0, n),
                         [=](grain::index_type i, double& s) { s += v(i); }, sum);
  const double expect = 0.5 * n * (n + 1);
  std::printf("sum %.1f expected %.1f\n", sum, expect);
  return sum == expect ? 0 : 1;
}
