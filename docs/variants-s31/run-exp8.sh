#!/usr/bin/env bash
# Session 31, run 8 (H100): configuration 15 with its results stored by the TMA (18: each pass a
# 16-cell x 32-column x 8-row box from one of two 32 KB buffers, 128-byte swizzle) against 15,
# on LayoutLeft FieldField Q2-Q4 double beside cuBLAS, two rounds. First the ContractMma
# tests (every configuration), racecheck and memcheck over the double every-shape test.
set -u
out=${OUT:-gpu-results}
mkdir -p "$out/r"
bash scripts/device-unpack.sh
G=.device-carry/grain
T=.device-carry/tests/grain_contract_tests
$T --gtest_brief=1 --gtest_filter='ContractMma.*' > "$out/r/mma-tests.log" 2>&1
echo "TEST ContractMma rc=$? $(grep -E '^\[  (PASSED|FAILED)  \]' "$out/r/mma-tests.log" | tr '\n' ' ')" >> "$out/summary.txt"
timeout 240 compute-sanitizer --tool racecheck --error-exitcode 9 $T --gtest_filter='ContractMma.EveryBlockShapeDouble' \
  > "$out/r/racecheck.log" 2>&1
echo "SANITIZER racecheck rc=$? $(grep -E 'RACECHECK SUMMARY' "$out/r/racecheck.log" | tail -1)" >> "$out/summary.txt"
timeout 240 compute-sanitizer --tool memcheck --error-exitcode 9 $T --gtest_filter='ContractMma.EveryBlockShapeDouble' \
  > "$out/r/memcheck.log" 2>&1
echo "SANITIZER memcheck rc=$? $(grep -E 'ERROR SUMMARY' "$out/r/memcheck.log" | tail -1)" >> "$out/summary.txt"
grep -E 'FAILED|Failure|error' "$out/r/mma-tests.log" | head -20 >> "$out/summary.txt"
for round in 1 2; do
  for v in 15 18; do
    GRAIN_MMA_SHAPE=$v timeout 100 "$G" bench contract --backend cuda --layout left --dtype double \
      --kernel FieldFieldScalar,FieldFieldVector,FieldFieldTensor --case Q2,Q3,Q4 --algorithm mma,cublas-strided-batched \
      --json "$out/r/s$v-$round.json" > "$out/r/s$v-$round.txt" 2>&1
    echo "s$v round $round rc=$? $(python3 -c "
import json,sys
d=json.load(open('$out/r/s$v-$round.json'))
print(' '.join(f\"{r['kernel'][10:]}{r['case']}:{r['algorithm'][:6]}:{r['ms']:.3f}{'' if r['verified'] else '!'}\" for r in d['rows']))")" >> "$out/summary.txt"
  done
done
tar czf "$out/results.tar.gz" -C "$out" r && rm -rf "$out/r"
