#!/usr/bin/env bash
# Session 25, run 7: results stored in 16-byte packs from each row's first 16-byte boundary
# (any R): the mma tests, memcheck and racecheck over EveryBlockShapeLayoutRight, the tuning tests,
# and LayoutRight FieldField Q3 / Q4 float, mma beside blas and cuBLAS, two rounds.
set -u
out=${OUT:-gpu-results}
mkdir -p "$out"
bash scripts/device-unpack.sh
C=.device-carry
T=$C/tests/grain_contract_tests
GRAIN_TEST_SMALL=1 $T --gtest_brief=1 --gtest_filter='*Mma*:*Error*:*cuda*:*Cuda*' > "$out/tests-mma.log" 2>&1
echo "TEST contract (mma, errors, cuda) rc=$? $(grep -E '^\[  (PASSED|FAILED)  \]' "$out/tests-mma.log" | tr '\n' ' ')" | tee -a "$out/summary.txt"
$C/tests/grain_contract_tuning_tests --gtest_brief=1 > "$out/tests-tuning.log" 2>&1
echo "TEST tuning rc=$? $(grep -E '^\[  (PASSED|FAILED)  \]' "$out/tests-tuning.log" | tr '\n' ' ')" | tee -a "$out/summary.txt"
for tool in memcheck racecheck; do
  GRAIN_TEST_SMALL=1 timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 $T --gtest_brief=1 \
    --gtest_filter='ContractMma.EveryBlockShapeLayoutRight' > "$out/$tool-mma-right.log" 2>&1
  echo "SANITIZER $tool EveryBlockShapeLayoutRight rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/$tool-mma-right.log" | tail -1)" | tee -a "$out/summary.txt"
done
B="$C/grain bench contract --backend cuda --layout right --kernel FieldFieldScalar,FieldFieldVector,FieldFieldTensor --case Q3,Q4 --dtype float"
for round in 1 2; do
  $B --algorithm blas,mma,cublas-strided-batched --json "$out/right-$round.json" > "$out/right-$round.txt" 2>&1
  echo "bench right round $round rc=$?" | tee -a "$out/summary.txt"
done
grep -hE "FieldField.*(blas|mma|cublas)" "$out"/right-1.txt "$out"/right-2.txt | grep " ms " | tee -a "$out/summary.txt"
