#!/usr/bin/env bash
# Session 26, run 2: team-small-k's cell tiles (LayoutRight FieldField Q2) on the GPU: the new
# and the FieldField tests (memcheck and racecheck over the new one), then LayoutRight Q2 with
# team-small-k beside blas and cuBLAS, two rounds.
set -u
out=${OUT:-gpu-results}
mkdir -p "$out/r"
bash scripts/device-unpack.sh
source "$(dirname "$0")/tiles-check.sh"
for round in 1 2; do
  .device-carry/grain bench contract --backend cuda --kernel all --case Q2 --dtype all --layout right \
    --algorithm team-small-k,blas,cublas-strided-batched --json "$out/r/q2-$round.json" > "$out/r/q2-$round.txt" 2>&1
  echo "bench round $round rc=$?" | tee -a "$out/summary.txt"
  python3 -c "import json,sys; [print(r['kernel'],r['case'],r['dtype'],r['algorithm'],'%.3f'%r['ms'],'%.3f'%r['roofline'],r['verified']) for r in json.load(open(sys.argv[1]))['rows'] if r['kernel'].startswith('FieldField')]" "$out/r/q2-$round.json" | tee -a "$out/summary.txt"
done
cd "$out" && tar czf run2-data.tar.gz r && rm -rf r
