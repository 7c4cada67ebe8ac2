#!/usr/bin/env bash
# Session 26, run 9: the final code: memcheck and racecheck over the cell-tile tests, then session
# 25's run-exp1.sh (memcheck over the CUDA contract tests, every test suite, both suites beside
# cuBLAS, torch.einsum in both layouts).
set -u
out=${OUT:-gpu-results}
mkdir -p "$out/r"
bash scripts/device-unpack.sh
for tool in memcheck racecheck; do
  GRAIN_TEST_SMALL=1 timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 .device-carry/tests/grain_contract_tests \
    --gtest_brief=1 --gtest_filter='*cuda*StagedCellTiles*' > "$out/r/$tool-tiles.log" 2>&1
  echo "SANITIZER $tool StagedCellTiles rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/r/$tool-tiles.log" | tail -1)" \
    | tee -a "$out/summary.txt"
done
exec bash "$(dirname "$0")/../variants-s25/run-exp1.sh"
