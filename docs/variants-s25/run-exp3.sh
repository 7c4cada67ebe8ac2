#!/usr/bin/env bash
# Session 25, run 3: `mma` in LayoutRight (float: the warpgroup kernel with TMA row copies; the
# copied kernel elsewhere). The mma tests (and memcheck / racecheck over them), then LayoutRight
# FieldField Q2-Q4 float: blas, mma (its default and 2 TMA stages in flight, shape 11) beside
# cuBLAS, two alternating rounds.
set -u
out=${OUT:-gpu-results}
mkdir -p "$out"
bash scripts/device-unpack.sh
C=.device-carry
T=$C/tests/grain_contract_tests
GRAIN_TEST_SMALL=1 $T --gtest_brief=1 --gtest_filter='*Mma*:*Error*:*cuda*:*Cuda*' > "$out/tests-mma.log" 2>&1
echo "TEST contract (mma, errors, cuda) rc=$? $(grep -E '^\[  (PASSED|FAILED)  \]' "$out/tests-mma.log" | tr '\n' ' ')" | tee -a "$out/summary.txt"
grep -E "FAILED|Failure|mma float" "$out/tests-mma.log" | head -30 | tee -a "$out/summary.txt"
for tool in memcheck racecheck; do
  GRAIN_TEST_SMALL=1 timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 $T --gtest_brief=1 \
    --gtest_filter='ContractMma.EveryBlockShapeLayoutRight' > "$out/$tool-mma-right.log" 2>&1
  echo "SANITIZER $tool EveryBlockShapeLayoutRight rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/$tool-mma-right.log" | tail -1)" | tee -a "$out/summary.txt"
done
B="$C/grain bench contract --backend cuda --layout right --kernel FieldFieldScalar,FieldFieldVector,FieldFieldTensor --case Q2,Q3,Q4 --dtype float"
for round in 1 2; do
  $B --algorithm blas,mma,cublas-strided-batched --json "$out/right-$round.json" > "$out/right-$round.txt" 2>&1
  echo "bench right round $round rc=$?" | tee -a "$out/summary.txt"
  GRAIN_MMA_SHAPE=11 $B --algorithm mma --json "$out/right-s11-$round.json" > "$out/right-s11-$round.txt" 2>&1
  echo "bench right shape 11 round $round rc=$?" | tee -a "$out/summary.txt"
done
grep -E "FieldField.*(blas|mma|cublas)" "$out"/right-1.txt | head -40 | tee -a "$out/summary.txt"
