#!/usr/bin/env bash
# Session 27, run 8 (on run 7's binaries, the pack loop unrolled by 2; level with the final code on
# these cases): FieldFieldVector / FieldFieldTensor Q2 float with the cell tiles under fewer cells
# a group and longer passes (GRAIN_CELL_TILES = cells,kc,groups,budget), beside cuBLAS. A lead for
# a later session; no rule changed.
set -u
out=${OUT:-gpu-results}
mkdir -p "$out/r"
bash scripts/device-unpack.sh
for v in - 1,0,0,0 2,0,0,0 3,0,0,0 4,0,0,0 -; do
  [ "$v" = - ] && v=""
  for k in FieldFieldVector FieldFieldTensor; do
    GRAIN_CELL_TILES="$v" .device-carry/grain bench contract --backend cuda --kernel $k --case Q2 --dtype float --layout right \
      --algorithm team-small-k,cublas-strided-batched --json "$out/r/q2.json" > /dev/null 2>&1
    python3 -c "import json,sys; [print('[%s]'%sys.argv[1],r['kernel'],r['algorithm'],'%.3f'%r['ms']) for r in json.load(open('$out/r/q2.json'))['rows']]" "$v" | tee -a "$out/summary.txt"
  done
done
