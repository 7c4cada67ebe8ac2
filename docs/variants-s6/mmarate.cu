// Throughput of the tensor-core MMA shapes the mma kernel can use (one-off experiment).
#include <cstdio>
#include <cuda_runtime.h>
template <int S> __global__ void k(double* o, int iters) {
  double x = threadIdx.x * 1e-3, y = x + 1, z = x + 2, w = x + 3;
  double d[8][4] = {};
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int c = 0; c < 8; ++c) {
      if (S == 0) asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};" : "+d"(d[c][0]), "+d"(d[c][1]) : "d"(x), "d"(y));
      if (S == 1) asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};" : "+d"(d[c][0]), "+d"(d[c][1]), "+d"(d[c][2]), "+d"(d[c][3]) : "d"(x), "d"(y), "d"(z));
      if (S == 2) asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};" : "+d"(d[c][0]), "+d"(d[c][1]), "+d"(d[c][2]), "+d"(d[c][3]) : "d"(x), "d"(y), "d"(z), "d"(w), "d"(x), "d"(y));
      if (S == 3) asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7,%8,%9,%10,%11}, {%12,%13,%14,%15}, {%0,%1,%2,%3};" : "+d"(d[c][0]), "+d"(d[c][1]), "+d"(d[c][2]), "+d"(d[c][3]) : "d"(x), "d"(y), "d"(z), "d"(w), "d"(x), "d"(y), "d"(z), "d"(w), "d"(x), "d"(y), "d"(z), "d"(w));
      if (S == 4) { float* f = reinterpret_cast<float*>(d[c]); unsigned a = __float_as_uint(float(x)), b = __float_as_uint(float(y));
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};" : "+f"(f[0]), "+f"(f[1]), "+f"(f[2]), "+f"(f[3]) : "r"(a), "r"(b), "r"(a), "r"(b), "r"(a), "r"(b)); }
    }
  }
  double s = 0;
  for (int c = 0; c < 8; ++c) s += d[c][0] + d[c][1] + d[c][2] + d[c][3];
  o[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
template <int S> void run(const char* name, double flop_per_mma) {
  double* o; cudaMalloc(&o, 132 * 8 * 256 * 8);
  int iters = 2000;
  k<S><<<132 * 8, 256>>>(o, 10);
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  cudaEventRecord(a); k<S><<<132 * 8, 256>>>(o, iters); cudaEventRecord(b); cudaEventSynchronize(b);
  float ms; cudaEventElapsedTime(&ms, a, b);
  double flops = 132.0 * 8 * 8 * 8 * iters * flop_per_mma;  // blocks * warps * chains * iters
  printf("%-28s %8.3f ms %8.1f TFLOP/s  (%s)\n", name, ms, flops / ms / 1e9, cudaGetErrorString(cudaGetLastError()));
  cudaFree(o);
}
int main() {
  run<0>("f64 m8n8k4", 2.0 * 8 * 8 * 4);
  run<1>("f64 m16n8k4", 2.0 * 16 * 8 * 4);
  run<2>("f64 m16n8k8", 2.0 * 16 * 8 * 8);
  run<3>("f64 m16n8k16", 2.0 * 16 * 8 * 16);
  run<4>("tf32 m16n8k8 (f32 acc)", 2.0 * 16 * 8 * 8);
}
