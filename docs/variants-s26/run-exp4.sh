#!/usr/bin/env bash
# Session 26, run 4: Nsight Compute on team-small-k's cell tiles (run 3's binaries) at
# LayoutRight FieldFieldScalar / FieldFieldVector Q2 float, the default shape and larger budgets.
set -u
out=${OUT:-gpu-results}
mkdir -p "$out/r"
bash scripts/device-unpack.sh
G=.device-carry/grain
N="ncu --clock-control none --section SpeedOfLight --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section InstructionStats --section ComputeWorkloadAnalysis"
i=0
for spec in "FieldFieldScalar float" "FieldFieldVector float" "FieldFieldScalar float 0,0,0,98304" "FieldFieldVector float 2,0,1,49152"; do
  set -- $spec
  i=$((i+1))
  GRAIN_CELL_TILES="${3:-}" timeout 150 $N --kernel-name-base demangled --kernel-name regex:'CellTiles' --launch-skip 1 --launch-count 1 \
    $G bench contract --backend cuda --layout right --reps 2 --algorithm team-small-k \
    --kernel $1 --case Q2 --dtype $2 > "$out/r/ncu-$i.txt" 2>&1
  echo "== $spec rc=$?" | tee -a "$out/summary.txt"
  grep -E "Duration|Throughput|Registers Per|Achieved Occupancy|Theoretical Occupancy|Block Limit|Eligible|Issued Warp|Warp Cycles Per Issued|Stall|Bank|Dynamic Shared|Executed Ipc|Issue Slots" "$out/r/ncu-$i.txt" | head -60 | tee -a "$out/summary.txt"
done
cd "$out" && tar czf run4-ncu.tar.gz r && rm -rf r
