#!/usr/bin/env bash
# Session 12, run 11: the three LayoutLeft float DataField Q4 cases below 0.85 (`flat`). How many
# partial sums a float `flat` thread keeps (8 below kFlatFewOutputs = 2^18 outputs, else 2):
# GRAIN_FLAT_FEW (a temporary knob) = default, 2^30 (8 everywhere) and 0 (2 everywhere), on
# every LayoutLeft float Data case, two rounds; then Nsight Compute on DataFieldScalar /
# DataFieldTensor Q4 float.
set -u
out=${OUT:-exp11}
mkdir -p "$out/r"
G=.device-carry/grain
for round in 1 2; do
  for few in default 1073741824 0; do
    if [ $few = default ]; then unset GRAIN_FLAT_FEW; else export GRAIN_FLAT_FEW=$few; fi
    "$G" bench contract --backend cuda --layout left --kernel DataDataScalar,DataDataVector,DataDataTensor,DataFieldScalar,DataFieldVector,DataFieldTensor \
      --dtype float --algorithm flat --json "$out/r/few-$few-r$round.json" > /dev/null 2>&1
    echo "few $few round $round rc=$?"
  done
done
unset GRAIN_FLAT_FEW
python3 - "$out/r" <<'PY'
import json, sys, glob, os, collections
t = collections.defaultdict(dict)
for f in sorted(glob.glob(sys.argv[1] + '/few-*.json')):
    tag = os.path.basename(f)[4:-5]
    for r in json.load(open(f))['rows']:
        t[(r['kernel'], r['case'], r['C'], r['C'] * r['L'] * r['R'])][tag] = r['roofline']
for k in sorted(t):
    print(*k, ' '.join(f'{a}={v:.3f}' for a, v in sorted(t[k].items())))
PY
N="ncu --clock-control none --section SpeedOfLight --section Occupancy --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats"
for k in DataFieldScalar DataFieldTensor; do
  timeout 120 $N --kernel-name-base demangled --kernel-name regex:ContractFlat --launch-skip 2 --launch-count 1 "$G" bench contract --backend cuda --layout left \
    --kernel $k --case Q4 --dtype float --algorithm flat --reps 1 > "$out/r/ncu-$k.txt" 2>&1
  echo "== ncu $k rc=$?"
  grep -E "Duration|DRAM Throughput|L2 Cache Throughput|L1/TEX Hit|L2 Hit|Achieved Occupancy|Theoretical Occ|Registers Per|No Eligible|Warp Cycles Per Issued|Memory Throughput|Block Limit" "$out/r/ncu-$k.txt" | awk '{$1=$1};1' | head -16
done
tar czf "$out/results.tar.gz" -C "$out" r && rm -rf "$out/r"
