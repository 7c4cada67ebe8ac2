#!/usr/bin/env bash
# Session 17, run 3: Nsight Compute on the staged cells' two forms (run 2's profiles matched no
# kernel: the regex needs mangled names), then LayoutLeft DataField Q4 float, flat against
# team-small-k with its new default for wide float DataField (2 slices x 8 loads in flight), at
# several budgets (cell counts), and at 128 MiB (fewer than 35000 outputs) the older 8 x 2 against
# 4 x 8 and 8 x 8.
set -u
out=${OUT:-exp3}
mkdir -p "$out/r/ncu"
G=.device-carry/grain
S="--section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats"
prof() {  # name quads kernel dtype
  GRAIN_TSK_QUADS=$2 timeout 150 ncu --clock-control none $S --kernel-name-base mangled --kernel-name regex:CellBlocks --launch-count 1 \
    $G bench contract --backend cuda --layout right --reps 1 --algorithm team-small-k --kernel $3 --case Q1 --dtype $4 \
    > $out/r/ncu/$1.txt 2>&1
  echo "== $1 rc=$?"
}
prof ffs-f-q0 0 FieldFieldScalar float
prof ffs-f-q1 1 FieldFieldScalar float
prof ffv-f-q0 0 FieldFieldVector float
prof ffv-f-q1 1 FieldFieldVector float
GRAIN_TSK_QUADS=1 timeout 200 ncu --clock-control none --set full --import-source no --kernel-name-base mangled --kernel-name regex:CellBlocks \
  --launch-count 1 --page source --print-source sass --csv \
  $G bench contract --backend cuda --layout right --reps 1 --algorithm team-small-k --kernel FieldFieldVector --case Q1 --dtype float \
  > $out/r/ncu/ffv-f-q1-source.csv 2>&1
echo "== source rc=$?"
for f in $out/r/ncu/*.txt; do
  echo "##### $f"
  grep -E "Duration|Throughput|Bank|Wavefronts|Registers|Theoretical Occ|Achieved Occ|Block Limit|Stall|Warp Cycles|Issued Warp|No Eligible|Active Warps|Eligible Warps|Shared Memory Configuration|Dynamic Shared" $f | awk '{$1=$1};1' | head -45
done
for round in 1 2; do
  for b in 256 384 512 640 768; do
    timeout 120 $G bench contract --backend cuda --kernel DataFieldVector,DataFieldTensor --case Q4 --dtype float \
      --algorithm flat,team-small-k --layout left --budget-mib $b --json $out/r/c-$b-r$round.json > $out/r/c-$b-r$round.txt 2>&1
    echo "c budget $b round $round rc=$?"
  done
  for sa in 8x2 4x8 8x8; do
    s=${sa%x*}; a=${sa#*x}
    GRAIN_TSK_SLICES=$s GRAIN_TSK_LEFT_A=$a timeout 120 $G bench contract --backend cuda --kernel DataFieldScalar,DataFieldVector,DataFieldTensor \
      --case Q4 --dtype float --algorithm flat,team-small-k --layout left --budget-mib 128 --json $out/r/d-$sa-r$round.json > $out/r/d-$sa-r$round.txt 2>&1
    echo "d $sa round $round rc=$?"
  done
done
python3 - "$out/r" <<'PY'
import json, glob, sys, collections
t = collections.defaultdict(list)
for f in sorted(glob.glob(sys.argv[1] + '/[cd]-*.json')):
    tag = f.split('/')[-1].rsplit('-r', 1)[0]
    for r in json.load(open(f))['rows']:
        t[(tag, r['kernel'], r['case'], r['dtype'], 'C=%d' % r['C'], r['algorithm'])].append(r['ms'])
for k in sorted(t):
    print(*k, ' '.join('%.4f' % v for v in t[k]))
PY
tar czf "$out/results.tar.gz" -C "$out" r && rm -rf "$out/r"
