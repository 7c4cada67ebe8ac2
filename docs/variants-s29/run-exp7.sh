#!/usr/bin/env bash
# Session 29, run 7 (H100), the final code: racecheck over the rows kernel's Q4 test (run 5's
# racecheck over the every-shape test did not finish in 200 s), memcheck over the CUDA contract
# tests with run 6 of session 28's 240 s.
set -u
out=${OUT:-gpu-results}
mkdir -p "$out/r"
bash scripts/device-unpack.sh
timeout 200 compute-sanitizer --tool racecheck --error-exitcode 9 .device-carry/tests/grain_contract_tests \
  --gtest_filter='ContractMma.LayoutRightDoubleQ4Cells' > "$out/r/racecheck-rows.log" 2>&1
echo "SANITIZER racecheck ContractMma.LayoutRightDoubleQ4Cells rc=$? $(grep -E 'RACECHECK SUMMARY' "$out/r/racecheck-rows.log" | tail -1) $(grep -E '^\[  PASSED' "$out/r/racecheck-rows.log")" \
  | tee -a "$out/summary.txt"
GRAIN_TEST_SMALL=1 timeout 300 compute-sanitizer --tool memcheck --error-exitcode 9 .device-carry/tests/grain_contract_tests \
  --gtest_filter='*cuda*:*Cuda*:ContractMma.*' > "$out/r/memcheck-contract.log" 2>&1
echo "SANITIZER memcheck grain_contract_tests CUDA + ContractMma rc=$? $(grep -E 'ERROR SUMMARY' "$out/r/memcheck-contract.log" | tail -1) $(grep -E '^\[  PASSED|^\[  FAILED' "$out/r/memcheck-contract.log" | head -3)" \
  | tee -a "$out/summary.txt"
tar czf "$out/logs.tar.gz" -C "$out" r && rm -rf "$out/r"
