#!/usr/bin/env bash
# Session 32, run 8 (H100 machine's CPU): the host-only contract tests (GCC, x86-64-v4, static
# runtime; build/cpu-v4 with GRAIN_ENABLE_TESTS=ON) on the GPU machine's CPU, to see whether run
# 7's ContractBlockCells.EveryPath failure is that CPU's (the host kernels' probe) or nvcc's.
set -u
out=${OUT:-gpu-results}
mkdir -p "$out"
lscpu | grep -E 'Model name|L2|Flags' | cut -c1-200 > "$out/cpu.txt"
T=build/cpu-v4/tests/contract/grain_contract_tests
OMP_NUM_THREADS=2 $T --gtest_filter='ContractBlockCells.*:ContractBlockCellVectors.*:ContractFlatCellStream.*:ContractBlockTeam.*' > "$out/host-tests.log" 2>&1
echo "host-only contract tests on this CPU rc=$? $(grep -E '^\[  (PASSED|FAILED)' "$out/host-tests.log" | tr '\n' ' ')" >> "$out/summary.txt"
