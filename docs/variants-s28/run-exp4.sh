#!/usr/bin/env bash
# Session 28, run 4 (H100), on the build with the 2-cell rule for team-small-k's cell tiles:
#  1. LayoutLeft DataFieldTensor Q3 float (flat, 0.849-0.857 of the copy floor in sessions 24-27)
#     under temporary knobs: 4-cell packs with 2, 4 (the rule) or 8 steps of K ahead
#     (GRAIN_TMP_FLAT_AHEAD), 2-cell packs (GRAIN_TMP_FLAT_PACK=2), unpacked threads with 8 partial
#     sums or field pairs (GRAIN_TMP_FLAT_PACK=0, GRAIN_TMP_FLAT_PAIRS=0 / 1); three alternating
#     rounds; DataFieldTensor Q3 double and DataFieldVector Q3 float beside them;
#  2. LayoutRight FieldField Q2 float, team-small-k (the new rule) beside blas and cuBLAS, 2 rounds;
#  3. memcheck and racecheck over the cell-tile tests, every test suite.
set -u
out=${OUT:-gpu-results}
mkdir -p "$out/r"
bash scripts/device-unpack.sh
G=.device-carry/grain
nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv | tee -a "$out/summary.txt"
summ() {
  python3 -c "
import json,sys
rows=json.load(open('$1'))['rows']
print(' '.join('%s%s-%s:%s=%.4f/%.3f%s' % (r['kernel'][:4], r['kernel'][-6:], r['case'], r['dtype'][0], r['ms'], r['roofline'], '' if r['verified'] else '!') for r in rows), 'copy', round(json.load(open('$1'))['copy_GBps']))" 2>&1
}
for round in 1 2 3; do
  for v in base a2 a8 p2 p2a8 p0 p0s8; do
    envs=""
    case $v in
      a2) envs="GRAIN_TMP_FLAT_AHEAD=2" ;; a8) envs="GRAIN_TMP_FLAT_AHEAD=8" ;;
      p2) envs="GRAIN_TMP_FLAT_PACK=2" ;; p2a8) envs="GRAIN_TMP_FLAT_PACK=2 GRAIN_TMP_FLAT_AHEAD=8" ;;
      p0) envs="GRAIN_TMP_FLAT_PACK=0" ;; p0s8) envs="GRAIN_TMP_FLAT_PACK=0 GRAIN_TMP_FLAT_PAIRS=0" ;;
    esac
    env $envs timeout 120 "$G" bench contract --backend cuda --layout left \
      --kernel DataFieldTensor,DataFieldVector --case Q3 --dtype all --algorithm flat \
      --json "$out/r/dft-$v-$round.json" > "$out/r/dft-$v-$round.txt" 2>&1
    echo "flat $v round $round rc=$? $(summ "$out/r/dft-$v-$round.json")" | tee -a "$out/summary.txt"
  done
done
for round in 1 2; do
  timeout 120 "$G" bench contract --backend cuda --layout right --kernel FieldFieldScalar,FieldFieldVector,FieldFieldTensor \
    --case Q2 --dtype float --algorithm team-small-k,blas,cublas-strided-batched --json "$out/r/ffq2-$round.json" > "$out/r/ffq2-$round.txt" 2>&1
  echo "ff Q2 round $round rc=$? $(python3 -c "
import json
rows=json.load(open('$out/r/ffq2-$round.json'))['rows']
print(' '.join('%s:%s=%.3f%s%s' % (r['kernel'][10:], r['algorithm'][:6], r['ms'], '' if r['verified'] else '!', '*' if r['selected'] else '') for r in rows))" 2>&1)" | tee -a "$out/summary.txt"
done
for tool in memcheck racecheck; do
  GRAIN_TEST_SMALL=1 timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 .device-carry/tests/grain_contract_tests \
    --gtest_brief=1 --gtest_filter='*cuda*StagedCellTiles*' > "$out/r/$tool-tiles.log" 2>&1
  echo "SANITIZER $tool StagedCellTiles rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/r/$tool-tiles.log" | tail -1)" \
    | tee -a "$out/summary.txt"
done
GRAIN_TEST_SMALL=1 SANITIZE='^none$' bash scripts/device-run.sh tests
