#!/usr/bin/env bash
# Session 26, run 1: session 25's final code (the review mend 8cf476f had compiled and passed CI
# but not run on a GPU): racecheck over the LayoutRight warpgroup tests, then session 25's
# run-exp1.sh (memcheck over the CUDA contract tests, every test suite, both suites beside cuBLAS,
# torch.einsum in both layouts).
set -u
out=${OUT:-gpu-results}
mkdir -p "$out/r"
bash scripts/device-unpack.sh
GRAIN_TEST_SMALL=1 timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 .device-carry/tests/grain_contract_tests \
  --gtest_brief=1 --gtest_filter='*EveryBlockShapeLayoutRight*' > "$out/r/racecheck-lr.log" 2>&1
echo "SANITIZER racecheck EveryBlockShapeLayoutRight rc=$? $(grep -E 'RACECHECK SUMMARY' "$out/r/racecheck-lr.log" | tail -1)" \
  | tee -a "$out/summary.txt"
exec bash "$(dirname "$0")/../variants-s25/run-exp1.sh"
