#include <cstdio>
#include <chrono>
template <class F> __attribute__((noinline)) void run(long n, const F& f) { for (long i = 0; i < n; ++i) f(i); }
int main(int argc, char**) {
  long n = 50000000; float* x = new float[n]; float* y = new float[n];
  for (long i = 0; i < n; ++i) x[i] = i % 7, y[i] = 0;
  float a = argc;
  auto t0 = std::chrono::steady_clock::now();
  run(n, [=] __host__ __device__ (long i) { y[i] += a * x[i]; });
  auto t1 = std::chrono::steady_clock::now();
  run(n, [=] (long i) { y[i] += a * x[i]; });
  auto t2 = std::chrono::steady_clock::now();
  printf("hd %.2f ms  host %.2f ms  %f\n", std::chrono::duration<double,std::milli>(t1-t0).count(), std::chrono::duration<double,std::milli>(t2-t1).count(), y[5]);
}
