#!/usr/bin/env bash
# Session 32, run 3 (H100), the final code (block's CPU cell kernel and flat changed; the CUDA
# kernels as in session 31): every GPU test suite, then racecheck over the two ContractMma tests
# that run every configuration in double and the default path on LayoutLeft Q3 double cells (as
# session 31's run 2; over all ContractMma tests racecheck ran past 200 s in run 2).
set -u
out=${OUT:-gpu-results}
GRAIN_TEST_SMALL=1 SANITIZE='^none$' bash scripts/device-run.sh tests
mkdir -p "$out/r"
T=.device-carry/tests/grain_contract_tests
timeout 300 compute-sanitizer --tool racecheck --error-exitcode 9 $T --gtest_brief=1 \
  --gtest_filter='ContractMma.EveryBlockShapeDouble:ContractMma.LayoutLeftDoubleQ3Cells' > "$out/r/racecheck-mma.log" 2>&1
echo "SANITIZER racecheck ContractMma double tests rc=$? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' "$out/r/racecheck-mma.log" | tail -1) $(grep -E '^\[  (PASSED|FAILED)' "$out/r/racecheck-mma.log" | tr '\n' ' ')" >> "$out/summary.txt"
tar czf "$out/logs.tar.gz" -C "$out" r && rm -rf "$out/r"
