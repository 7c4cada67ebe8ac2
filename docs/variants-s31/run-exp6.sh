#!/usr/bin/env bash
# Session 31, run 6 (H100): what configuration 15's results cost. Probe builds of 15 (not kept,
# `run6-probes.diff`): 18 skips the global stores of the results (the passes through shared
# memory stay), 19 skips the whole result epilogue; their rows are not verified (no output).
# FieldFieldScalar / FieldFieldTensor Q3 double, LayoutLeft, two rounds, cuBLAS beside.
set -u
out=${OUT:-gpu-results}
mkdir -p "$out/r"
xz -d -f .device-carry/grain.xz && chmod +x .device-carry/grain
G=.device-carry/grain
for round in 1 2; do
  for v in 15 18 19; do
    GRAIN_MMA_SHAPE=$v timeout 100 "$G" bench contract --backend cuda --layout left --dtype double \
      --kernel FieldFieldScalar,FieldFieldTensor --case Q3 --algorithm mma,cublas-strided-batched \
      --json "$out/r/s$v-$round.json" > "$out/r/s$v-$round.txt" 2>&1
    echo "s$v round $round rc=$? $(python3 -c "
import json,sys
d=json.load(open('$out/r/s$v-$round.json'))
print(' '.join(f\"{r['kernel'][10:]}:{r['algorithm'][:6]}:{r['ms']:.3f}\" for r in d['rows']))")" >> "$out/summary.txt"
  done
done
tar czf "$out/results.tar.gz" -C "$out" r && rm -rf "$out/r"
