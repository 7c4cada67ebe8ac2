#!/usr/bin/env bash
# Session 13, run 16: the TMA boxes' L2 promotion (CU_TENSOR_MAP_L2_PROMOTION_*: none, 64, 128 =
# the default so far, 256 bytes; GRAIN_WGMMA_L2PROMO, an experiment knob) on the suite's TMA cases
# (LayoutLeft FieldFieldScalar Q3, FieldFieldTensor Q3 / Q4 float), two rounds, cuBLAS beside.
set -u
out=${OUT:-exp16}
mkdir -p "$out/r"
G=.device-carry/grain
for round in 1 2; do
  for v in 0 64 128 256; do
    algs=mma; [ $v = 128 ] && algs=mma,cublas-strided-batched
    GRAIN_WGMMA_L2PROMO=$v "$G" bench contract --backend cuda --kernel FieldFieldScalar,FieldFieldTensor --case Q3,Q4 \
      --dtype float --algorithm $algs --json "$out/r/p$v-r$round.json" > "$out/r/p$v-r$round.txt" 2>&1
    echo "promotion $v round $round rc=$?"
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
