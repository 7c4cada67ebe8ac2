#!/usr/bin/env bash
# Session 32, run 5 (H100), the final code: racecheck over every ContractMma test (every
# configuration in float and double, the warpgroup kernel's paths), with a longer limit than runs
# 1-2 gave it.
set -u
out=${OUT:-gpu-results}
mkdir -p "$out"
bash scripts/device-unpack.sh
T=.device-carry/tests/grain_contract_tests
timeout 560 compute-sanitizer --tool racecheck --error-exitcode 9 $T --gtest_filter='ContractMma.*' > "$out/racecheck-mma-all.log" 2>&1
echo "SANITIZER racecheck ContractMma.* rc=$? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' "$out/racecheck-mma-all.log" | tail -1) $(grep -E '^\[ +(OK|PASSED|FAILED) ' "$out/racecheck-mma-all.log" | tr '\n' ' ')" >> "$out/summary.txt"
