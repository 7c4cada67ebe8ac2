#!/usr/bin/env bash
# Session 15, run 1: the final binaries. Every GPU test suite with compute-sanitizer memcheck and
# racecheck over the contract suite (no GPU kernel changed this session: the CPU `block` and the
# CPU Auto rule did), then the CPU FieldField suite on 2 threads of the GPU machine's Xeon,
# x86-64-v3 builds of session 14's code (old) and this session's (new), alternating, two rounds.
set -u
out=${OUT:-exp1}
mkdir -p "$out"
GRAIN_TEST_SMALL=1 SANITIZE='contract_tests' SANITIZE_TIMEOUT=150 OUT="$out/main" timeout 420 bash scripts/device-run.sh tests
C=.device-carry
for v in old new; do [ -f $C/grain-cpu-v3-$v.xz ] && xz -d -k -f $C/grain-cpu-v3-$v.xz; done
lscpu | grep -E "Model name|^CPU\(s\)" > "$out/cpu.txt"
for round in 1 2; do
  for v in old new; do
    OMP_NUM_THREADS=2 OMP_PROC_BIND=true timeout 80 $C/grain-cpu-v3-$v bench contract --backend openmp \
      --kernel FieldFieldScalar,FieldFieldVector,FieldFieldTensor --case all --dtype all \
      --algorithm flat,block,openblas-gemm --reps 10 --json "$out/xeon-$v-$round.json" > "$out/xeon-$v-$round.txt" 2>&1
    echo "xeon $v round $round rc=$?"
  done
done
