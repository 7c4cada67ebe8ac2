#!/usr/bin/env bash
# Session 13, run 14: the wgmma kernel as a loop over work items (results in two halves inside the
# split buffers), and shape 11: persistent with TMA copies running along the block's items, so the
# next item's first stages land while the current results leave. The mma tests and memcheck;
# LayoutLeft FieldField Q3-Q4 float: the default (9), 11 and cuBLAS, two rounds.
set -u
out=${OUT:-exp14}
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
  for s in ${SHAPES:--1 11}; do
    algs=mma; [ $s = -1 ] && algs=mma,cublas-strided-batched
    GRAIN_MMA_SHAPE=$s "$G" bench contract --backend cuda --kernel $K --case ${CASES:-Q3,Q4} --dtype float --algorithm $algs \
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
