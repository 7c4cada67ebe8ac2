#!/usr/bin/env bash
# Session 14, run 1: the wgmma kernel's new stagers. LoadStager with lanes on 8-cell runs (V = 1 / 2:
# shape 8 on C not a multiple of 4); ClassStager (TMA over 16 row / index classes, 12-cell boxes,
# C not a multiple of 4: the default, shape 9); TmaStager with 3 stages in flight (GRAIN_WGMMA_LEAD=3)
# or 2 raw buffers both in flight (=2) against 3 buffers, 2 in flight (default). The mma tests
# (every shape), memcheck and racecheck; LayoutLeft FieldField Q2-Q4 float, two rounds.
set -u
out=${OUT:-exp1}
mkdir -p "$out/r"
C=.device-carry
G=$C/grain
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv
GRAIN_TEST_SMALL=1 $C/tests/grain_contract_tests --gtest_filter='*Mma*' > "$out/r/tests-mma.txt" 2>&1
echo "mma tests rc=$?"; grep -E "FAILED|PASSED|Failure|expected|shape" "$out/r/tests-mma.txt" | head -40
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $C/tests/grain_contract_tests \
  --gtest_filter='*Mma*EveryBlockShapeFloat*' > "$out/r/memcheck.txt" 2>&1
echo "memcheck rc=$? $(grep 'ERROR SUMMARY' "$out/r/memcheck.txt")"
GRAIN_MMA_SHAPE=9 timeout 200 compute-sanitizer --tool racecheck --error-exitcode 9 $C/tests/grain_contract_tests \
  --gtest_filter='*Mma*EveryBlockShapeFloat*' > "$out/r/racecheck.txt" 2>&1
echo "racecheck rc=$? $(grep -E 'RACECHECK SUMMARY|hazard' "$out/r/racecheck.txt" | head -3)"
K=FieldFieldScalar,FieldFieldVector,FieldFieldTensor
for round in 1 2; do
  for v in "-1 0" "8 0" "9 0" "-1 3" "-1 2"; do
    set -- $v; s=$1; lead=$2
    algs=mma; [ $s = -1 ] && [ $lead = 0 ] && algs=mma,cublas-strided-batched
    GRAIN_WGMMA_LEAD=$lead GRAIN_MMA_SHAPE=$s "$G" bench contract --backend cuda --kernel $K --case ${CASES:-Q2,Q3,Q4} \
      --dtype float --algorithm $algs --json "$out/r/s$s-l$lead-r$round.json" > "$out/r/s$s-l$lead-r$round.txt" 2>&1
    echo "shape $s lead $lead round $round rc=$?"
  done
done
python3 - "$out/r" <<'PY'
import json, sys, glob, os, collections
t = collections.defaultdict(dict)
for f in sorted(glob.glob(sys.argv[1] + '/*.json')):
    tag = os.path.basename(f)[:-5]
    for r in json.load(open(f))['rows']:
        t[(r['kernel'], r['case'], r['dtype'], r['C'])][tag + ':' + r['algorithm'][:5] + ('' if r['verified'] else '!U')] = r['ms']
for k in sorted(t):
    print(*k, ' '.join(f'{a}={v:.3f}' for a, v in sorted(t[k].items())))
PY
tar czf "$out/results.tar.gz" -C "$out" r && rm -rf "$out/r"
