#!/usr/bin/env bash
# Session 10, run 2: packed float mma pipeline shapes (GRAIN_MMA_SHAPE 7 = default; 8 / 9: 8 cells x
# 64 x 32 tiles, 2 / 3 stages of 16; 10 / 11: 16 cells x 32 x 32, 4 / 5 stages of 8), two rounds,
# and Nsight Compute on the default mma kernels of three Q4 cases.
set -u
o=${OUT:-/tmp/out}; mkdir -p $o/r
G=.device-carry/grain
GRAIN_TEST_SMALL=1 .device-carry/tests/grain_contract_tests --gtest_brief=1 --gtest_filter='*Mma*:*mma*' 2>&1 | tail -3
for round in 1 2; do for s in 7 8 9 10 11; do
  GRAIN_MMA_SHAPE=$s "$G" bench contract --backend cuda --layout left \
    --kernel FieldFieldScalar,FieldFieldTensor --case Q2,Q3,Q4 --dtype float --algorithm mma \
    --json $o/r/ff-mma-$s-$round.json > /dev/null 2>&1
  echo "mma $s rc=$?"
done; done
python3 - "$o" <<'PY'
import json, sys, glob, os
for f in sorted(glob.glob(sys.argv[1] + '/r/ff-mma-*.json')):
    d = json.load(open(f))
    print(os.path.basename(f), ' '.join(f"{r['kernel'][10:]}{r['case']}={r['ms']:.3f}{'' if r['verified'] else '!U'}" for r in d['rows'] if r['algorithm'] == 'mma'))
PY
N="ncu --clock-control none --section SpeedOfLight --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis"
B="$G bench contract --backend cuda --layout left --reps 1 --quiet --no-verify --algorithm mma"
for spec in "FieldFieldTensor Q4 float" "FieldFieldScalar Q4 float" "FieldFieldTensor Q4 double"; do
  set -- $spec
  timeout 150 $N --kernel-name-base demangled --kernel-name regex:contract_mma --launch-skip 1 --launch-count 1 \
    $B --kernel $1 --case $2 --dtype $3 > $o/r/ncu-$1-$2-$3.txt 2>&1
  echo "== $spec rc=$?"
  grep -E "Duration|DRAM Throughput|L2 Cache Throughput|L1/TEX Cache Throughput|Compute \(SM\)|L2 Hit|L1/TEX Hit|Achieved Occ|Eligible Warps|Issued Warp|No Eligible|Stall|Registers Per|Executed Ipc|Pipe" $o/r/ncu-$1-$2-$3.txt | head -40
done
tar czf $o/run2.tar.gz -C $o r && rm -rf $o/r
