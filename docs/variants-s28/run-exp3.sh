#!/usr/bin/env bash
# Session 28, run 3 (H100): LayoutRight FieldFieldVector / Tensor Q2 float (K = 81, 243) on team-small-k's cell
# tiles with 1-2 cells a team and passes of 27 indices (GRAIN_CELL_TILES="cells,kc,groups,budget"; zeros keep the rule),
# two alternating rounds beside cuBLAS. File names without commas (the device tool leaves those out).
set -u
out=${OUT:-gpu-results}
mkdir -p "$out/r"
bash scripts/device-unpack.sh
G=.device-carry/grain
for round in 1 2; do
  for v in 0,0,0,0 2,27,0,0 2,27,2,0 2,27,4,0 1,27,0,0 1,27,4,0 3,27,0,0 4,27,0,0; do
    GRAIN_CELL_TILES=$v timeout 120 "$G" bench contract --backend cuda --layout right \
      --kernel FieldFieldVector,FieldFieldTensor --case Q2 --dtype float \
      --algorithm team-small-k,cublas-strided-batched --json "$out/r/s-${v//,/_}-$round.json" > "$out/r/s-${v//,/_}-$round.txt" 2>&1
    echo "tiles $v round $round rc=$? $(python3 -c "
import json,sys
rows=json.load(open('$out/r/s-${v//,/_}-$round.json'))['rows']
print(' '.join('%s:%s=%.3f%s' % (r['kernel'][10:], r['algorithm'][:6], r['ms'], '' if r['verified'] else '!') for r in rows))" 2>&1)" | tee -a "$out/summary.txt"
  done
done
