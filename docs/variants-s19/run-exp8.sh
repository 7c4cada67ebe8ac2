#!/usr/bin/env bash
# Session 19, run 8: Nsight Compute on the one bandwidth-bound case left under 0.85, LayoutLeft
# DataFieldTensor Q4 float (team-small-k, one field a thread, 2 slices), beside the same kernel
# family on DataFieldTensor Q4 double (two fields a thread, 0.90) and the same float bytes in
# LayoutRight (team-small-k's lanes, 0.89).
set -u
out=${OUT:-exp8}
mkdir -p "$out/r"
G=.device-carry/grain
sections="--section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis_Tables"
for cfg in "left float" "left double" "right float"; do
  set -- $cfg
  timeout 150 ncu $sections --kernel-name-base mangled --kernel-name regex:ContractTeamSmallK \
    --launch-skip 2 --launch-count 1 -o "$out/r/$1-$2" \
    $G bench contract --backend cuda --kernel DataFieldTensor --case Q4 --dtype $2 --algorithm team-small-k --layout $1 > "$out/r/$1-$2.txt" 2>&1
  echo "== $1 $2 rc=$?" | tee -a "$out/summary.txt"
  ncu --import "$out/r/$1-$2.ncu-rep" --page details > "$out/r/$1-$2-details.txt" 2>&1
  grep -E "^  [a-z_]+.*Kernel|Duration|DRAM Throughput|L2 Cache Throughput|L1/TEX Cache Throughput|Registers Per|Achieved Occupancy|Theoretical Occupancy|Eligible Warps|Mem Busy|Max Bandwidth|L1/TEX Hit|L2 Hit|Warp Cycles Per Issued|Issued Warp|Grid Size|Block Size|Waves Per SM|Mem Pipes Busy|Memory Throughput" "$out/r/$1-$2-details.txt" | head -40 | tee -a "$out/summary.txt"
done
tar czf "$out/results.tar.gz" -C "$out" r && rm -rf "$out/r"
