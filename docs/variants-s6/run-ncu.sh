#!/usr/bin/env bash
# Session 6, run 3: Nsight Compute on mma configurations (FieldFieldScalar Q4 double, Q3 double).
set -u
o=${OUT:-/tmp/out}; mkdir -p $o
G=.device-carry/grain
N="ncu --clock-control none --section SpeedOfLight --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section WarpStateStats --section SchedulerStats"
B="$G bench contract --backend cuda --reps 1 --quiet --no-verify --algorithm mma"
for spec in "1 Q4 double" "2 Q4 double" "1 Q3 double" "2 Q3 double" "1 Q4 float"; do
  set -- $spec
  GRAIN_MMA_SHAPE=$1 timeout 120 $N --kernel-name-base demangled --kernel-name regex:contract_mma --launch-skip 1 --launch-count 1 \
    $B --kernel FieldFieldScalar --case $2 --dtype $3 > $o/ncu-s$1-$2-$3.txt 2>&1
  echo "== shape $1 $2 $3 rc=$?"
  grep -E "Duration|DRAM Throughput|L2 Cache Throughput|L1/TEX Cache Throughput|Compute \(SM\)|L2 Hit|L1/TEX Hit|Achieved Occ|Theoretical Occ|Eligible Warps|Issued Warp|Stall|Shared Memory Configuration Size|Dynamic Shared|Mem Pipes|Max Bandwidth" $o/ncu-s$1-$2-$3.txt | head -30
done
