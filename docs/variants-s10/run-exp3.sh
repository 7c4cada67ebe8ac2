#!/usr/bin/env bash
# Session 10, run 3: the 3xTF32 split by integer rounding + fp32 subtraction (grain) against two
# cvt.rna.tf32.f32 (grain-old), float FieldField Q2-Q4 in LayoutLeft, two interleaved rounds;
# Nsight Compute on the new FieldFieldTensor Q4 float kernel.
set -u
o=${OUT:-/tmp/out}; mkdir -p $o/r
GRAIN_TEST_SMALL=1 .device-carry/tests/grain_contract_tests --gtest_brief=1 2>&1 | tail -4
for round in 1 2; do for b in grain-old grain; do
  .device-carry/$b bench contract --backend cuda --layout left \
    --kernel FieldFieldScalar,FieldFieldVector,FieldFieldTensor --case Q2,Q3,Q4 --dtype float --algorithm mma \
    --json $o/r/ff-$b-$round.json > /dev/null 2>&1
  echo "$b rc=$?"
done; done
python3 - "$o" <<'PY'
import json, sys, glob, os
for f in sorted(glob.glob(sys.argv[1] + '/r/ff-*.json')):
    d = json.load(open(f))
    print(os.path.basename(f), ' '.join(f"{r['kernel'][10:]}{r['case']}={r['ms']:.3f}{'' if r['verified'] else '!U'}" for r in d['rows'] if r['algorithm'] in ('mma',)))
    print(os.path.basename(f), 'cublas', ' '.join(f"{r['kernel'][10:]}{r['case']}={r['ms']:.3f}" for r in d['rows'] if r['algorithm'].startswith('cublas')))
PY
N="ncu --clock-control none --section SpeedOfLight --section Occupancy --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis --section InstructionStats"
B=".device-carry/grain bench contract --backend cuda --layout left --reps 1 --quiet --no-verify --algorithm mma"
for spec in "FieldFieldTensor Q4 float" "FieldFieldScalar Q4 float"; do
  set -- $spec
  timeout 150 $N --kernel-name-base demangled --kernel-name regex:contract_mma --launch-skip 1 --launch-count 1 \
    $B --kernel $1 --case $2 --dtype $3 > $o/r/ncu-$1-$2-$3.txt 2>&1
  echo "== $spec rc=$?"
  grep -E "Duration|DRAM Throughput|L2 Cache Throughput|Compute \(SM\)|Issued Warp|No Eligible|Executed Ipc A|Warp Cycles Per Issued|highest-utilized|Executed Instructions  " $o/r/ncu-$1-$2-$3.txt | head -20
done
tar czf $o/run3.tar.gz -C $o r && rm -rf $o/r
