// Auto's model: a per-back-end table of rules, each a named predicate over what the model reads of
// a call (ContractFacts), the algorithm it picks and one line of reason; the thresholds the
// predicates compare against are the named constants of src/contract/model.cpp, the single place
// each one lives. The first rule that holds and whose algorithm applies is the pick; the
// algorithms of the later rules that hold, then the back end's fallback order for the kernel
// family, rank the other candidates (what Tuning::Measure times: plan.hpp).
//
//   grain::impl::ContractModelDecision d = grain::impl::contract_model_decide(facts);
//   d.pick, d.rule (the deciding rule), d.ranking (candidates, best first)
//
// `grain contract explain` prints the facts, every rule that holds and the ranking
// (contract_explain in explain.hpp).
#pragma once

#include <cstddef>
#include <string>
#include <type_traits>
#include <vector>

#include "grain/contract/algorithms/host_simd.hpp"  // host_cell_vectors, host_prefetch_next_cell, ...
#include "grain/contract/engine.hpp"                  // contract_mma_k_rows, contract_mma_rows (CUDA builds)
#include "grain/contract/options.hpp"
#include "grain/contract/problem.hpp"

namespace grain::impl {

// What the model reads of a call: its sizes, element type and layout, and the predicates of the
// problem (problem.hpp) and of the CPU kernels (host_simd.hpp) that decide which code paths exist.
struct ContractFacts {
  ContractKernel kernel = ContractKernel::DataDataScalar;
  ContractFamily family = ContractFamily::DataData;
  bool gpu = false;         // the CUDA table (else the CPU one)
  bool dbl = false;         // double (else float)
  index_type C = 0, L = 1, R = 1, K = 0;
  bool cells_fastest = false;  // LayoutLeft: the cells are the unit-stride index
  // GPU code paths (problem.hpp, engine.hpp).
  bool flat_cell_pack = false;  // flat reads several neighbouring cells a load
  bool k_rows = false;          // team-small-k stages whole rows
  bool k_packed = false;        // K readable 16 bytes at a time
  bool k_cells = false;         // team-small-k stages whole small cells
  bool k_cell_tiles = false;    // team-small-k's register tiles of staged cells
  bool lanes_busy = false;      // team-small-k's packed lanes at least 3/4 busy
  bool blas_applies = false;    // cuBLAS applies (rows unit-stride)
  bool mma_applies = false;     // tensor cores apply
  bool mma_k_rows = false;      // float: the warpgroup kernel over TMA row copies (compute capability 9.0)
  bool mma_rows = false;        // double: the rows kernel (compute capability 9.0 and newer)
  // CPU code paths (host_simd.hpp).
  bool host_cell_vectors = false;  // block's cells-as-vectors kernel (16 cells a vector)
  bool host_block_kernel = false;  // block prefetches the next cell, or has its dot or 512-bit kernel
};

// One row of the table.
struct ContractRule {
  const char* name;                          // stable, e.g. "ff-right-big-blas"
  ContractAlgorithm pick;
  bool (*holds)(const ContractFacts&);
  const char* reason;                        // one line: why this algorithm wins there
};

// A back end's table: rules in order, then the fallback order per kernel family.
struct ContractRuleTable {
  const ContractRule* rules = nullptr;
  std::size_t size = 0;
};
ContractRuleTable contract_model_rules(bool gpu);
// The order in which the remaining applicable algorithms rank after the rules' (best first).
const std::vector<ContractAlgorithm>& contract_model_fallback(bool gpu, ContractFamily family);

// The model's answer for one call. `applicable` has bit (1 << int(a)) set for each algorithm `a`
// that applies (contract_applicable_mask, select.hpp).
struct ContractModelDecision {
  ContractAlgorithm pick = ContractAlgorithm::Flat;
  const ContractRule* rule = nullptr;          // the deciding rule (nullptr: the fallback order)
  std::vector<const ContractRule*> holding;    // every rule that holds, in table order
  std::vector<ContractAlgorithm> ranking;      // the applicable candidates, pick first
};
ContractModelDecision contract_model_decide(const ContractFacts& f, unsigned applicable);
// The pick alone, without allocating (every Auto call asks it).
ContractAlgorithm contract_model_pick(const ContractFacts& f, unsigned applicable);

// The facts of problem `p` on back end `e`.
template <class T>
ContractFacts contract_facts(const ContractProblem<T>& p, ContractExec e) {
  ContractFacts f;
  f.kernel = p.kernel;
  f.family = contract_kernel_family(p.kernel);
  f.gpu = e == ContractExec::Cuda;
  f.dbl = std::is_same_v<T, double>;
  f.C = p.C, f.L = p.L, f.R = p.R, f.K = p.K;
  f.cells_fastest = p.cells_fastest();
  f.flat_cell_pack = p.flat_cell_pack() > 0;
  f.k_rows = p.k_rows();
  f.k_packed = p.k_packed();
  f.k_cells = p.k_cells();
  f.k_cell_tiles = p.k_cell_tiles();
  {
    constexpr index_type V = 16 / sizeof(T);
    const index_type packs = p.K / V, lanes = small_k_lanes(packs);
    const index_type slots = (packs + lanes - 1) / lanes * lanes;
    f.lanes_busy = 4 * packs >= 3 * slots;
  }
  f.blas_applies = f.family == ContractFamily::FieldField && p.k_unit() && (p.L <= 1 || p.a_l >= p.K) &&
                   (p.R <= 1 || p.b_r >= p.K) && (p.o_r == 1 || p.R <= 1);
  f.mma_applies = f.family == ContractFamily::FieldField &&
                  ((p.cells_unit() && (p.o_c == 1 || p.C <= 1)) || p.rows_along_k());
#if defined(GRAIN_ENABLE_CUDA)
  if (f.gpu && f.family == ContractFamily::FieldField) {
    if constexpr (std::is_same_v<T, float>) f.mma_k_rows = contract_mma_k_rows(p);
    if constexpr (std::is_same_v<T, double>) f.mma_rows = contract_mma_rows(p);
  }
#endif
  f.host_cell_vectors = host_cell_vectors(p, 16);
  f.host_block_kernel = (f.dbl && host_prefetch_next_cell(p.K * index_type(sizeof(T)))) ||
                        host_dot_cells(sizeof(T), p.a_k_unit() && p.b_k_unit(), p.L, p.R, p.K) ||
                        host_zmm_cells(p.a_k_unit() && p.b_k_unit(), p.R, p.K);
  return f;
}

// One line per fact, "name value", for `grain contract explain`.
std::vector<std::pair<std::string, std::string>> contract_facts_lines(const ContractFacts& f);

}  // namespace grain::impl
