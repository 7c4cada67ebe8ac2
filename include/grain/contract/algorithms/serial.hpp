// Algorithm::Serial — the reference loops (study Figs. 2.2-2.10: Collins et al. 2015,
// "Parallelizing Intrepid Tensor Contractions Using Kokkos"): the correctness oracle.
// One thread walks every (c, l, r) and the logical contracted indices with the Views' own
// strides; it shares nothing with the other algorithms but the problem description.
#pragma once

#include "grain/contract/algorithms/common.hpp"
#include "grain/core/parallel.hpp"

namespace grain::impl {

template <class T>
struct ContractSerialKernel {
  ContractProblem<T> p;
  GRAIN_INLINE_FUNCTION void operator()(index_type) const {
    for (index_type c = 0; c < p.C; ++c)
      for (index_type l = 0; l < p.L; ++l)
        for (index_type r = 0; r < p.R; ++r) {
          const T* a = p.a + c * p.a_c + l * p.a_l;
          const T* b = p.b + c * p.b_c + r * p.b_r;
          T sum = T(0);
          for (index_type i0 = 0; i0 < p.x[0]; ++i0)
            for (index_type i1 = 0; i1 < p.x[1]; ++i1)
              for (index_type i2 = 0; i2 < p.x[2]; ++i2)
                sum += a[i0 * p.ax[0] + i1 * p.ax[1] + i2 * p.ax[2]] *
                       b[i0 * p.bx[0] + i1 * p.bx[1] + i2 * p.bx[2]];
          p.store(c, l, r, sum);
        }
  }
};

template <class Exec, class T>
void contract_serial(const ContractProblem<T>& p) {
  parallel_for(RangePolicy<Exec>(0, 1), ContractSerialKernel<T>{p});
}

}  // namespace grain::impl
