#!/usr/bin/env bash
# Session 26, run 11: the final code (the cell tiles reading scratch with shared-memory loads):
# memcheck over the CUDA contract tests, every test suite on every back end, then run-exp5.sh
# (the cell-tile tests and sanitizers, LayoutRight Q2 beside cuBLAS twice, Nsight Compute).
set -u
out=${OUT:-gpu-results}
mkdir -p "$out/r"
bash scripts/device-unpack.sh
GRAIN_TEST_SMALL=1 timeout 240 compute-sanitizer --tool memcheck --error-exitcode 9 .device-carry/tests/grain_contract_tests \
  --gtest_brief=1 --gtest_filter='*cuda*:*Cuda*' > "$out/r/memcheck-contract.log" 2>&1
echo "SANITIZER memcheck grain_contract_tests rc=$? $(grep -E 'ERROR SUMMARY' "$out/r/memcheck-contract.log" | tail -1)" \
  | tee -a "$out/summary.txt"
GRAIN_TEST_SMALL=1 SANITIZE='^none$' bash scripts/device-run.sh tests
mkdir -p "$out/r"
VARIANTS=${VARIANTS:-'- -'} TAG=${TAG:-run11} exec bash "$(dirname "$0")/run-exp5.sh"
