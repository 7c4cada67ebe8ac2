#!/usr/bin/env bash
# Session 17, run 1: the contract tests on the GPU (the staged cells' four-fields path is new),
# memcheck / racecheck over its test, then two A/B experiments with temporary knobs, alternating
# rounds:
#   a) LayoutRight FieldField Q1, team-small-k's staged cells one output a thread
#      (GRAIN_TSK_QUADS=0) against four fields a thread (=1);
#   b) LayoutLeft DataField Q3/Q4, team-small-k's K slices: GRAIN_TSK_SLICES x GRAIN_TSK_LEFT_A
#      (slices of K per cell, loads in flight per thread), beside flat.
set -u
out=${OUT:-exp1}
mkdir -p "$out"
C=.device-carry
G=$C/grain
log=$out/summary.txt
nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.max.sm --format=csv | tee -a $log
GRAIN_TEST_SMALL=1 $C/tests/grain_contract_tests --gtest_brief=1 > $out/contract-tests.log 2>&1
echo "contract tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $out/contract-tests.log | tr '\n' ' ')" | tee -a $log
for tool in memcheck racecheck; do
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 $C/tests/grain_contract_tests --gtest_brief=1 \
    --gtest_filter='*StagedCell*cuda*:*FieldFieldEvery*cuda*' > $out/$tool.log 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $out/$tool.log | tail -1)" | tee -a $log
done
for round in 1 2 3; do
  for q in 0 1; do
    GRAIN_TSK_QUADS=$q timeout 120 $G bench contract --backend cuda --kernel FieldFieldScalar,FieldFieldVector,FieldFieldTensor \
      --case Q1 --algorithm team-small-k --layout right --json $out/a-q$q-r$round.json > $out/a-q$q-r$round.txt 2>&1
    echo "a quads=$q round $round rc=$?" | tee -a $log
    grep -E "^FieldField.*team-small-k" $out/a-q$q-r$round.txt | head -6 | tee -a $log
  done
done
for round in 1 2; do
  for sa in 8x2 8x4 8x8 4x8 16x4 2x8; do
    s=${sa%x*}; a=${sa#*x}
    GRAIN_TSK_SLICES=$s GRAIN_TSK_LEFT_A=$a timeout 120 $G bench contract --backend cuda --kernel DataFieldScalar,DataFieldVector,DataFieldTensor \
      --case Q3,Q4 --algorithm flat,team-small-k --layout left --json $out/b-$sa-r$round.json > $out/b-$sa-r$round.txt 2>&1
    echo "b slices x inflight $sa round $round rc=$?" | tee -a $log
    grep -E "^DataField.*(flat|team-small-k) " $out/b-$sa-r$round.txt | head -24 | tee -a $log
  done
done
