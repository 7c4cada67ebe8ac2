// Session 14 prototype (not part of the library): DataField in LayoutLeft, out(c, l) =
// sum_k A(c, k) B(c, l, k), where each k-plane of B, (c, l) -> c + C l, is contiguous. A block owns
// a chunk of E consecutive (c, l) and streams its k-planes through shared memory with 1D bulk
// copies (cp.async.bulk, TMA), KS planes a stage, NST stages in flight, completing on mbarriers;
// each thread keeps 4 neighbouring outputs. Against a D2D copy and a one-thread-per-output loop.
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cmath>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e), __LINE__); exit(1); } } while (0)

__device__ __forceinline__ unsigned sa(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void mb_init(uint64_t* b, unsigned n) { asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(sa(b)), "r"(n) : "memory"); }
__device__ __forceinline__ void mb_expect(uint64_t* b, unsigned bytes) { asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(sa(b)), "r"(bytes) : "memory"); }
__device__ __forceinline__ void mb_wait(uint64_t* b, unsigned ph) {
  unsigned done = 0;
  do { asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0,1,0,p;\n}" : "=r"(done) : "r"(sa(b)), "r"(ph) : "memory"); } while (!done);
}
__device__ __forceinline__ void bulk(void* dst, const void* src, unsigned bytes, uint64_t* b) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
               :: "r"(sa(dst)), "l"(src), "r"(bytes), "r"(sa(b)) : "memory");
}

// E = 4 * threads outputs per block; planes copied from the 16-byte boundary at or before the
// chunk (EP = E + 4 floats per plane in shared memory).
template <int THREADS, int KS, int NST>
__global__ void __launch_bounds__(THREADS) stream_df(const float* __restrict__ a, const float* __restrict__ b,
                                                     float* __restrict__ out, int C, long CL, int K) {
  constexpr int E = 4 * THREADS, EP = E + 4;
  extern __shared__ __align__(128) unsigned char smem[];
  float* buf = reinterpret_cast<float*>(smem);
  uint64_t* bar = reinterpret_cast<uint64_t*>(smem + NST * KS * EP * 4);
  const long cl0 = (long)blockIdx.x * E;
  const int n = (int)(CL - cl0 < E ? CL - cl0 : E);  // outputs in this chunk
  const int tid = threadIdx.x;
  const int stages = (K + KS - 1) / KS;
  if (tid == 0) { for (int i = 0; i < NST; ++i) mb_init(bar + i, 1); asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"); }
  __syncthreads();
  // plane k of the chunk: floats [cl0 + CL k, + n), copied from the 16-byte boundary at or before.
  auto issue = [&](int s) {
    const int slot = s % NST;
    float* d = buf + slot * KS * EP;
    unsigned total = 0;
    const int k0 = s * KS;
    for (int j = 0; j < KS && k0 + j < K; ++j) {
      const float* src = b + cl0 + CL * (long)(k0 + j);
      const uintptr_t s0 = (uintptr_t)src & ~uintptr_t(15);
      const uintptr_t s1 = ((uintptr_t)(src + n) + 15) & ~uintptr_t(15);
      total += (unsigned)(s1 - s0);
    }
    mb_expect(bar + slot, total);
    for (int j = 0; j < KS && k0 + j < K; ++j) {
      const float* src = b + cl0 + CL * (long)(k0 + j);
      const uintptr_t s0 = (uintptr_t)src & ~uintptr_t(15);
      const uintptr_t s1 = ((uintptr_t)(src + n) + 15) & ~uintptr_t(15);
      bulk(d + j * EP, (const void*)s0, (unsigned)(s1 - s0), bar + slot);
    }
  };
  if (tid == 0) for (int s = 0; s < NST && s < stages; ++s) issue(s);
  int cidx[4];
  bool ok[4];
  for (int j = 0; j < 4; ++j) { const long cl = cl0 + 4 * tid + j; ok[j] = 4 * tid + j < n; cidx[j] = ok[j] ? (int)(cl % C) : 0; }
  float acc[4] = {0.f, 0.f, 0.f, 0.f};
  for (int s = 0; s < stages; ++s) {
    const int slot = s % NST;
    const int k0 = s * KS;
    float av[KS][4];
    for (int j = 0; j < KS; ++j)
      for (int i = 0; i < 4; ++i) av[j][i] = (k0 + j < K) ? __ldg(a + cidx[i] + (long)C * (k0 + j)) : 0.f;
    mb_wait(bar + slot, (s / NST) & 1);
    const float* d = buf + slot * KS * EP;
    for (int j = 0; j < KS && k0 + j < K; ++j) {
      const int shift = (int)(((uintptr_t)(b + cl0 + CL * (long)(k0 + j)) & 15) / 4);
      const float* q = d + j * EP + shift + 4 * tid;
      for (int i = 0; i < 4; ++i) acc[i] += av[j][i] * q[i];
    }
    __syncthreads();  // every thread is done with slot
    if (tid == 0 && s + NST < stages) issue(s + NST);
  }
  for (int i = 0; i < 4; ++i) if (ok[i]) out[cl0 + 4 * tid + i] = acc[i];
}

__global__ void flat_df(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ out, int C, long CL, int K) {
  const long cl = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (cl >= CL) return;
  const int c = (int)(cl % C);
  float s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int k = 0;
  for (; k + 8 <= K; k += 8)
    for (int j = 0; j < 8; ++j) s[j] += a[c + (long)C * (k + j)] * b[cl + CL * (k + j)];
  for (; k < K; ++k) s[0] += a[c + (long)C * k] * b[cl + CL * k];
  out[cl] = ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

template <int T, int KS, int NST>
float run_stream(const float* a, const float* b, float* o, int C, long CL, int K) {
  const int smem = NST * KS * (4 * T + 4) * 4 + NST * 8;
  CK(cudaFuncSetAttribute(stream_df<T, KS, NST>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  const long blocks = (CL + 4 * T - 1) / (4 * T);
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  std::vector<float> ts;
  for (int r = 0; r < 12; ++r) {
    cudaEventRecord(e0);
    stream_df<T, KS, NST><<<blocks, T, smem>>>(a, b, o, C, CL, K);
    cudaEventRecord(e1); CK(cudaEventSynchronize(e1));
    float ms; cudaEventElapsedTime(&ms, e0, e1); if (r >= 2) ts.push_back(ms);
  }
  std::sort(ts.begin(), ts.end());
  return ts[ts.size() / 2];
}
int main() {
  struct Case { const char* name; int C, L, K; } cases[] = {
    {"DataFieldTensor Q4 float", 552, 125, 1944}, {"DataFieldVector Q4 float", 1657, 125, 648},
    {"DataFieldScalar Q4 float", 4971, 125, 216}, {"DataFieldTensor Q3 float", 3640, 64, 576}};
  // copy ceiling
  size_t big = size_t(1) << 29;
  float *x, *y; CK(cudaMalloc(&x, big)); CK(cudaMalloc(&y, big));
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  std::vector<float> ts;
  for (int r = 0; r < 12; ++r) { cudaEventRecord(e0); cudaMemcpyAsync(y, x, big, cudaMemcpyDeviceToDevice); cudaEventRecord(e1); cudaEventSynchronize(e1); float ms; cudaEventElapsedTime(&ms, e0, e1); if (r >= 2) ts.push_back(ms); }
  std::sort(ts.begin(), ts.end());
  const double copy = 2.0 * big / (ts[ts.size() / 2] * 1e-3) / 1e9;
  printf("copy %.0f GB/s\n", copy);
  cudaFree(x); cudaFree(y);
  for (auto& cs : cases) {
    const long CL = (long)cs.C * cs.L;
    const size_t nb = (size_t)CL * cs.K, na = (size_t)cs.C * cs.K;
    float *a, *b, *o, *o2;
    CK(cudaMalloc(&a, na * 4)); CK(cudaMalloc(&b, nb * 4 + 64)); CK(cudaMalloc(&o, CL * 4)); CK(cudaMalloc(&o2, CL * 4));
    std::vector<float> ha(na), hb(nb);
    unsigned s = 12345; for (auto& v : ha) { s = s * 1664525u + 1013904223u; v = (s >> 8) * (1.f / 16777216.f) - 0.5f; }
    for (auto& v : hb) { s = s * 1664525u + 1013904223u; v = (s >> 8) * (1.f / 16777216.f) - 0.5f; }
    CK(cudaMemcpy(a, ha.data(), na * 4, cudaMemcpyHostToDevice)); CK(cudaMemcpy(b, hb.data(), nb * 4, cudaMemcpyHostToDevice));
    const double bytes = (double)(na + nb + CL) * 4, floor_ms = bytes / copy / 1e6;
    ts.clear();
    for (int r = 0; r < 12; ++r) { cudaEventRecord(e0); flat_df<<<(CL + 255) / 256, 256>>>(a, b, o2, cs.C, CL, cs.K); cudaEventRecord(e1); CK(cudaEventSynchronize(e1)); float ms; cudaEventElapsedTime(&ms, e0, e1); if (r >= 2) ts.push_back(ms); }
    std::sort(ts.begin(), ts.end());
    const float tf = ts[ts.size() / 2];
    std::vector<float> ref(CL), got(CL);
    CK(cudaMemcpy(ref.data(), o2, CL * 4, cudaMemcpyDeviceToHost));
    printf("%s (C %d, outputs %ld, K %d): floor %.3f ms; flat %.3f (%.2f)", cs.name, cs.C, CL, cs.K, floor_ms, tf, floor_ms / tf);
    auto check = [&](float t, const char* tag) {
      CK(cudaMemcpy(got.data(), o, CL * 4, cudaMemcpyDeviceToHost));
      double worst = 0; for (long i = 0; i < CL; ++i) worst = std::max(worst, (double)std::abs(got[i] - ref[i]));
      printf("; %s %.3f (%.2f, err %.1e)", tag, t, floor_ms / t, worst);
    };
    check(run_stream<64, 4, 8>(a, b, o, cs.C, CL, cs.K), "s64x4x8");
    check(run_stream<64, 8, 6>(a, b, o, cs.C, CL, cs.K), "s64x8x6");
    check(run_stream<128, 4, 6>(a, b, o, cs.C, CL, cs.K), "s128x4x6");
    check(run_stream<32, 8, 8>(a, b, o, cs.C, CL, cs.K), "s32x8x8");
    check(run_stream<64, 2, 12>(a, b, o, cs.C, CL, cs.K), "s64x2x12");
    printf("\n");
    cudaFree(a); cudaFree(b); cudaFree(o); cudaFree(o2);
  }
}
