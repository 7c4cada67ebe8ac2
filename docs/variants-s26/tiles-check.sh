#!/usr/bin/env bash
# Session 26, runs 2, 3, 5, 6: the GPU tests of team-small-k's cell tiles and the FieldField tests
# beside them, then memcheck and racecheck over the new one. Sourced by run-exp{2,3,5,6}.sh after
# `out` is set and the binaries unpacked.
T=.device-carry/tests/grain_contract_tests
$T --gtest_brief=1 --gtest_filter='*cuda*StagedCellTiles*:*cuda*FieldFieldEveryAlgorithm*:*cuda*FieldFieldLongK*:*cuda*StagedCellQuads*' > "$out/r/tests.log" 2>&1
echo "TEST tiles rc=$? $(grep -E '^\[  (PASSED|FAILED)  \]' "$out/r/tests.log" | tr '\n' ' ')" | tee -a "$out/summary.txt"
grep -E '^\[  FAILED|Failure|expected' "$out/r/tests.log" | head | tee -a "$out/summary.txt"
for tool in memcheck racecheck; do
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 $T --gtest_brief=1 --gtest_filter='*cuda*StagedCellTiles*' > "$out/r/$tool.log" 2>&1
  echo "SANITIZER $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/r/$tool.log" | tail -1)" | tee -a "$out/summary.txt"
done
