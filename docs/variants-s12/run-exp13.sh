#!/usr/bin/env bash
# Session 12, run 13: packed double `mma` (GRAIN_MMA_SHAPE=5) against the default copied kernel
# and cuBLAS where each cell is one 32 x 32 tile (Q2, 27 x 27), three rounds alternating: session
# 11's run 3 had packed 3% ahead at FieldFieldTensor Q2 double (K = 243) and 3% behind at
# FieldFieldScalar Q2 (K = 27).
set -u
out=${OUT:-exp13}
mkdir -p "$out/r"
G=.device-carry/grain
for round in 1 2 3; do
  for shape in default 5; do
    if [ $shape = default ]; then unset GRAIN_MMA_SHAPE; algs=mma,cublas-strided-batched; else export GRAIN_MMA_SHAPE=$shape; algs=mma; fi
    "$G" bench contract --backend cuda --layout left --kernel FieldFieldScalar,FieldFieldVector,FieldFieldTensor \
      --case Q2 --dtype double --algorithm $algs --json "$out/r/s$shape-r$round.json" > /dev/null 2>&1
    echo "shape $shape round $round rc=$?"
  done
done
unset GRAIN_MMA_SHAPE
python3 - "$out/r" <<'PY'
import json, sys, glob, os, collections
t = collections.defaultdict(lambda: collections.defaultdict(list))
for f in sorted(glob.glob(sys.argv[1] + '/*.json')):
    tag = os.path.basename(f).split('-')[0]
    for r in json.load(open(f))['rows']:
        t[(r['kernel'], r['case'], r['dtype'], r['C'])][tag + ':' + r['algorithm'][:5] + ('' if r['verified'] else '!U')].append(r['ms'])
for k in sorted(t):
    print(*k, ' '.join(f'{a}=' + '/'.join(f'{x:.3f}' for x in v) for a, v in sorted(t[k].items())))
PY
tar czf "$out/results.tar.gz" -C "$out" r && rm -rf "$out/r"
