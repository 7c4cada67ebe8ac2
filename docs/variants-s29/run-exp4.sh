#!/usr/bin/env bash
# Session 29, run 4 (H100): the 64 x 64 whole-row-store configuration (GRAIN_TMP_ROWS=13) against its
# neighbours: 18 (L2 prefetch 128 bytes), 19 (3 stages: 3 blocks an SM), 20 (8 indices a stage, 6
# stages), 21 (2 stages), 22 (5 stages), 13 with one K split; beside cuBLAS, two rounds.
set -u
out=${OUT:-gpu-results}
mkdir -p "$out/r"
bash scripts/device-unpack.sh
G=.device-carry/grain
prof() {  # name, kernel, env...
  local name=$1 kernel=$2; shift 2
  env "$@" timeout 150 ncu --clock-control none -k regex:contract_mma_rows -c 1 --section SpeedOfLight \
    --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis --section WarpStateStats \
    --section SchedulerStats --section Occupancy --section LaunchStats \
    "$G" bench contract --backend cuda --layout right --dtype double --kernel $kernel --case Q4 \
    --algorithm mma --reps 1 > "$out/r/ncu-$name.txt" 2>&1
  echo "ncu $name rc=$?" >> "$out/summary.txt"
}

run() {  # name, algorithms, env...
  local name=$1 algs=$2; shift 2
  env "$@" timeout 120 "$G" bench contract --backend cuda --layout right --dtype double \
    --kernel FieldFieldScalar,FieldFieldVector,FieldFieldTensor --case Q3,Q4 --algorithm "$algs" \
    --json "$out/r/$name.json" > "$out/r/$name.txt" 2>&1
  echo "$name rc=$?" >> "$out/summary.txt"
  python3 - "$out/r/$name.json" "$name" >> "$out/summary.txt" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["rows"]:
    print(f"{sys.argv[2]:10s} {r['kernel']:17s} {r['case']} {r['algorithm']:24s} {r['ms']:.3f} {r['roofline']:.3f} {'ok' if r['verified'] else 'NOT VERIFIED'}")
PY
}
for round in 1 2; do
  run cublas-$round cublas-strided-batched
  run s1-$round mma GRAIN_TMP_ROWS=13 GRAIN_MMA_SPLIT=1
  for v in 13 18 19 20 21 22; do run tmp$v-$round mma GRAIN_TMP_ROWS=$v; done
done
tar czf "$out/results.tar.gz" -C "$out" r && rm -rf "$out/r"
