#!/usr/bin/env bash
# For the next session's final GPU run, in two calls of at most 600 s (run 5 did both in one and ran
# out of time): this one runs memcheck and racecheck over the cell-tile tests, memcheck over the
# CUDA contract tests and every test suite; run-final-suite.sh runs both suites and torch.einsum.
set -u
out=${OUT:-gpu-results}
mkdir -p "$out/r"
bash scripts/device-unpack.sh
for tool in memcheck racecheck; do
  GRAIN_TEST_SMALL=1 timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 .device-carry/tests/grain_contract_tests \
    --gtest_brief=1 --gtest_filter='*cuda*StagedCellTiles*' > "$out/r/$tool-tiles.log" 2>&1
  echo "SANITIZER $tool StagedCellTiles rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/r/$tool-tiles.log" | tail -1)" \
    | tee -a "$out/summary.txt"
done
GRAIN_TEST_SMALL=1 timeout 240 compute-sanitizer --tool memcheck --error-exitcode 9 .device-carry/tests/grain_contract_tests \
  --gtest_brief=1 --gtest_filter='*cuda*:*Cuda*' > "$out/r/memcheck-contract.log" 2>&1
echo "SANITIZER memcheck grain_contract_tests rc=$? $(grep -E 'ERROR SUMMARY' "$out/r/memcheck-contract.log" | tail -1)" \
  | tee -a "$out/summary.txt"
GRAIN_TEST_SMALL=1 SANITIZE='^none$' bash scripts/device-run.sh tests
