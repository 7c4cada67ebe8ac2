#!/usr/bin/env bash
# Session 14, run 2: Nsight Compute on the wgmma kernel, to find what bounds FieldFieldScalar Q4
# float (C = 4971, odd) with TMA class boxes (shape 9) and with register loads (shape 8), against
# the packed TMA path (FieldFieldTensor Q4, FieldFieldScalar Q3): speed of light, memory
# workload, warp states, and per-instruction stall samples (source page, SASS) for two of them.
set -u
out=${OUT:-exp2}
mkdir -p "$out/ncu"
G=.device-carry/grain
S="--section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis"
prof() {  # name shape kernel case [extra ncu args]
  local name=$1 shape=$2 k=$3 c=$4; shift 4
  GRAIN_MMA_SHAPE=$shape timeout 150 ncu --clock-control none $S "$@" --kernel-name regex:wgmma --launch-count 1 \
    $G bench contract --backend cuda --layout left --reps 1 --algorithm mma --kernel $k --case $c --dtype float \
    > $out/ncu/$name.txt 2>&1
  echo "== $name rc=$?"
}
prof ffs-q4-class 9 FieldFieldScalar Q4
prof ffs-q4-loads 8 FieldFieldScalar Q4
prof fft-q4-tma -1 FieldFieldTensor Q4
prof ffs-q3-tma -1 FieldFieldScalar Q3
for v in "ffs-q4-class 9 FieldFieldScalar Q4" "ffs-q3-tma -1 FieldFieldScalar Q3"; do
  set -- $v
  GRAIN_MMA_SHAPE=$2 timeout 200 ncu --clock-control none --set full --import-source no --kernel-name regex:wgmma \
    --launch-count 1 --page source --print-source sass --csv \
    $G bench contract --backend cuda --layout left --reps 1 --algorithm mma --kernel $3 --case $4 --dtype float \
    > $out/ncu/$1-source.csv 2>&1
  echo "== source $1 rc=$? $(wc -l < $out/ncu/$1-source.csv) lines"
done
for f in $out/ncu/*.txt; do
  echo "##### $f"
  grep -E "Duration|Throughput|Busy|Bandwidth|Hit Rate|Stall|Warp Cycles|Issued Warp|No Eligible|Active Warps|Eligible Warps|Pipe" $f | awk '{$1=$1};1' | head -40
done
tar czf "$out/ncu.tar.gz" -C "$out" ncu && rm -rf "$out/ncu"
