// Session 31: the CPU access-pattern ceiling of LayoutLeft FieldField Q1 on the host. S_in input
// streams (the left and right rows (l, k) and (r, k), each a run of all C cells: the two operands
// 128 MiB each), S_out output streams ((l, r)); a team reads a run of `run` floats from every input
// stream into a scratch buffer, then writes a run to every output stream (streaming stores with
// nt = 1). OpenMP threads, teams split statically. No arithmetic: what `block`'s LayoutLeft cell
// kernel reads and writes, and in which order, at its run length, without its FMAs.
// Build: g++ -O2 -march=native -fopenmp docs/variants-s31/streams.cpp -o /tmp/streams
// Run:   OMP_NUM_THREADS=2 /tmp/streams S_in S_out run_floats [prefetch_streams_ahead] [nt]
//        (FieldFieldScalar Q1: 128 64 256; Vector: 384 64 256; Tensor: 1152 64 256)
#include <immintrin.h>
#include <omp.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <algorithm>
int main(int argc, char** argv) {
  const long Sin = atol(argv[1]), Sout = atol(argv[2]), run = atol(argv[3]);  // run in floats
  const int pf = argc > 4 ? atoi(argv[4]) : 0;  // prefetch distance in streams
  const int nt = argc > 5 ? atoi(argv[5]) : 1;
  const long C = (128L << 20) / 4 / (Sin / 2) / 16 * 16;  // each operand 128 MiB
  float* in = (float*)aligned_alloc(64, Sin * C * 4);
  float* out = (float*)aligned_alloc(64, Sout * C * 4);
  memset(in, 1, Sin * C * 4); memset(out, 0, Sout * C * 4);
  const long teams = C / run;
  std::vector<double> ms;
  for (int rep = 0; rep < 11; ++rep) {
    auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel
    {
      float* scr = (float*)aligned_alloc(64, Sin * run * 4 + 4096);
      __m512 acc = _mm512_setzero_ps();
#pragma omp for schedule(static)
      for (long t = 0; t < teams; ++t) {
        const long c0 = t * run;
        for (long s = 0; s < Sin; ++s) {
          const float* src = in + s * C + c0;
          if (pf) for (long w = 0; w < run; w += 16) __builtin_prefetch(in + (s + pf) * C + c0 + w, 0, 2);
          for (long w = 0; w < run; w += 16) {
            __m512 v = _mm512_load_ps(src + w);
            _mm512_store_ps(scr + s * run + w, v);
          }
        }
        for (long s = 0; s < Sout; ++s) {
          float* dst = out + s * C + c0;
          for (long w = 0; w < run; w += 16) {
            __m512 v = _mm512_load_ps(scr + (s % Sin) * run + w);
            if (nt) _mm512_stream_ps(dst + w, v); else _mm512_store_ps(dst + w, v);
          }
        }
      }
      _mm_sfence();
      free(scr);
    }
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin() + 1, ms.end());
  const double bytes = (Sin + Sout) * C * 4.0;
  printf("Sin %ld Sout %ld run %ld B pf %d nt %d: %.2f ms, %.1f GB/s\n", Sin, Sout, run * 4, pf, nt, ms[5], bytes / ms[5] / 1e6);
}
