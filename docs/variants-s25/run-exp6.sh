#!/usr/bin/env bash
# Session 25, run 6 (and, without .device-carry/mutant/, runs 7 and 8): (1) the LayoutRight mma
# test against a mutant build whose raw reads ignore
# the TMA's 32-byte swizzle (.device-carry/mutant/, built from the final code with
# `off ^= (off >> 3) & 16;` removed): it must fail; (2) on the final binaries the mma tests,
# memcheck and racecheck over EveryBlockShapeLayoutRight (results in 16-byte packs of fields now
# too), the tuning tests; (3) LayoutRight FieldField Q3 / Q4 float, mma beside blas and cuBLAS,
# two rounds.
set -u
out=${OUT:-gpu-results}
mkdir -p "$out"
bash scripts/device-unpack.sh
C=.device-carry
[ -x $C/mutant/grain_contract_tests ] && GRAIN_TEST_SMALL=1 $C/mutant/grain_contract_tests --gtest_brief=1 --gtest_filter='ContractMma.EveryBlockShapeLayoutRight' > "$out/mutant.log" 2>&1
[ -f "$out/mutant.log" ] && echo "MUTANT (swizzle ignored) rc=$? $(grep -cE 'Failure' "$out/mutant.log") failures; $(grep -E '^\[  (PASSED|FAILED)  \]' "$out/mutant.log" | tr '\n' ' ')" | tee -a "$out/summary.txt"
[ -f "$out/mutant.log" ] && grep -E "mma shape" "$out/mutant.log" | head -8 | tee -a "$out/summary.txt"
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
