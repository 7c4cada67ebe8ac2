#!/usr/bin/env bash
# Session 27, run 1: team-small-k's cell tiles rebuilt (3 x 9 tiles, staged rows padded to odd
# 16-byte packs, 16-byte shared loads, passes of kc indices): the cell-tile tests and the
# FieldField tests beside them, memcheck and racecheck over the cell-tile tests, then LayoutRight
# FieldField Q2 with team-small-k under several shapes (GRAIN_CELL_TILES = cells,kc,groups,budget;
# "-" the rule's own) beside cuBLAS, and Nsight Compute over FieldFieldScalar / FieldFieldVector
# Q2 float.
set -u
out=${OUT:-gpu-results}
mkdir -p "$out/r"
bash scripts/device-unpack.sh
source docs/variants-s26/tiles-check.sh
show() { python3 -c "import json,sys; [print(sys.argv[2],r['kernel'],r['dtype'],r['algorithm'],'%.3f'%r['ms'],'%.3f'%r['roofline'],r['verified']) for r in json.load(open(sys.argv[1]))['rows'] if r['kernel'].startswith('FieldField')]" "$1" "$2" | tee -a "$out/summary.txt"; }
i=0
for v in ${VARIANTS:-- 0,0,0,114688 0,0,1,0 0,0,8,0 8,0,0,0 -}; do
  i=$((i+1))
  [ "$v" = - ] && v=""
  GRAIN_CELL_TILES="$v" .device-carry/grain bench contract --backend cuda --kernel all --case Q2 --dtype all --layout right \
    --algorithm team-small-k,cublas-strided-batched --json "$out/r/q2-$i.json" > "$out/r/q2-$i.txt" 2>&1
  echo "bench $i [$v] rc=$?" | tee -a "$out/summary.txt"
  show "$out/r/q2-$i.json" "[$v]"
done
N="ncu --clock-control none --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section InstructionStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis"
for k in FieldFieldScalar FieldFieldVector; do
  timeout 120 $N --kernel-name-base demangled --kernel-name regex:'CellTiles' --launch-skip 1 --launch-count 1 \
    .device-carry/grain bench contract --backend cuda --layout right --reps 2 --algorithm team-small-k \
    --kernel $k --case Q2 --dtype float > "$out/r/ncu-$k.txt" 2>&1
  echo "== ncu $k rc=$?" | tee -a "$out/summary.txt"
  grep -E "Duration|DRAM Throughput|Registers Per|Achieved Occupancy|Issue Slots Busy|Executed Instructions  |highest-utilized|Bank Conflicts|Stall" "$out/r/ncu-$k.txt" | head -30 | tee -a "$out/summary.txt"
done
cd "$out" && tar czf ${TAG:-run1}-data.tar.gz r && rm -rf r
