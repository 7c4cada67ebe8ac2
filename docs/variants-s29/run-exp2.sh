#!/usr/bin/env bash
# Session 29, run 2 (H100): Nsight Compute over the rows kernel (FieldFieldScalar / FieldFieldVector
# Q4 double, the default 128 x 128 configuration and 8 warps of 64 x 32), then the temporary variants
# GRAIN_TMP_ROWS 6-11 (L2 256-byte prefetch; 64 x 32 warp tiles; 64 x 64 tiles of 2 warps) beside
# the default and cuBLAS, two alternating rounds.
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
prof ffs-base FieldFieldScalar
prof ffv-base FieldFieldVector
prof ffs-tmp7 FieldFieldScalar GRAIN_TMP_ROWS=7
cp "$out"/r/ncu-*.txt "$out/" 2>/dev/null
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
  run base-$round mma,cublas-strided-batched
  for v in 3 6 7 8 9 10 11; do run tmp$v-$round mma GRAIN_TMP_ROWS=$v; done
done
tar czf "$out/results.tar.gz" -C "$out" r && rm -rf "$out/r"
