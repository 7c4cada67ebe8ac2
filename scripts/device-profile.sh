#!/usr/bin/env bash
# Runs on the GPU machine over .device-carry/: the compiler's resource report of every kernel and
# Nsight Compute on the kernels whose targets are missed (docs/performance.md cites both).
# Clocks are left alone (--clock-control none). Writes $OUT/profile.txt.
set -u
out=${OUT:-gpu-results}
mkdir -p "$out"
bash scripts/device-unpack.sh  # device-stage.sh ships the binaries compressed
G=.device-carry/grain
rep="$out/profile.txt"
{
  echo "== resource usage (cuobjdump --dump-resource-usage), contraction and MTTKRP kernels"
  cuobjdump --dump-resource-usage "$G" 2>&1 | grep -A1 -E "Contract(Block|Tile|Flat)Kernel|MttkrpPerm" |
    grep -E "Function|REG" | paste - - | sed -E 's/^.*Function ([^ :]+).*REG:([0-9]+) STACK:([0-9]+) SHARED:([0-9]+) LOCAL:([0-9]+).*/\1 REG=\2 STACK=\3 SHARED=\4 LOCAL=\5/' |
    while read -r f rest; do echo "$(echo "$f" | cu++filt 2>/dev/null || echo "$f" | c++filt) | $rest"; done | cut -c1-400
} > "$rep" 2>&1
N="ncu --clock-control none --section SpeedOfLight --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis --section WarpStateStats"
prof() {  # name, kernel regex, launches to skip, command...
  local name=$1 re=$2 skip=$3; shift 3
  echo "== $name" >> "$rep"
  timeout 240 $N --kernel-name-base demangled --kernel-name "regex:$re" --launch-skip "$skip" --launch-count 1 "$@" \
    > "$out/ncu-$name.txt" 2>&1
  echo "rc=$?" >> "$rep"
  grep -E "DRAM Throughput|L2 Cache Throughput|L1/TEX Cache Throughput|Compute \(SM\) Throughput|Duration|Achieved Occupancy|Theoretical Occupancy|Registers Per Thread|Block Limit|Memory Throughput|Mem Busy|Max Bandwidth|L1/TEX Hit Rate|L2 Hit Rate|Warp Cycles Per Issued|Stall|Executed Ipc" \
    "$out/ncu-$name.txt" | head -40 >> "$rep"
}
B="$G bench contract --backend cuda --reps 1 --quiet --no-verify"
prof ff-q4-double-block ContractBlockKernel 2 $B --kernel FieldFieldScalar --case Q4 --dtype double --algorithm block
prof ff-q1-float-block ContractBlockKernel 2 $B --kernel FieldFieldScalar --case Q1 --dtype float --algorithm block
prof ff-q4-double-tile ContractTileKernel 2 $B --kernel FieldFieldScalar --case Q4 --dtype double --algorithm tile
prof dd-q4-float-flat ContractFlatKernel 2 $B --kernel DataDataTensor --case Q4 --dtype float --algorithm flat
prof mttkrp-r64-perm MttkrpPerm 3 $G bench mttkrp --kind random-ktensor --dims 30000x40000x50000 --nnz 10000000 \
  --rank 64 --backend cuda --reps 1 --cp-als-iters 0 --no-verify
# The Data kernels in LayoutLeft (flat and block), for comparison with the full suite.
$G bench contract --backend cuda --kernel DataDataScalar,DataDataVector,DataDataTensor,DataFieldScalar,DataFieldVector,DataFieldTensor \
  --algorithm flat,block --json "$out/data-left.json" > "$out/data-left.txt" 2>&1
echo "== bench contract Data kernels, LayoutLeft rc=$?" >> "$rep"
tail -n 40 "$out/data-left.txt" >> "$rep"
cat "$rep"
