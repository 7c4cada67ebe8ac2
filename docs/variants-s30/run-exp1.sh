#!/usr/bin/env bash
# Session 30, run 1 (the GPU machine, carrying .device-carry): every test suite of the final code
# (its GPU instantiations on the H100), memcheck over the CUDA contract tests, and the LayoutLeft /
# LayoutRight FieldField Q2-Q4 comparison (`block` beside OpenBLAS per cell) on 2 threads of the
# machine's Xeon: the final code (grain-cpu-v4) and the code before the session (grain-cpu-v4-old,
# ae70d8d), both x86-64-v4 (AVX-512) builds with OpenBLAS linked statically, in alternating runs.
set -u
top=${OUT:-gpu-results}
out=$top/r
mkdir -p "$out"
bash scripts/device-unpack.sh
C=.device-carry
log="$out/summary.txt"
say() { echo "$*" | tee -a "$log"; }
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | tee -a "$log"
lscpu | grep -E "Model name|^CPU\(s\)|L2 cache|L3 cache|Flags" | cut -c1-200 | tee -a "$log"
for t in "$C"/tests/grain_*_tests; do
  name=$(basename "$t")
  extra=""; [ "$name" = grain_bench_affinity_tests ] && extra="OMP_PROC_BIND=true"
  env $extra "$t" --gtest_brief=1 > "$out/$name.log" 2>&1
  say "TEST $name rc=$? $(grep -E '^\[  (PASSED|FAILED)  \]' "$out/$name.log" | tr '\n' ' ')"
done
timeout 300 compute-sanitizer --tool memcheck --error-exitcode 9 "$C/tests/grain_contract_tests" --gtest_brief=1 \
  --gtest_filter='*cuda*:*Cuda*' > "$out/contract.memcheck.log" 2>&1
say "SANITIZER memcheck grain_contract_tests rc=$? $(grep -E 'ERROR SUMMARY' "$out/contract.memcheck.log" | tail -1)"
# Rounds: old / final in LayoutLeft, then in LayoutRight, then LayoutLeft again in the other order.
for spec in "grain-cpu-v4-old left 1" "grain-cpu-v4 left 1" "grain-cpu-v4-old right 1" "grain-cpu-v4 right 1" \
            "grain-cpu-v4 left 2" "grain-cpu-v4-old left 2"; do
  set -- $spec
  OMP_NUM_THREADS=2 OMP_PROC_BIND=true timeout 240 "$C/$1" bench contract --backend openmp --layout $2 \
    --kernel FieldFieldScalar,FieldFieldVector,FieldFieldTensor --case Q2,Q3,Q4 --algorithm block,openblas-gemm \
    --dtype all --json "$out/xeon-$1-$2-r$3.json" > "$out/xeon-$1-$2-r$3.txt" 2>&1
  say "xeon $1 $2 round $3 rc=$?"
done
# The device tool returns a limited number of files: everything in one archive, the summary beside it.
cp "$log" "$top/summary.txt"
tar czf "$top/results.tar.gz" -C "$out" . && rm -rf "$out"
