#!/usr/bin/env bash
# Session 32, run 1 (H100): session 31's review mend (3eee73c) on the GPU: every GPU test suite,
# then memcheck and racecheck over every CUDA test of the contract suite.
set -u
out=${OUT:-gpu-results}
mkdir -p "$out/r"
GRAIN_TEST_SMALL=1 SANITIZE='^none$' bash scripts/device-run.sh tests
mkdir -p "$out/r"
T=.device-carry/tests/grain_contract_tests
for tool in memcheck racecheck; do
  timeout 240 compute-sanitizer --tool $tool --error-exitcode 9 $T --gtest_brief=1 --gtest_filter='*cuda*:*Cuda*:ContractMma.*' \
    > "$out/r/$tool-contract.log" 2>&1
  echo "SANITIZER $tool grain_contract_tests (CUDA) rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/r/$tool-contract.log" | tail -1) $(grep -E '^\[  (PASSED|FAILED)' "$out/r/$tool-contract.log" | tr '\n' ' ')" >> "$out/summary.txt"
done
tar czf "$out/logs.tar.gz" -C "$out" r && rm -rf "$out/r"
