#!/usr/bin/env bash
# Session 12, runs 3 and 4: Nsight Compute on `mma` and on cuBLAS's strided-batched GEMM (the peer, on
# LayoutRight copies) for the same LayoutLeft FieldField cases, side by side: where does the
# time of mma's loads go that cuBLAS's does not spend? Kernels whose name has "mma" or "gemm"
# (the 26 launches of the GEMM ceilings skipped).
set -u
o=${OUT:-/tmp/out}; mkdir -p $o/r
G=.device-carry/grain
N="ncu --clock-control none --section SpeedOfLight --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats"
for spec in "FieldFieldScalar Q3 double" "FieldFieldTensor Q4 double" "FieldFieldScalar Q4 float" "FieldFieldTensor Q4 float"; do
  set -- $spec
  timeout 200 $N --kernel-name-base demangled --kernel-name regex:'contract_mma|gemm' --launch-skip 26 --launch-count 8 \
    $G bench contract --backend cuda --layout left --reps 2 --algorithm mma,cublas-strided-batched \
    --kernel $1 --case $2 --dtype $3 > $o/r/ncu-$1-$2-$3.txt 2>&1
  echo "== $spec rc=$?"
  python3 - $o/r/ncu-$1-$2-$3.txt <<'PY'
import re, sys
txt = open(sys.argv[1]).read()
blocks = re.split(r'\n  (?=\S.*\(\d+, \d+, \d+\)x\(\d+, \d+, \d+\))', txt)
want = ['Duration', 'DRAM Throughput', 'L2 Cache Throughput', 'L1/TEX Cache Throughput', 'Compute (SM) Throughput',
        'L2 Hit Rate', 'Achieved Occupancy', 'Registers Per Thread', 'No Eligible', 'Issued Warp Per Scheduler',
        'Warp Cycles Per Issued Instruction', 'Mem Busy', 'Max Bandwidth', 'Block Limit Registers', 'Dynamic Shared Memory Per Block']
for b in blocks[1:]:
    head = b.split('\n', 1)[0]
    name = head.split('(')[0].strip()[:60]
    grid = re.search(r'\((\d+, \d+, \d+)\)x\((\d+, \d+, \d+)\)', head)
    vals = []
    for w in want:
        m = re.search(r'^\s+' + re.escape(w) + r'\s+(\S+)\s+([\d.,]+)', b, re.M)
        if m: vals.append(f'{w}={m.group(2)}{m.group(1) if m.group(1) in ("us","ms","%") else ""}')
    print(name, grid.group(0) if grid else '', '; '.join(vals))
PY
done
tar czf $o/run3.tar.gz -C $o r && rm -rf $o/r
