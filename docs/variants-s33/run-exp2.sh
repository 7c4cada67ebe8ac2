#!/usr/bin/env bash
# Session 33, run 2 (H100): every GPU suite; `grain bench core` and `grain bench paper` on the GPU
# after their split into C++ / CUDA files; LayoutRight DataFieldTensor Q1 double in 4 rounds
# (the one bandwidth-bound row below 0.85 in session 32's run 4).
set -u
out=${OUT:-gpu-results}
GRAIN_TEST_SMALL=1 SANITIZE='^none$' bash scripts/device-run.sh tests > /dev/null 2>&1
G=.device-carry/grain
$G bench core --backend cuda --gpu-n 67108864 --reps 10 > "$out/core.txt" 2>&1; echo "bench core rc=$?" >> "$out/summary.txt"
$G bench paper --backend cuda --max-n 1000000 --reps 5 --json "$out/paper.json" > "$out/paper.txt" 2>&1; echo "bench paper rc=$?" >> "$out/summary.txt"
for round in 1 2 3 4; do
  $G bench contract --backend cuda --layout right --kernel DataFieldTensor,DataFieldScalar --case Q1,Q4 --dtype all \
    --algorithm auto,flat,team-small-k --json "$out/dft-q1-$round.json" > "$out/dft-q1-$round.txt" 2>&1
  echo "dft round $round rc=$?" >> "$out/summary.txt"
done
cat "$out/summary.txt"; grep -A8 'grain / hand' "$out/core.txt" "$out/paper.txt"
