#!/usr/bin/env bash
# Session 28, run 6 (H100), the final code (the 2-cell rules for team-small-k's tiles and for
# flat's DataField packs): memcheck and racecheck over the cell-tile and packed-cell tests,
# memcheck over the CUDA contract tests, every test suite.
set -u
out=${OUT:-gpu-results}
mkdir -p "$out/r"
bash scripts/device-unpack.sh
for tool in memcheck racecheck; do
  GRAIN_TEST_SMALL=1 timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 .device-carry/tests/grain_contract_tests \
    --gtest_brief=1 --gtest_filter='*cuda*StagedCellTiles*:*cuda*FlatPackedCells*:*Cuda*StagedCellTiles*:*Cuda*FlatPackedCells*' > "$out/r/$tool-rules.log" 2>&1
  echo "SANITIZER $tool StagedCellTiles+FlatPackedCells rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/r/$tool-rules.log" | tail -1) $(grep -cE '^\[       OK \]' "$out/r/$tool-rules.log") ok" \
    | tee -a "$out/summary.txt"
done
GRAIN_TEST_SMALL=1 timeout 240 compute-sanitizer --tool memcheck --error-exitcode 9 .device-carry/tests/grain_contract_tests \
  --gtest_brief=1 --gtest_filter='*cuda*:*Cuda*' > "$out/r/memcheck-contract.log" 2>&1
echo "SANITIZER memcheck grain_contract_tests rc=$? $(grep -E 'ERROR SUMMARY' "$out/r/memcheck-contract.log" | tail -1)" \
  | tee -a "$out/summary.txt"
GRAIN_TEST_SMALL=1 SANITIZE='^none$' bash scripts/device-run.sh tests
