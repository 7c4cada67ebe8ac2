#!/usr/bin/env bash
# Session 17, run 7: Nsight Compute on team-small-k's staged rows (LayoutRight DataField at
# 0.84-0.88 of the floor in run 5): DataFieldTensor Q2 float (K = 243), DataFieldScalar Q2 float
# (K = 27), DataFieldScalar Q3 float (K = 64) and DataFieldVector Q1 float (K = 24).
set -u
out=${OUT:-exp7}
mkdir -p "$out/r/ncu"
G=.device-carry/grain
S="--section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats"
for kc in DataFieldTensor:Q2 DataFieldScalar:Q2 DataFieldScalar:Q3 DataFieldVector:Q1; do
  k=${kc%:*}; c=${kc#*:}
  timeout 150 ncu --clock-control none $S --kernel-name-base mangled --kernel-name regex:SmallKRows --launch-count 1 \
    $G bench contract --backend cuda --layout right --reps 1 --algorithm team-small-k --kernel $k --case $c --dtype float \
    > $out/r/ncu/$k-$c.txt 2>&1
  echo "== $k $c rc=$?"
done
for f in $out/r/ncu/*.txt; do
  echo "##### $f"
  grep -E "Duration|DRAM Throughput|L1/TEX Cache Throughput|Compute \(SM\) Throughput|Registers Per|Achieved Occ|Theoretical Occ|Block Limit (Reg|Shared)|Dynamic Shared|way bank|Warp Cycles Per Issued|Eligible Warps|No Eligible" $f | awk '{$1=$1};1' | head -20
done
tar czf "$out/results.tar.gz" -C "$out" r && rm -rf "$out/r"
