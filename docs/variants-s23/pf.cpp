// Session 23: ContractFlatDataRowsKernel (flat.hpp) over LayoutRight DataField operands of 128 MiB,
// 2 threads, with its operands prefetched D bytes ahead (D = 0: none; `ahead` = ceil(D / cell
// bytes) cells), the kernel alone in a static OpenMP loop, beside a copy of the same fields'
// bytes. Three rounds, each case alternating its variants.
//
//   g++ -std=c++17 -O3 -march=native -fopenmp -Iinclude -Ibuild/host/include \
//       docs/variants-s23/pf.cpp -o /tmp/pf && OMP_NUM_THREADS=2 OMP_PROC_BIND=true /tmp/pf
//
// Results: docs/performance.md, session 23.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sys/mman.h>
#include "grain/contract/algorithms/flat.hpp"
using namespace grain::impl;
static void* al(size_t n){void* p=aligned_alloc(2<<20,(n+(2<<20)-1)/(2<<20)*(2<<20)); madvise(p,n,MADV_HUGEPAGE); return p;}
static double now(){return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();}
template<class T> void run(long R, long K, const char* name){
  const long C = (128L<<20)/(R*K*sizeof(T));
  T* a=(T*)al(C*K*sizeof(T)), *b=(T*)al(C*R*K*sizeof(T)), *o=(T*)al(C*R*sizeof(T));
  #pragma omp parallel for
  for(long i=0;i<C*R*K;i++) b[i]=0.5f+(i%13)*0.01f;
  #pragma omp parallel for
  for(long i=0;i<C*K;i++){a[i]=1.f;}
  #pragma omp parallel for
  for(long i=0;i<C*R;i++){o[i]=0;}
  ContractProblem<T> p;
  p.kernel = grain::ContractKernel::DataFieldScalar;
  p.C = C, p.L = 1, p.R = R; p.x[2] = K, p.ax[2] = p.bx[2] = 1;
  p.a_c = K, p.b_c = R * K, p.b_r = K, p.o_c = R, p.o_r = 1; p.canonicalize();
  p.a = a, p.b = b, p.out = o;
  double bytes = double(C)*(K+R*K+R)*sizeof(T);
  const long cells = flat_cells_per_item(C, R*K*sizeof(T), 2);
  const long cell_bytes=(R*K+K)*sizeof(T);
  printf("%s", name);
  for(long D: {0L, 1024L, 2048L, 4096L, 8192L}){
    const long ahead = D==0?0:(D+cell_bytes-1)/cell_bytes;
    const ContractFlatDataRowsKernel<T> rows{p, cells, ahead};
    double best=1e9; long n=(C+cells-1)/cells;
    for(int rep=0;rep<8;rep++){double t=now();
      #pragma omp parallel for schedule(static)
      for(long i=0;i<n;i++) rows(i);
      best=std::min(best,now()-t);}
    printf("  D%ld:%6.2f", D, best*1e3);
  }
  double best=1e9;
  for(int rep=0;rep<8;rep++){double t=now();
      #pragma omp parallel for schedule(static)
      for(long i=0;i<C*R*K/2;i++) b[C*R*K/2+i]=b[i];
      best=std::min(best,now()-t);}
  printf("  copy-equiv %.2f ms (kernel bytes at copy rate)\n", bytes/(C*R*K*sizeof(T)/best)*1e3);
  free(a); free(b); free(o);
}
int main(){
  for(int round=0;round<3;round++){
  run<float>(8,8,"DFS-Q1-f");
  run<double>(8,8,"DFS-Q1-d");
  run<float>(27,27,"DFS-Q2-f");
  run<double>(27,27,"DFS-Q2-d");
  run<float>(64,64,"DFS-Q3-f");
  run<float>(8,24,"DFV-Q1-f");
  run<float>(8,72,"DFT-Q1-f");
  run<double>(8,72,"DFT-Q1-d");
  }
}
