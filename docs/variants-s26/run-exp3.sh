#!/usr/bin/env bash
# Session 26, run 3: team-small-k's cell tiles, double-buffered, outputs through scratch: the
# tests (memcheck and racecheck over the new one), then LayoutRight FieldField Q2 with
# team-small-k under several shapes (GRAIN_CELL_TILES = cells,kc,groups,budget) beside cuBLAS.
set -u
out=${OUT:-gpu-results}
mkdir -p "$out/r"
bash scripts/device-unpack.sh
source "$(dirname "$0")/tiles-check.sh"
show() { python3 -c "import json,sys; [print(sys.argv[2],r['kernel'],r['dtype'],r['algorithm'],'%.3f'%r['ms'],'%.3f'%r['roofline'],r['verified']) for r in json.load(open(sys.argv[1]))['rows'] if r['kernel'].startswith('FieldField')]" "$1" "$2" | tee -a "$out/summary.txt"; }
i=0
for v in "" "0,0,0,98304" "0,0,8,0" "0,0,1,0" "2,0,0,98304" "8,0,0,0" "0,0,0,24576" ""; do
  i=$((i+1))
  GRAIN_CELL_TILES="$v" .device-carry/grain bench contract --backend cuda --kernel all --case Q2 --dtype all --layout right \
    --algorithm team-small-k,cublas-strided-batched --json "$out/r/q2-$i.json" > "$out/r/q2-$i.txt" 2>&1
  echo "bench $i [$v] rc=$?" | tee -a "$out/summary.txt"
  show "$out/r/q2-$i.json" "[$v]"
done
cd "$out" && tar czf run3-data.tar.gz r && rm -rf r
