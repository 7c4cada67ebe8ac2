// Session 23: LayoutRight DataFieldScalar over 128 MiB on 2 threads, four loops side by side:
// `flat`'s ContractFlatDataRowsKernel as session 22 left it (no prefetch: build it from that
// commit, or pass ahead = 0), a copy of half the fields, the same W-field dot products in a plain
// loop over cells, and that loop with the fields of the cell 2, 4 or 8 ahead prefetched.
//
//   g++ -std=c++17 -O3 -march=native -fopenmp -Iinclude -Ibuild/host/include \
//       docs/variants-s23/big.cpp -o /tmp/big && OMP_NUM_THREADS=2 OMP_PROC_BIND=true /tmp/big
//
// One run (ms): DataFieldScalar Q1 float, kernel 10.8-11.5, plain 10.6-11.2, 8 ahead 8.1-8.9;
// Q2 float 10.1-10.3, 8.1-8.6, 4 ahead 6.5-6.6; Q1 double 10.1-10.4, 9.9-10.5, 4 ahead 7.4-7.7.
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
  constexpr int W = kHostVectorBytes/sizeof(T);
  using HV = HostVector<T, W>;
  double bytes = double(C)*(K+R*K+R)*sizeof(T);
  auto tm=[&](const char* what, auto&& f){ double best=1e9; for(int rep=0;rep<8;rep++){double t=now(); f(); best=std::min(best,now()-t);} printf("%s %-22s %7.2f ms %6.1f GB/s\n",name,what,best*1e3,bytes/best/1e9);};
  const long cells = flat_cells_per_item(C, R*K*sizeof(T), 2);
  const ContractFlatDataRowsKernel<T> rows{p, cells, 0};
  for(int round=0;round<2;round++){
    tm("rows", [&]{ long n=(C+cells-1)/cells;
      #pragma omp parallel for schedule(static)
      for(long i=0;i<n;i++) rows(i);});
    tm("copy", [&]{
      #pragma omp parallel for schedule(static)
      for(long i=0;i<C*R*K/2;i++) b[C*R*K/2+i]=b[i];});
    tm("plain-dotlanes", [&]{
      #pragma omp parallel for schedule(static)
      for(long c=0;c<C;c++) for(long r=0;r+W<=R;r+=W) HV::store(o+c*R+r, HV::dot_lanes(K, a+c*K, 0, b+c*R*K+r*K, K));});
    for(int dist: {2,4,8}){
      char nm[64]; snprintf(nm,64,"plain-pf%d",dist);
      tm(nm, [&]{
      #pragma omp parallel for schedule(static)
      for(long c=0;c<C;c++){ const char* pf=(const char*)(b+(c+dist)*R*K); for(long off=0;off<R*K*long(sizeof(T));off+=64) __builtin_prefetch(pf+off);
        for(long r=0;r+W<=R;r+=W) HV::store(o+c*R+r, HV::dot_lanes(K, a+c*K, 0, b+c*R*K+r*K, K));}});
    }
  }
  free(a); free(b); free(o);
}
int main(){
  run<float>(8,8,"DFS-Q1-f");
  run<float>(27,27,"DFS-Q2-f");
  run<double>(8,8,"DFS-Q1-d");
}
