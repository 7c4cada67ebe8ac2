#!/usr/bin/env bash
# Session 13, run 9: each tile's stages shared between 2 blocks (split K, the halves added into the
# zeroed output) where that shortens the grid's last round: shape 9 (the new default, split where
# it pays) and 10 (split always), against run 8's numbers. The mma tests (every shape; the float
# accuracy test at shapes 1, 7, 8, 9, 10) and memcheck; LayoutLeft FieldField Q2-Q4 float.
set -u
out=${OUT:-exp9}
mkdir -p "$out/r"
C=.device-carry
G=$C/grain
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv
GRAIN_TEST_SMALL=1 $C/tests/grain_contract_tests --gtest_filter='*Mma*' > "$out/r/tests-mma.txt" 2>&1
echo "mma tests rc=$?"; grep -E "FAILED|PASSED|Failure|expected|shape" "$out/r/tests-mma.txt" | head -40
timeout 300 compute-sanitizer --tool memcheck --error-exitcode 9 $C/tests/grain_contract_tests \
  --gtest_filter='*Mma*EveryBlockShapeFloat*' > "$out/r/memcheck.txt" 2>&1
echo "memcheck rc=$? $(grep 'ERROR SUMMARY' "$out/r/memcheck.txt")"
K=FieldFieldScalar,FieldFieldVector,FieldFieldTensor
for round in 1 2; do
  for s in ${SHAPES:--1 8 10}; do
    algs=mma; [ $s = -1 ] && algs=mma,cublas-strided-batched
    GRAIN_MMA_SHAPE=$s "$G" bench contract --backend cuda --kernel $K --case ${CASES:-Q2,Q3,Q4} --dtype float --algorithm $algs \
      --json "$out/r/s$s-r$round.json" > "$out/r/s$s-r$round.txt" 2>&1
    echo "shape $s round $round rc=$?"
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
