#!/usr/bin/env bash
# Session 28, run 2 (H100): LayoutRight FieldFieldScalar Q2 float (K = 27) on team-small-k's cell
# tiles with fewer cells a team (GRAIN_CELL_TILES="cells,kc,groups,budget"; zeros keep the rule),
# three alternating rounds beside cuBLAS; double as well.
set -u
out=${OUT:-gpu-results}
mkdir -p "$out/r"
bash scripts/device-unpack.sh
G=.device-carry/grain
for round in 1 2 3; do
  for v in 0,0,0,0 1,0,0,0 2,0,0,0 2,0,2,0 2,0,8,0 1,0,8,0 3,0,0,0; do
    GRAIN_CELL_TILES=$v timeout 120 "$G" bench contract --backend cuda --layout right \
      --kernel FieldFieldScalar --case Q2 --dtype all \
      --algorithm team-small-k,cublas-strided-batched --json "$out/r/s-${v//,/_}-$round.json" > "$out/r/s-${v//,/_}-$round.txt" 2>&1
    echo "tiles $v round $round rc=$? $(python3 -c "
import json,sys
rows=json.load(open('$out/r/s-${v//,/_}-$round.json'))['rows']
print(' '.join('%s:%s=%.3f%s' % (r['dtype'], r['algorithm'][:6], r['ms'], '' if r['verified'] else '!') for r in rows))" 2>&1)" | tee -a "$out/summary.txt"
  done
done
