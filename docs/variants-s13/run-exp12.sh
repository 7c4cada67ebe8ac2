#!/usr/bin/env bash
# Session 13, run 12: TMA copies for C = 2 (mod 4) too, through two row classes per operand (even
# and odd rows, 16-byte strides each); FieldFieldVector Q3 float (C = 10922) moves from register
# loads to it. The mma tests (every shape, now also C = 42 with 46 right fields: the row classes)
# and memcheck; LayoutLeft FieldField Q2-Q4 float: the default choice and cuBLAS, 8 (register
# loads) for comparison, two rounds.
set -u
out=${OUT:-exp12}
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
  for s in ${SHAPES:--1 8}; do
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
