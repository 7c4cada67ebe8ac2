#!/usr/bin/env bash
# Session 14, run 5: the packed mma kernel (shapes 5-7) for float cells packed by 2 only
# (C = 2 mod 4: each 16-byte staging unit copied as two 8-byte halves). The mma tests (every
# shape: C = 42 now runs 5-7 in that form), memcheck and racecheck; FieldFieldVector Q2 / Q3
# float (C = 61370 / 10922) with the default (Q2: 7 in halves, was 1; Q3: the warpgroup kernel),
# 1 and 7, two rounds; and the float FieldField Q2-Q4 suite cases beside cuBLAS.
set -u
out=${OUT:-exp5}
mkdir -p "$out/r"
C=.device-carry
G=$C/grain
GRAIN_TEST_SMALL=1 timeout 120 $C/tests/grain_contract_tests --gtest_filter='*Mma*:*Cuda*' > "$out/r/tests.txt" 2>&1
echo "mma/cuda tests rc=$?"; grep -E "FAILED|PASSED|Failure|expected" "$out/r/tests.txt" | head -20
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $C/tests/grain_contract_tests \
  --gtest_filter='*Mma*EveryBlockShapeFloat*' > "$out/r/memcheck.txt" 2>&1
echo "memcheck rc=$? $(grep 'ERROR SUMMARY' "$out/r/memcheck.txt")"
GRAIN_MMA_SHAPE=7 timeout 200 compute-sanitizer --tool racecheck --error-exitcode 9 $C/tests/grain_contract_tests \
  --gtest_filter='*Mma*EveryBlockShapeFloat*' > "$out/r/racecheck.txt" 2>&1
echo "racecheck rc=$? $(grep -E 'RACECHECK SUMMARY' "$out/r/racecheck.txt" | head -3)"
for round in 1 2; do
  for s in -1 1 7; do
    algs=mma; [ $s = -1 ] && algs=mma,cublas-strided-batched
    GRAIN_MMA_SHAPE=$s timeout 60 "$G" bench contract --backend cuda --layout left --kernel FieldFieldVector --case Q2,Q3 \
      --dtype float --algorithm $algs --json "$out/r/s$s-r$round.json" > "$out/r/s$s-r$round.txt" 2>&1
    echo "shape $s round $round rc=$?"
  done
done
timeout 120 "$G" bench contract --backend cuda --layout left --kernel FieldFieldScalar,FieldFieldVector,FieldFieldTensor \
  --case Q2,Q3,Q4 --dtype float --algorithm mma,cublas-strided-batched --json "$out/r/all-float.json" > "$out/r/all-float.txt" 2>&1
echo "suite float rc=$?"
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
