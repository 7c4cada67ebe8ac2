#!/usr/bin/env bash
# Session 18, run 3: Nsight Compute on flat at LayoutLeft DataFieldScalar Q4 float (C = 4971):
# the shifted packs (GRAIN_FLAT_SHIFT=2, 0.30 ms in run 2) against the plain threads (=0, 0.21 ms).
set -u
out=${OUT:-exp3}
mkdir -p "$out/r"
G=.device-carry/grain
sections="--section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section SourceCounters --section MemoryWorkloadAnalysis_Tables"
for mode in 2 0; do
  name=ContractFlatCellShift; [ $mode = 0 ] && name=ContractFlatKernel
  GRAIN_FLAT_SHIFT=$mode timeout 200 ncu $sections --kernel-name-base mangled --kernel-name regex:$name \
    --launch-skip 2 --launch-count 1 -o "$out/r/m$mode" \
    $G bench contract --backend cuda --kernel DataFieldScalar --case Q4 --dtype float --algorithm flat --layout left > "$out/r/m$mode.txt" 2>&1
  echo "mode $mode rc=$?"
  ncu --import "$out/r/m$mode.ncu-rep" --page details > "$out/r/m$mode-details.txt" 2>&1
  grep -E "Duration|DRAM Throughput|L2 Cache Throughput|L1/TEX Cache Throughput|Registers Per|Achieved Occupancy|Theoretical Occupancy|Eligible Warps|Local Memory|Mem Busy|Max Bandwidth|L1/TEX Hit|L2 Hit|Stall|Warp Cycles Per Issued|Issued Warp" "$out/r/m$mode-details.txt" | head -40
done
tar czf "$out/results.tar.gz" -C "$out" r && rm -rf "$out/r"
