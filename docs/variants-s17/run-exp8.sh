#!/usr/bin/env bash
# Session 17, run 8: Nsight Compute on `flat` at LayoutLeft DataFieldVector Q4, float (0.80 of the
# floor) against double (0.95), and the SASS source page with stall samples for float.
set -u
out=${OUT:-exp8}
mkdir -p "$out/r/ncu"
G=.device-carry/grain
S="--section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis_Chart"
for dt in float double; do
  timeout 150 ncu --clock-control none $S --kernel-name-base mangled --kernel-name regex:ContractFlat --launch-count 1 \
    $G bench contract --backend cuda --layout left --reps 1 --algorithm flat --kernel DataFieldVector --case Q4 --dtype $dt \
    > $out/r/ncu/dfv-q4-$dt.txt 2>&1
  echo "== $dt rc=$?"
done
timeout 200 ncu --clock-control none --set full --import-source no --kernel-name-base mangled --kernel-name regex:ContractFlat \
  --launch-count 1 --page source --print-source sass --csv \
  $G bench contract --backend cuda --layout left --reps 1 --algorithm flat --kernel DataFieldVector --case Q4 --dtype float \
  > $out/r/ncu/dfv-q4-float-source.csv 2>&1
echo "== source rc=$?"
for f in $out/r/ncu/*.txt; do
  echo "##### $f"
  grep -E "Duration|DRAM Throughput|L1/TEX Cache Throughput|L2 Cache Throughput|Compute \(SM\) Throughput|Registers Per|Achieved Occ|Theoretical Occ|Warp Cycles Per Issued|Eligible Warps|No Eligible|L1/TEX Hit|L2 Hit|Mem Busy|Max Bandwidth|Mem Pipes|sectors|Sectors" $f | awk '{$1=$1};1' | head -30
done
tar czf "$out/results.tar.gz" -C "$out" r && rm -rf "$out/r"
