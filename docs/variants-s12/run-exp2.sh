#!/usr/bin/env bash
# Session 12, run 2: larger per-cell tiles for the copied `mma` kernel, fewer re-reads of each
# staged row from L2 (a cell's left rows are read once per 32-column tile, its right rows once
# per 32-row tile: 4x at Q4, 2x at Q3). GRAIN_MMA_SHAPE: 1 (default: 8 cells x 32 x 32), 2 (4
# cells x 64 x 64, no L2 prefetch), 8 (4 cells x 64 x 64 with the .L2::128B prefetch), 9 (8 cells
# x 64 x 32, prefetch). LayoutLeft FieldField Q2-Q4, both types, cuBLAS beside; two rounds.
set -u
out=${OUT:-exp2}
mkdir -p "$out/r"
G=.device-carry/grain
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv | tee "$out/summary.txt"
K=FieldFieldScalar,FieldFieldVector,FieldFieldTensor
for round in 1 2; do
  for shape in 1 2 8 9; do
    algs=mma; [ $shape = 1 ] && algs=mma,cublas-strided-batched
    GRAIN_MMA_SHAPE=$shape "$G" bench contract --backend cuda --kernel $K --case Q2,Q3,Q4 --dtype all --algorithm $algs \
      --json "$out/r/s$shape-r$round.json" > "$out/r/s$shape-r$round.txt" 2>&1
    echo "shape $shape round $round rc=$?" | tee -a "$out/summary.txt"
  done
done
python3 - "$out/r" <<'PY' | tee -a "$out/summary.txt"
import json, sys, glob, os, collections
t = collections.defaultdict(dict)
for f in sorted(glob.glob(sys.argv[1] + '/*.json')):
    tag = os.path.basename(f)[:-5]
    for r in json.load(open(f))['rows']:
        t[(r['kernel'], r['case'], r['dtype'], r['C'])][tag + ':' + r['algorithm'][:5]] = r['ms']
for k in sorted(t):
    print(*k, ' '.join(f'{a}={v:.3f}' for a, v in sorted(t[k].items())))
PY
tar czf "$out/results.tar.gz" -C "$out" r && rm -rf "$out/r"
