#!/usr/bin/env bash
# Session 28, run 1 (H100): team-small-k's cell tiles on LayoutRight FieldFieldVector / Tensor Q2
# float under forced shapes (GRAIN_CELL_TILES="cells,kc,groups,budget"; zeros keep the rule), two
# alternating rounds beside `blas` and cuBLAS, FieldFieldScalar Q2 float as the control; then
# every GPU test suite on HEAD's binaries (no sanitizers: the kernels are those run 5 of session 27
# checked).
set -u
out=${OUT:-gpu-results}
mkdir -p "$out/r"
bash scripts/device-unpack.sh
G=.device-carry/grain
nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv | tee -a "$out/summary.txt"
for round in 1 2; do
  for v in 0,0,0,0 7,0,2,0 7,0,4,0 5,0,0,0 4,0,0,0 4,0,4,0 3,0,0,0 3,0,4,0 2,0,0,0; do
    GRAIN_CELL_TILES=$v timeout 120 "$G" bench contract --backend cuda --layout right \
      --kernel FieldFieldScalar,FieldFieldVector,FieldFieldTensor --case Q2 --dtype float \
      --algorithm team-small-k,blas,cublas-strided-batched --json "$out/r/tiles-$v-$round.json" > "$out/r/tiles-$v-$round.txt" 2>&1
    echo "tiles $v round $round rc=$? $(python3 -c "
import json,sys
rows=json.load(open('$out/r/tiles-$v-$round.json'))['rows']
print(' '.join('%s:%s=%.3f%s' % (r['kernel'][10:], r['algorithm'][:6], r['ms'], '' if r['verified'] else '!') for r in rows))" 2>&1)" | tee -a "$out/summary.txt"
  done
done
GRAIN_TEST_SMALL=1 SANITIZE='^none$' bash scripts/device-run.sh tests
