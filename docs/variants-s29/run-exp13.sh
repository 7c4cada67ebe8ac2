#!/usr/bin/env bash
# Session 29, run 13 (H100), the final code: the mma tests after adding float K = 600 to the
# LayoutRight every-shape test (shape 14 splits K in two there), plus memcheck over that test.
set -u
out=${OUT:-gpu-results}
mkdir -p "$out/r"
bash scripts/device-unpack.sh
T=.device-carry/tests
timeout 200 "$T/grain_contract_tests" --gtest_filter='ContractMma.*' > "$out/r/tests-mma.txt" 2>&1
echo "ContractMma tests rc=$? $(grep -E '^\[  PASSED|^\[  FAILED' "$out/r/tests-mma.txt" | head -2)" | tee -a "$out/summary.txt"
grep -E "FAILED|Failure" "$out/r/tests-mma.txt" | head -20 >> "$out/summary.txt"
timeout 300 compute-sanitizer --tool memcheck --error-exitcode 9 "$T/grain_contract_tests" \
  --gtest_filter='ContractMma.EveryBlockShapeLayoutRight' > "$out/r/memcheck-every-shape.log" 2>&1
echo "SANITIZER memcheck ContractMma.EveryBlockShapeLayoutRight rc=$? $(grep -E 'ERROR SUMMARY' "$out/r/memcheck-every-shape.log" | tail -1) $(grep -E '^\[  PASSED|^\[  FAILED' "$out/r/memcheck-every-shape.log" | head -2)" \
  | tee -a "$out/summary.txt"
tar czf "$out/logs.tar.gz" -C "$out" r && rm -rf "$out/r"
