#!/usr/bin/env bash
# Session 32, run 6 (H100), the final code: racecheck over the two ContractMma tests run 5's limit
# did not reach (the LayoutRight default paths on Q4 double and Q3 float cells).
set -u
out=${OUT:-gpu-results}
mkdir -p "$out"
bash scripts/device-unpack.sh
T=.device-carry/tests/grain_contract_tests
timeout 330 compute-sanitizer --tool racecheck --error-exitcode 9 $T \
  --gtest_filter='ContractMma.LayoutRightDoubleQ4Cells:ContractMma.LayoutRightFloatQ3Cells' > "$out/racecheck-mma-right.log" 2>&1
echo "SANITIZER racecheck LayoutRight cells rc=$? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' "$out/racecheck-mma-right.log" | tail -1) $(grep -E '^\[ +(OK|PASSED|FAILED) ' "$out/racecheck-mma-right.log" | tr '\n' ' ')" >> "$out/summary.txt"
