#!/usr/bin/env bash
# Session 16, run 1: the final binaries. Every GPU test suite with compute-sanitizer memcheck and
# racecheck over the contract suite (no GPU kernel changed: the CPU `block` did), then the CPU
# FieldField Q1 cases (block, flat, one OpenBLAS GEMM per cell) on 2 threads of the GPU machine's
# Xeon, x86-64-v3 builds of session 15's code (old) and this session's (new), one kernel per call,
# alternating, three rounds; CPU results in one tarball (the device tool returns at most 8 files).
set -u
out=${OUT:-exp1}
mkdir -p "$out/x"
GRAIN_TEST_SMALL=1 SANITIZE='contract_tests' SANITIZE_TIMEOUT=150 OUT="$out/main" timeout 400 bash scripts/device-run.sh tests
C=.device-carry
for v in old new; do [ -f $C/grain-cpu-v3-$v.xz ] && xz -d -k -f $C/grain-cpu-v3-$v.xz; done
lscpu | grep -E "Model name|^CPU\(s\)" > "$out/x/cpu.txt"
for round in 1 2 3; do
for k in FieldFieldScalar FieldFieldVector FieldFieldTensor; do
  for v in old new; do
    OMP_NUM_THREADS=2 OMP_PROC_BIND=true timeout 40 stdbuf -oL $C/grain-cpu-v3-$v bench contract --backend openmp \
      --kernel $k --case Q1 --dtype all --algorithm flat,block,openblas-gemm --reps 5 \
      --json "$out/x/xeon-$v-$k-$round.json" > "$out/x/xeon-$v-$k-$round.txt" 2>&1
    echo "xeon $v $k round $round rc=$?"
  done
done
done
tar czf "$out/xeon.tar.gz" -C "$out" x && rm -rf "$out/x"
